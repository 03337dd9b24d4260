import Foundation
import GRDB
import PackControl
import RunSimulator
import SensorCodecs
import TestSupport
import Testing

@Suite("handoffd and handoff, as processes", .serialized)
struct DaemonTests {
    @Test("Without handoffd, the CLI says it is not running and how to start it")
    func notRunning() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let result = try handoff(["status", "--socket", dir.path + "/none.sock"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("handoffd is not running"))
        #expect(result.stderr.contains("systemctl start handoffd"))
        let json = try handoff(["runs", "--json", "--socket", dir.path + "/none.sock"])
        #expect(json.status == 69)
        #expect(json.stderr.contains(#""code":"not_running""#))
    }

    @Test("A replayed demo run is recorded and reported by runs and show, in text and JSON")
    func replayAndReport() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let daemon = try Daemon(in: dir, arguments: ["--replay", demoCapturePath, "--speed", "max"])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        let status = try await daemon.waitFor { $0.replay?.finished == true && $0.state == .finished }
        let truth = try #require(status.replay?.simulatedDistanceM)

        let runs = try handoff(["runs", "--json", "--socket", daemon.socket])
        #expect(runs.status == 0, "\(runs.stderr)")
        let list = try JSONDecoder().decode([RunReport].self, from: Data(runs.stdout.utf8))
        #expect(list.count == 1)

        let show = try handoff(["show", "last", "--json", "--socket", daemon.socket])
        let object = try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as! [String: Any]
        for key in [
            "distance_m", "elapsed_s", "moving_s", "avg_hr_bpm", "max_hr_bpm", "avg_cadence_spm", "avg_pace_s_per_km",
            "splits", "laps",
        ] {
            #expect(object[key] != nil, "show --json lacks \(key)")
        }
        let distance = try #require(object["distance_m"] as? Double)
        #expect(abs(distance - truth) / truth < 0.005)
        #expect((object["splits"] as? [Any])?.count == 6)

        let text = try handoff(["show", "1", "--socket", daemon.socket])
        #expect(text.stdout.contains("Splits"))
        #expect(text.stdout.contains("hr0 disconnected"))
        let missing = try handoff(["show", "99", "--socket", daemon.socket])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no run matches \"99\""))

        // The journal: WAL, sound, every RR interval the strap sent.
        let (mode, integrity, rr, outbox) = try await daemon.openDatabase().read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM rr_interval"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox")
            )
        }
        let header = try CaptureCodec.decodeHeader(
            String(contentsOfFile: demoCapturePath, encoding: .utf8).split(separator: "\n")[0].description)
        #expect(mode == "wal")
        #expect(integrity == "ok")
        #expect(rr == header.simulation?.rrIntervals)
        #expect(outbox == 1)
    }

    @Test("Session commands over the socket: start, pause, resume, lap, stop, and the ones that do not apply")
    func sessionCommands() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let daemon = try Daemon(in: dir, arguments: [])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        // Only the service's user and group may control the pack.
        let mode = try FileManager.default.attributesOfItem(atPath: daemon.socket)[.posixPermissions] as? Int
        #expect(mode == 0o660)
        let socket = ["--socket", daemon.socket]
        var result = try handoff(["pause"] + socket)
        #expect(result.status == 1 && result.stderr.contains("no run has started"))
        result = try handoff(["start", "--json"] + socket)
        #expect(result.status == 0)
        #expect(try JSONDecoder().decode(CommandReport.self, from: Data(result.stdout.utf8)).state == .recording)
        result = try handoff(["start"] + socket)
        #expect(result.status == 1 && result.stderr.contains("already being recorded"))
        // A lap needs a recorded second in it: waits for the first point, however late it comes.
        _ = try await daemon.waitFor { ($0.run.points ?? 0) >= 1 }
        #expect(try handoff(["lap"] + socket).status == 0)
        #expect(try handoff(["pause"] + socket).stdout.contains("Paused"))
        #expect(try handoff(["resume"] + socket).stdout.contains("Recording again"))
        let status = try handoff(["status"] + socket)
        #expect(status.stdout.contains("Recording run 1"))
        // A recorded second after the lap (and the pause), so that a last lap exists.
        let pointsAtResume =
            try daemon.client.send(.status, expecting: StatusReport.self).run.points ?? 0
        _ = try await daemon.waitFor { ($0.run.points ?? 0) > pointsAtResume }
        // A few seconds with no distance: kept only because it is asked for (issue 29).
        result = try handoff(["stop", "--keep"] + socket)
        #expect(result.status == 0 && result.stdout.contains("Run 1 finished"))
        let show =
            try JSONSerialization.jsonObject(with: Data(try handoff(["show", "last", "--json"] + socket).stdout.utf8))
            as! [String: Any]
        #expect((show["laps"] as? [Any])?.count == 2)
        #expect(show["state"] as? String == "finished")
    }

    @Test("The same capture gives the same run byte for byte, replayed at any speed")
    func deterministicAcrossSpeeds() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let capture = dir.path + "/short.jsonl"
        try RunSimulator.simulate(SimulationScenario(seed: 5, minutes: 2)).captureText.write(
            toFile: capture, atomically: true, encoding: .utf8)
        let fast = try recordToCompletion(capture, speed: "max", name: "fast")
        let paced = try recordToCompletion(capture, speed: "40", name: "paced")
        #expect(fast.count > 100)
        #expect(fast == paced)
    }

    @Test("--capture writes a capture that replays to the same run")
    func captureReplaysToSameRun() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let original = dir.path + "/original.jsonl"
        try RunSimulator.simulate(SimulationScenario(seed: 9, minutes: 2)).captureText.write(
            toFile: original, atomically: true, encoding: .utf8)
        let written = dir.path + "/written.jsonl"
        let first = try recordToCompletion(original, extra: ["--capture", written], name: "first")
        let second = try recordToCompletion(written, name: "second")
        #expect(!first.isEmpty)
        #expect(first == second)
    }

    @Test("SIGTERM during a run finishes it, commits, and exits 0")
    func sigtermFinishesRun() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let daemon = try Daemon(in: dir, arguments: ["--replay", demoCapturePath, "--speed", "30"])
        try await daemon.waitUntilReady()
        _ = try await daemon.waitFor { $0.state == .recording && ($0.run.elapsedS ?? 0) > 20 }
        daemon.terminate()
        #expect(daemon.process.terminationStatus == 0, "\(daemon.log)")
        let (state, recovered, points, integrity) = try await daemon.openDatabase().read { db in
            (
                try String.fetchOne(db, sql: "SELECT state FROM session"),
                try Bool.fetchOne(db, sql: "SELECT recovered FROM session"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM point") ?? 0,
                try String.fetchOne(db, sql: "PRAGMA integrity_check")
            )
        }
        #expect(state == "finished")
        #expect(recovered == false)
        #expect(points > 20)
        #expect(integrity == "ok")
        #expect(daemon.log.contains("Finished the run in progress because handoffd is stopping"))
    }
}
