import ActivityFormats
import Foundation
import HandoffAPI
import HandoffModel
import TestSupport
import Testing

@testable import GroupStore

/// A run's page facts (`RunFacts`): computed once at upload, kept in `run_facts`, read back
/// exactly, and computed again from the file only when none of this version are kept.
@Suite("Run facts: kept at upload, read back exactly, the file never read to show a run")
struct RunFactsTests {
    static let files = [
        "fit/activity-small-fenix2-run.fit", "fit/Activity.fit", "tcx/tcxreader-vivoactiveHR-sup_activity_1.tcx",
        "gpx/opentracks-gpx_timezone.gpx", "gpx/gpxpy-gpx1.1_with_all_fields.gpx",
    ]

    @Test(
        "Facts from real files come back from their stored bytes equal, and draw the same page",
        .enabled(if: Fixtures.available, "needs ../shared/fixtures"), arguments: files)
    func roundTrip(_ name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: try Fixtures.url("files/" + name)))
        let format = try #require(ActivityFormat.sniff(bytes))
        let facts = RunFacts(try format.read(bytes))
        let back = try #require(RunFacts.decoded(facts.encoded()))
        #expect(back == facts)
        #expect(back.version == RunFacts.currentVersion)
        let run = try PageMakers.storedRun
        for units in Units.allCases {
            let reader = Reader(units: units, zone: "Europe/Vienna")
            let page = { (facts: RunFacts) in
                PageTemplates.shared.render(
                    RunPage(run: run, counts: [], notCounted: [], facts: facts, reader: reader, viewer: "ada"))
            }
            #expect(page(back) == page(facts), "\(units)")
        }
    }

    @Test(
        "Another person's view of a real route lacks exactly its first and last 200 m; a route under 400 m shows none",
        .enabled(if: Fixtures.available, "needs ../shared/fixtures"), arguments: files)
    func withoutEnds(_ name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: try Fixtures.url("files/" + name)))
        let facts = RunFacts(try #require(ActivityFormat.sniff(bytes)).read(bytes))
        guard let track = facts.track else { return }
        func length(_ segments: [[[Double]]]) -> Double {
            let points = segments.joined().map { Position(latitude: $0[0], longitude: $0[1]) }
            return zip(points, points.dropFirst()).reduce(0) { $0 + $1.0.meters(to: $1.1) }
        }
        // Whatever lies in the gaps between segments counts as travelled, as in `withoutEnds`.
        let total = length(track.segments)
        let shown = facts.withoutEnds()
        guard total > 400 else {
            #expect(shown.track == nil && shown.km.marks.isEmpty, "\(name): \(total) m")
            return
        }
        let kept = try #require(shown.track, "\(name)")
        let first = try #require(kept.segments.first?.first), last = try #require(kept.segments.last?.last)
        // The kept line starts and ends on the route, 200 m along from each end.
        func along(_ point: [Double]) -> Double {
            var best = (distance: Double.infinity, along: 0.0)
            var walked = 0.0
            let points = track.segments.joined().map { Position(latitude: $0[0], longitude: $0[1]) }
            let target = Position(latitude: point[0], longitude: point[1])
            for (a, b) in zip(points, points.dropFirst()) {
                let step = a.meters(to: b)
                let off = a.meters(to: target) + target.meters(to: b) - step
                if off < best.distance { best = (off, walked + a.meters(to: target)) }
                walked += step
            }
            return best.along
        }
        #expect(abs(along(first) - 200) < 0.5, "\(name)")
        #expect(abs(along(last) - (total - 200)) < 0.5, "\(name)")
        #expect(abs(length(kept.segments) - (total - 400)) < max(1, total * 0.002), "\(name)")
        #expect(shown.km.marks.allSatisfy { $0.distance > 200 && $0.distance < facts.summary.distance - 200 })
        // Nothing else changes.
        var same = shown
        (same.track, same.km.marks, same.mi.marks) = (facts.track, facts.km.marks, facts.mi.marks)
        #expect(same == facts)
    }

    @Test("A file's infinite and NaN lap totals are kept as they were, not lost or refused")
    func nonFinite() throws {
        var activity = PageMakers.activity
        var lap = Lap(
            index: 0, trigger: .manual, startElapsedSeconds: 0, endElapsedSeconds: 600,
            statistics: activity.summary.statistics)
        lap.statistics.distanceMeters = .infinity
        lap.statistics.timerSeconds = -.infinity
        lap.statistics.averageHeartRate = .nan
        activity.laps = [lap]
        let encoded = RunFacts(activity).encoded()
        #expect(!encoded.isEmpty)
        let back = try #require(RunFacts.decoded(encoded))
        #expect(back.laps[0].distance == .infinity && back.laps[0].timer == -.infinity)
        #expect(back.laps[0].heartRate?.isNaN == true)
        let again = back.encoded()
        #expect(again == encoded, "the same bytes again")
        // The API's JSON has no infinity: the same lap goes as 0 and null.
        let details = back.details(uuid: "u")
        #expect(details.laps[0].distanceM == 0 && details.laps[0].timerS == 0 && details.laps[0].heartRateBpm == nil)
        #expect(RunFacts.decoded(Array("{\"version\": 1}".utf8)) == nil)
        #expect(RunFacts.decoded([0xFF, 0x00]) == nil)
        // A damaged row whose route point lacks its longitude is not facts: computed again, no trap.
        var damaged = RunFacts(PageMakers.activity)
        damaged.track?.segments[0][0] = [48.2]
        #expect(RunFacts.decoded(damaged.encoded()) == nil)
    }

    @Test(
        "An upload keeps its facts: the page and details draw with the file's bytes spoilt; facts missing or old are computed again and kept",
        arguments: Backend.available)
    func keptAtUpload(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let uuid = UUID().uuidString.lowercased()
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            let file = RunFiles.fit(start: start)
            #expect(try await client.upload(ada, uuid: uuid, file: file).status == .created)
            let cookie = try await client.webSignIn("ada").cookie
            let account = try #require(
                try await repository.readOne("SELECT id FROM account WHERE username_key = ?", "ada")?.int("id"))
            let kept = try #require(try await repository.runFacts(uuid: uuid, account: account))
            #expect(kept.version == RunFacts.currentVersion)
            let expected = RunFacts(try ActivityFormat.fit.read(file))
            #expect(RunFacts.decoded(kept.bytes) == expected)

            func setFile(_ bytes: [UInt8]) async throws {
                _ = try await repository.write { db in
                    try await db.query(
                        "UPDATE run_file SET file = ? WHERE run_id = (SELECT id FROM run WHERE uuid = ?)", bytes, uuid)
                }
            }
            func page() async throws -> String {
                let reply = try await client.call(.get, "/runs/\(uuid)", headers: [.cookie: cookie])
                #expect(reply.status == .ok)
                return reply.text
            }
            // The file spoilt: the page and the details are drawn from the kept facts alone.
            try await setFile(Array("not a run".utf8))
            #expect(try await page().contains("<svg class=\"map\""))
            let details = try await client.call(.get, "/v1/runs/\(uuid)/details", token: ada)
            #expect(details.status == .ok)
            #expect(try details.decode(RunDetails.self) == expected.details(uuid: uuid))

            // No facts kept and a spoilt file: the page says it cannot draw the run, and keeps nothing.
            _ = try await repository.write { db in try await db.query("DELETE FROM run_facts") }
            #expect(try await page().contains("cannot be drawn"))
            #expect(try await repository.runFacts(uuid: uuid, account: account) == nil)
            #expect(
                try await client.call(.get, "/v1/runs/\(uuid)/details", token: ada).errorCode == "unreadable_file")

            // The file back: computed on the first showing, and kept.
            try await setFile(file)
            #expect(try await page().contains("<svg class=\"map\""))
            let again = try #require(try await repository.runFacts(uuid: uuid, account: account))
            #expect(again.version == RunFacts.currentVersion && RunFacts.decoded(again.bytes) == expected)

            // Facts of another version are computed again and replaced, and so are unreadable ones.
            var older = expected
            older.version = 0
            older.summary.distance = 123_456
            for (version, bytes) in [(0, older.encoded()), (RunFacts.currentVersion, Array("old".utf8))] {
                _ = try await repository.write { db in
                    try await db.query("UPDATE run_facts SET version = ?, facts = ?", version, bytes)
                }
                #expect(try await page().contains("<svg class=\"map\""))
                let replaced = try #require(try await repository.runFacts(uuid: uuid, account: account))
                #expect(replaced.version == RunFacts.currentVersion, "\(version)")
                #expect(RunFacts.decoded(replaced.bytes) == expected, "\(version)")
            }

            // Deleting the run takes its facts along.
            #expect(
                try await client.call(.post, "/runs/\(uuid)/delete", headers: [.cookie: cookie]).status == .seeOther)
            let left = try await repository.read { db in try await db.one("SELECT count(*) AS n FROM run_facts") }
            #expect(try left?.int("n") == 0)
        }
    }
}
