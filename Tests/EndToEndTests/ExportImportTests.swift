import Foundation
import GRDB
import PackControl
import TestSupport
import Testing

/// `handoff export` and `handoff import` against a real handoffd: the files pass to the daemon
/// as descriptors, runs come back out as files and go in from other devices' files.
@Suite("Export and import through handoffd")
struct ExportImportTests {
    @Test(
        "The demo run exports in four formats; real devices' files import with their totals; bad files are refused",
        .enabled(if: Fixtures.available, "needs ../shared/fixtures"))
    func exportAndImport() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let daemon = try Daemon(in: dir, arguments: ["--replay", demoCapturePath, "--speed", "max"])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        _ = try await daemon.waitFor { $0.replay?.finished == true && $0.state == .finished }
        let socket = ["--socket", daemon.socket]

        let shown = try handoff(["show", "last", "--json"] + socket)
        let run = try JSONDecoder().decode(RunReport.self, from: Data(shown.stdout.utf8))
        for format in ["fit", "gpx", "tcx", "csv"] {
            let path = dir.file("run.\(format)").path
            let result = try handoff(["export", "last", "--format", format, "-o", path, "--json"] + socket)
            #expect(result.status == 0, "\(result.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            #expect(report?["bytes"] as? Int == size && (size ?? 0) > 10_000)
            #expect(report?["points"] as? Int == run.totals.points)
        }
        // Nothing half-written is left beside the files.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.hasSuffix(".partial") })
        let csv = try String(contentsOfFile: dir.file("run.csv").path, encoding: .utf8)
        #expect(csv.split(separator: "\n").count == (run.totals.points ?? 0) + 1)
        // Standard output, for pipes.
        let piped = try handoff(["export", "1", "--format", "gpx", "-o", "-"] + socket)
        #expect(piped.status == 0 && piped.stdout.hasPrefix("<?xml") && piped.stdout.contains("</gpx>"))

        // Our own file back: the same run, so it is refused as a duplicate.
        let again = try handoff(["import", dir.file("run.fit").path] + socket)
        #expect(again.status == 1)
        #expect(again.stderr.contains("already in the history as run 1"), "\(again.stderr)")

        // Real devices' files, and bad ones among them: the good ones still go in.
        let fenix = try Fixtures.url("files/fit/activity-small-fenix2-run.fit").path
        let tcx = try Fixtures.url("files/tcx/tcxreader-vivoactiveHR-sup_activity_1.tcx").path
        let crc = try Fixtures.url("files/fit/invalid/activity-filecrc.fit").path
        let latitude = try Fixtures.url("files/gpx/opentracks-legacy_gpx_pause_resume.gpx").path
        let imported = try handoff(
            ["import", "--json", fenix, crc, tcx, latitude, dir.file("missing.gpx").path] + socket)
        #expect(imported.status == 1)
        // One JSON object per file, in order: a run, or the file's error.
        let objects = imported.stdout.split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) ?? [:]
        }
        #expect(objects.count == 5, "\(imported.stdout)")
        let lines = objects.filter { $0["id"] != nil }.map { Optional($0) }
        #expect(lines.count == 2)
        let fenixRun = try #require(lines.first??.filter { $0.key != "file" })
        #expect(abs((fenixRun["distance_m"] as? Double ?? 0) - 9008.2) < 0.1)
        #expect(abs((fenixRun["timer_s"] as? Double ?? 0) - 2832.0) < 1)
        #expect(fenixRun["source"] as? String == "import:fit")
        #expect((fenixRun["laps"] as? [Any])?.count == 4)
        // The same keys as `handoff show --json`.
        let showFenix = try handoff(["show", String(fenixRun["id"] as? Int ?? 0), "--json"] + socket)
        let showKeys = Set(
            ((try JSONSerialization.jsonObject(with: Data(showFenix.stdout.utf8))) as? [String: Any] ?? [:]).keys)
        #expect(Set(fenixRun.keys) == showKeys)
        #expect(abs((lines.last??["distance_m"] as? Double ?? 0) - 1157.5) < 0.1)
        let errors = objects.compactMap { object -> String? in
            guard let error = object["error"] as? [String: Any] else { return nil }
            return "\(object["file"] ?? "") \(error["code"] ?? "") \(error["message"] ?? "")"
        }
        #expect(errors.count == 3, "\(imported.stdout)")
        #expect(errors.filter { $0.contains("invalid_file") }.count == 2)
        #expect(errors.contains { $0.contains("activity-filecrc.fit") && $0.contains("CRC") })
        #expect(errors.contains { $0.contains("latitude 100") && $0.contains("line 42") })
        #expect(errors.contains { $0.contains("missing.gpx") && $0.contains("No such file") })

        // Imported runs are in the history and the outbox like recorded ones.
        let (sessions, outbox, integrity) = try await daemon.openDatabase().read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM session WHERE state = 'finished'"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox"),
                try String.fetchOne(db, sql: "PRAGMA integrity_check")
            )
        }
        #expect(sessions == 3 && outbox == 3 && integrity == "ok")
        let missingRun = try handoff(["export", "99"] + socket)
        #expect(missingRun.status == 1 && missingRun.stderr.contains("no run matches"))
    }
}
