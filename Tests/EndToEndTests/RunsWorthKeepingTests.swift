import ActivityFormats
import Foundation
import HandoffModel
import PackControl
import TestSupport
import Testing

/// Issue 29 through `handoff` and `handoffd`, with no store: a false start is discarded at stop,
/// `handoff delete` asks (or needs --yes), and `handoff runs` lists by start time.
@Suite("Runs worth keeping: stop, delete and list with the CLI")
struct RunsWorthKeepingTests {
    /// A FIT file of a 5-minute run starting at `start`.
    static func fit(start: WallInstant) -> [UInt8] {
        var points: [RecordPoint] = []
        for t in 0...300 {
            points.append(
                RecordPoint(
                    elapsedSeconds: t, latitude: 48.2 + Double(t) * 3 / 111_195, longitude: 16.37, altitudeMeters: 180,
                    gpsFix: .threeD, hdop: 0.9, speedMetersPerSecond: 3, distanceMeters: Double(t) * 3,
                    heartRateBPM: 150, isMoving: true))
        }
        let summary = RunSummary(
            elapsedSeconds: 300,
            statistics: RunStatistics(distanceMeters: 900, timerSeconds: 300, movingSeconds: 300, pointCount: 301),
            splits: [])
        return ActivityFormat.fit.write(Activity(start: start, points: points, summary: summary))
    }

    @Test(
        "stop discards a false start and says how to keep one; --keep keeps it; delete refuses a run being recorded and, with no terminal, asks for --yes; runs lists by start"
    )
    func stopDeleteAndList() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try "[gps]\nsource = \"none\"\n[bluetooth]\nenabled = false\n".write(
            toFile: dir.path + "/handoff.toml", atomically: true, encoding: .utf8)
        let daemon = try Daemon(in: dir, arguments: [])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        let socket = ["--socket", daemon.socket]

        #expect(try handoff(["start"] + socket).status == 0)
        _ = try await daemon.waitFor { ($0.run.points ?? 0) >= 1 }
        let recording = try handoff(["delete", "last", "--yes"] + socket)
        #expect(recording.status != 0 && recording.stderr.contains("still being recorded"), "\(recording.stderr)")
        let stopped = try handoff(["stop"] + socket)
        #expect(stopped.status == 0)
        #expect(stopped.stdout.contains("discarded") && stopped.stdout.contains("--keep"), "\(stopped.stdout)")
        let none = try handoff(["runs", "--json"] + socket)
        #expect(try ControlJSON.decode([RunReport].self, from: none.stdout).isEmpty)

        #expect(try handoff(["start"] + socket).status == 0)
        _ = try await daemon.waitFor { ($0.run.points ?? 0) >= 1 }
        let kept = try handoff(["stop", "--keep", "--json"] + socket)
        let keptReport = try ControlJSON.decode(CommandReport.self, from: kept.stdout)
        #expect(keptReport.discarded == nil && keptReport.message.contains("finished"))
        let live = try #require(keptReport.runId)

        // Imported after the live run, but run a week before it: listed after it.
        let file = dir.path + "/old.fit"
        try Data(Self.fit(start: WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970 - 7 * 86_400)))
            .write(to: URL(fileURLWithPath: file))
        let imported = try handoff(["import", file, "--json"] + socket)
        #expect(imported.status == 0, "\(imported.stderr)")
        let old = try ControlJSON.decode(RunReport.self, from: imported.stdout).id
        #expect(old > live)
        let listed = try handoff(["runs", "--json"] + socket)
        #expect(try ControlJSON.decode([RunReport].self, from: listed.stdout).map(\.id) == [live, old])

        // No terminal to ask on (stdin is a pipe): refused, naming --yes; nothing deleted.
        let unasked = try handoff(["delete", String(old)] + socket, stdin: "y\n")
        #expect(unasked.status != 0 && unasked.stderr.contains("--yes"), "\(unasked.stderr)")
        #expect(unasked.stderr.contains("Delete run \(old) (9"), "\(unasked.stderr)")
        let deleted = try handoff(["delete", String(old), "--yes"] + socket)
        #expect(deleted.status == 0 && deleted.stdout.contains("Deleted run \(old)"), "\(deleted.stdout)")
        let after = try handoff(["runs", "--json"] + socket)
        #expect(try ControlJSON.decode([RunReport].self, from: after.stdout).map(\.id) == [live])
        let missing = try handoff(["delete", "9999", "--yes"] + socket)
        #expect(missing.status != 0 && missing.stderr.contains("no run matches"))
    }
}
