import Foundation
import GRDB
import HandoffModel
import PackControl
import TestSupport
import Testing

/// `handoff steps today` through a real handoffd: a pedometer's counts replayed from a capture
/// around midnight in Auckland, with a short run in between.
@Suite("Steps outside runs through handoffd")
struct StepsTodayEndToEndTests {
    /// Four minutes of a hardware step counter going up by 2 a second, from 23:58 on 28 November in
    /// Auckland (10:58 UTC); a run from 60.5 s to 90.5 s.
    static func capture() -> String {
        let start = WallInstant(iso8601: "2026-11-28T10:58:00Z")!.nanosecondsSinceEpoch
        var lines = [
            #"{"handoff_capture":1,"created_by":"test","sensors":[{"id":"steps0","kind":"pedometer","name":"BMA400 step counter","address":"/sys/bus/iio/devices/iio:device0","transport":"iio-steps"}]}"#
        ]
        func at(_ seconds: Double) -> String {
            let offset = Int64(seconds * 1e9)
            return #""mono_ns":\#(1_000_000_000 + offset),"wall_ns":\#(start + offset)"#
        }
        for i in 0..<240 {
            if i == 61 { lines.append(#"{\#(at(60.5)),"kind":"command","command":"start"}"#) }
            if i == 91 { lines.append(#"{\#(at(90.5)),"kind":"command","command":"stop"}"#) }
            lines.append(#"{\#(at(Double(i))),"sensor":"steps0","kind":"steps","text":"\#(5_000 + 2 * i)"}"#)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test(
        "Steps outside runs are counted per day of the pack's time zone, the run's steps are the run's, and `handoff steps today` says them"
    )
    func stepsToday() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let capture = dir.file("steps.capture.jsonl").path
        try Self.capture().write(toFile: capture, atomically: true, encoding: .utf8)
        let daemon = try Daemon(
            in: dir, arguments: ["--replay", capture, "--speed", "max"], environment: ["TZ": "Pacific/Auckland"])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        _ = try await daemon.waitFor { $0.replay?.finished == true }
        let socket = ["--socket", daemon.socket]

        let json = try handoff(["steps", "today", "--json"] + socket)
        #expect(json.status == 0, "\(json.stderr)")
        let report = try JSONDecoder().decode(StepsReport.self, from: Data(json.stdout.utf8))
        // After the stop at 23:59:30.5: 29 counts before midnight (the 28th), 120 after it.
        #expect(report.day == "2026-11-29" && report.outsideRuns == 240 && report.inRuns == 0, "\(report)")
        #expect(report.counting && report.uploaded == 0)
        let text = try handoff(["steps", "today"] + socket)
        #expect(
            text.stdout.contains("Today (2026-11-29): 240 steps outside runs and 0 in runs, 240 in all.")
                && text.stdout.contains("They go to the store with the next sync."), "\(text.stdout)")

        let days = try await daemon.openDatabase().read { db in
            try Row.fetchAll(db, sql: "SELECT day, steps FROM step_day ORDER BY day").map {
                "\($0["day"] as String) \($0["steps"] as Int)"
            }
        }
        // 23:58 to the start: 60 counts of 2; the stop to midnight: 29 more.
        #expect(days == ["2026-11-28 178", "2026-11-29 240"])
        let shown = try handoff(["show", "last", "--json"] + socket)
        let run = try JSONDecoder().decode(RunReport.self, from: Data(shown.stdout.utf8))
        #expect(run.totals.steps == 60, "the 30 counts during the run are the run's")
    }
}
