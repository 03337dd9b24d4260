import PackService
import TestSupport
import Testing

@Suite("handoff.toml")
struct ConfigurationTests {
    @Test("Every documented key is read")
    func readsKeys() throws {
        var c = PackConfiguration()
        try c.apply(
            toml: """
                [storage]
                database = "/data/handoff.sqlite"
                [control]
                socket = "/tmp/h.sock"
                [recording]
                auto_lap_m = 1609.344
                stale_after_s = 5
                moving_speed_mps = 0.8
                [gps]
                stationary_speed_mps = 0.4
                jitter_radius_m = 4
                jitter_radius_per_hdop_m = 2.5
                max_fix_gap_s = 8
                max_speed_mps = 10
                [replay]
                file = "/tmp/run.jsonl"
                speed = "max"
                [capture]
                file = "/tmp/capture.jsonl"
                [log]
                level = "debug"
                """, path: "test.toml")
        #expect(c.databasePath == "/data/handoff.sqlite")
        #expect(c.socketPath == "/tmp/h.sock")
        #expect(c.recorder.autoLapMeters == 1609.344)
        #expect(c.recorder.staleAfterNanoseconds == 5_000_000_000)
        #expect(c.recorder.movingSpeed == 0.8)
        #expect(c.recorder.gps.stationarySpeed == 0.4)
        #expect(c.recorder.gps.minimumJitterRadius == 4)
        #expect(c.recorder.gps.jitterRadiusPerHDOP == 2.5)
        #expect(c.recorder.gps.maximumFixGapNanoseconds == 8_000_000_000)
        #expect(c.recorder.gps.maximumSpeed == 10)
        #expect(c.replayFile == "/tmp/run.jsonl")
        #expect(c.replaySpeed == .maximum)
        #expect(c.captureFile == "/tmp/capture.jsonl")
        #expect(c.logLevel == .debug)
    }

    @Test("auto_lap_m = 0 turns auto-lap off; integers are accepted where numbers are")
    func autoLapOff() throws {
        var c = PackConfiguration()
        try c.apply(toml: "[recording]\nauto_lap_m = 0\n[replay]\nspeed = 60", path: "t")
        #expect(c.recorder.autoLapMeters == nil)
        #expect(c.replaySpeed == .factor(60))
    }

    @Test(
        "Mistakes are refused with the key and the file",
        arguments: [
            ("[recording]\nauto_lap = 1000", "unknown key recording.auto_lap"),
            ("[recordings]\nauto_lap_m = 1000", "unknown section [recordings]"),
            ("[recording]\nstale_after_s = 0.1", "recording.stale_after_s is 0.1; it must be between 1.0 and 60.0"),
            ("[recording]\nauto_lap_m = \"1 km\"", "recording.auto_lap_m must be a number"),
            ("[log]\nlevel = \"loud\"", "log.level must be one of"),
            ("[replay]\nspeed = -2", "replay.speed must be a positive number or \"max\""),
            ("recording = 3", "[recording] must be a table"),
            ("[recording\nauto_lap_m = 1", "is not valid TOML at line 1"),
        ])
    func mistakes(toml: String, message: String) {
        var c = PackConfiguration()
        do {
            try c.apply(toml: toml, path: "/etc/handoff/handoff.toml")
            Issue.record("accepted: \(toml)")
        } catch {
            #expect(error.description.contains(message), "\(error)")
            #expect(error.description.hasPrefix("/etc/handoff/handoff.toml"))
        }
    }

    @Test("The example configuration in docs/ is valid and states the defaults")
    func documentedExample() throws {
        var c = PackConfiguration()
        let defaults = PackConfiguration()
        try c.apply(tomlAt: TestSupportPaths.repositoryRoot + "/docs/handoff.example.toml")
        #expect(c.recorder == defaults.recorder)
        #expect(c.replaySpeed == defaults.replaySpeed)
        #expect(c.logLevel == defaults.logLevel)
    }
}

enum TestSupportPaths {
    static var repositoryRoot: String { Fixtures.repositoryRoot.path }
}
