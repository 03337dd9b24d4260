import Foundation
import PackControl
import TestSupport
import Testing

/// Issue 29: every command tells one story (a replay is a replay, an ended capture is not live),
/// and `handoff start` waits for a GPS fix, or warns when there is nothing to record from.
@Suite struct FirstHourTests {
    @Test(
        "A replayed capture: status, sensors, gps and doctor say so and describe its sources; once it has ended no sensor is live and there is no fix"
    )
    func replayIsOneStory() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let daemon = try Daemon(in: dir, arguments: ["--replay", demoCapturePath, "--speed", "max"])
        defer { daemon.terminate() }
        _ = try await daemon.waitUntilReady()
        let ended = try await daemon.waitFor { $0.replay?.finished == true }
        #expect(ended.sensors.count == 3 && ended.sensors.allSatisfy { !$0.fresh && $0.link == .ended })
        #expect(ended.gps.fix == .none && ended.live.hrBpm == nil)
        let socket = ["--socket", daemon.socket]

        let status = try handoff(["status"] + socket).stdout
        #expect(status.hasPrefix("Replayed the capture demo-run.capture.jsonl"), "\(status)")
        #expect(!status.contains("live,") && status.contains("the capture has ended"), "\(status)")
        #expect(status.contains("GPS         no fix (the capture has ended)\n"), "\(status)")

        let sensors = try handoff(["sensors"] + socket)
        #expect(sensors.status == 0, "\(sensors.stderr)")
        #expect(sensors.stdout.contains("Replayed the capture demo-run.capture.jsonl"), "\(sensors.stdout)")
        #expect(
            sensors.stdout.contains("hr0") && sensors.stdout.contains("ended with the capture"), "\(sensors.stdout)")
        let sensorsJSON = try ControlJSON.decode(
            ReplayedSensorsReport.self, from: try handoff(["sensors", "--json"] + socket).stdout)
        #expect(sensorsJSON.replay.finished && sensorsJSON.sensors.map(\.id) == ["gps0", "hr0", "pod0"])

        let gps = try handoff(["gps"] + socket).stdout
        #expect(
            gps.contains("gps0, replayed from demo-run.capture.jsonl (recorded from serial /dev/serial0)"), "\(gps)")
        #expect(!gps.contains("?"), "an unknown count printed as ?: \(gps)")

        let doctor = try ControlJSON.decode(DoctorReport.self, from: try handoff(["doctor", "--json"] + socket).stdout)
        let names = doctor.checks.map(\.check)
        #expect(names.contains("replay") && !names.contains("bluetooth.adapter") && !names.contains("gps"), "\(names)")
        #expect(!names.contains("pedometer") && !names.contains("sensors"), "\(names)")
        let replay = try #require(doctor.checks.first { $0.check == "replay" })
        #expect(replay.status == .warning && replay.summary.contains("replayed to its end"), "\(replay)")
    }

    @Test("While a capture plays, doctor names its sources instead of checking hardware that is not read")
    func replayWhilePlaying() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let daemon = try Daemon(in: dir, arguments: ["--replay", demoCapturePath, "--speed", "10"])
        defer { daemon.terminate() }
        _ = try await daemon.waitUntilReady()
        _ = try await daemon.waitFor { ($0.run.points ?? 0) >= 1 }
        let doctor = try ControlJSON.decode(
            DoctorReport.self, from: try handoff(["doctor", "--json", "--socket", daemon.socket]).stdout)
        let replay = try #require(doctor.checks.first { $0.check == "replay" })
        #expect(replay.status == .ok, "\(replay)")
        #expect(replay.summary.contains("gps0 (gps), hr0 (heart rate), pod0 (footpod) come from it"), "\(replay)")
        let status = try handoff(["status", "--socket", daemon.socket]).stdout
        #expect(status.hasPrefix("Replaying the capture demo-run.capture.jsonl at 10x"), "\(status)")
        #expect(status.contains("live,"), "a sensor of a playing capture is live: \(status)")
    }

    @Test(
        "handoff start without a fix waits for one, showing satellites and time, and starts when the wait is up; --now starts at once"
    )
    func startWaitsForAFix() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // gpsd where none runs: a GPS that has no fix.
        try "[gps]\nsource = \"gpsd\"\ngpsd = \"127.0.0.1:\(freeLoopbackPort())\"\nstart_wait_s = 1\n".write(
            toFile: dir.path + "/handoff.toml", atomically: true, encoding: .utf8)
        let daemon = try Daemon(in: dir, arguments: [])
        defer { daemon.terminate() }
        let ready = try await daemon.waitUntilReady()
        #expect(ready.gps.receiver.sensor != nil && ready.gps.fix == .none && ready.gps.startWaitS == 1)
        let socket = ["--socket", daemon.socket]
        let started = ContinuousClock.now
        let waited = try handoff(["start"] + socket)
        #expect(waited.status == 0, "\(waited.stderr)")
        #expect(ContinuousClock.now - started >= .seconds(1))
        #expect(
            waited.stderr.contains("Waiting for a GPS fix: ? satellites seen, 0 used · 0:00 of 0:01"),
            "\(waited.stderr)")
        #expect(waited.stderr.contains("no GPS fix after 0:01: starting without one"), "\(waited.stderr)")
        #expect(waited.stdout.contains("Recording"), "\(waited.stdout)")
        #expect(try handoff(["stop"] + socket).status == 0)
        let now = try handoff(["start", "--now", "--fix-wait", "600"] + socket)
        #expect(now.status == 0 && !now.stderr.contains("Waiting for a GPS fix"), "\(now.stderr)")
        #expect(try handoff(["stop"] + socket).status == 0)
    }

    @Test("handoff start with no GPS and no sensor at all warns before it records")
    func startWarnsWithNothingToRecord() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try "[gps]\nsource = \"none\"\n[bluetooth]\nenabled = false\n[pedometer]\nsources = []\n".write(
            toFile: dir.path + "/handoff.toml", atomically: true, encoding: .utf8)
        let daemon = try Daemon(in: dir, arguments: [])
        defer { daemon.terminate() }
        _ = try await daemon.waitUntilReady()
        let result = try handoff(["start", "--socket", daemon.socket])
        #expect(result.status == 0)
        #expect(
            result.stderr.contains("warning: no GPS and no sensor is connected: this run records time only"),
            "\(result.stderr)")
        #expect(try handoff(["stop", "--socket", daemon.socket]).status == 0)
    }
}
