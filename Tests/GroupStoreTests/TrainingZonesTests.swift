import ActivityFormats
import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import TestSupport
import Testing

@testable import GroupStore

/// Issue 34: time in heart-rate zones per week on `/me/training` and in `GET /v1/me/training`.
@Suite("Time in heart-rate zones per week")
struct TrainingZonesTests {
    /// A 30-minute run whose heart rate climbs from 100 to 189 bpm, with a 40-second gap (a strap's
    /// dropout) in the middle.
    static func climbing(start: WallInstant) -> Activity {
        var activity = RunFiles.activity(start: start, seconds: 1_800, speed: 3)
        for i in activity.points.indices {
            activity.points[i].heartRateBPM = 100 + i * 90 / 1_800
        }
        activity.points.removeSubrange(900..<940)
        return activity
    }

    /// The seconds in each zone, counted the plain way, in whole numbers: zone k holds the beats
    /// with 10·bpm ≥ (4 + k)·maximum and, below zone 5, 10·bpm < (5 + k)·maximum.
    static func expected(_ activity: Activity, maximum: Int) -> [Double] {
        let points = activity.points
        return (1...5).map { zone in
            var seconds = 0.0
            for (i, p) in points.enumerated() {
                guard let bpm = p.heartRateBPM, 10 * bpm >= (4 + zone) * maximum,
                    zone == 5 || 10 * bpm < (5 + zone) * maximum
                else { continue }
                let next = i + 1 < points.count ? points[i + 1].elapsedSeconds : p.elapsedSeconds + 1
                seconds += Double(min(5, next - p.elapsedSeconds))
            }
            return seconds
        }
    }

    @Test(
        "a run's seconds per zone, moved by the maximum in /settings; found again for a run stored before; drawn on the page",
        arguments: Backend.available)
    func zones(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let wednesday = WallInstant(iso8601: "2026-11-25T12:00:00Z")!
            harness.clock.freeze(at: wednesday)
            let ada = try await client.signUp("ada")
            let cookie = try await client.webSignIn("ada").cookie
            let run = Self.climbing(start: WallInstant(iso8601: "2026-11-23T07:00:00Z")!)
            _ = try await client.upload(ada, uuid: UUID().uuidString.lowercased(), file: ActivityFormat.fit.write(run))
            let saved = try await AccountPageTests.post(
                client, "/settings/heart-rate", ["maximum": "190", "resting": "50"], cookie: cookie)
            #expect(saved.status == .seeOther)

            func thisWeek() async throws -> [Double] {
                let view = try await client.call(.get, "/v1/me/training", token: ada).decode(TrainingView.self)
                #expect(view.zoneWeeks.count == view.weeks.count)
                #expect(view.zoneWeeks.dropLast().allSatisfy { $0.seconds == [0, 0, 0, 0, 0] })
                let last = try #require(view.zoneWeeks.last)
                #expect(last.weekStarting == "2026-11-23")
                return last.seconds
            }
            let by190 = try await thisWeek()
            #expect(by190 == Self.expected(run, maximum: 190), "\(by190) vs \(Self.expected(run, maximum: 190))")
            #expect(by190.reduce(0, +) < 1_800 - 30, "the dropout counts 5 s, not 41")

            // A lower maximum moves the same seconds up the zones.
            _ = try await AccountPageTests.post(
                client, "/settings/heart-rate", ["maximum": "170", "resting": "50"], cookie: cookie)
            let by170 = try await thisWeek()
            #expect(by170 == Self.expected(run, maximum: 170))
            #expect(by170[4] > by190[4])

            // A store upgraded from before schema 24: the seconds are found again from the file.
            try await repository.write { db in
                try await db.query("UPDATE run SET heart_seconds = NULL, efforts = NULL")
            }
            #expect(try await thisWeek() == by170)

            let page = try await client.call(.get, "/me/training", headers: [.cookie: cookie])
            #expect(page.status == .ok)
            #expect(page.text.contains("<h2>Time in heart-rate zones</h2>"))
            #expect(page.text.contains("<rect class=\"z5\"") && page.text.contains("id=\"zone-weeks\""))
            #expect(page.text.contains("Zone 5 (153+ bpm)"), "90 % of 170")
        }
    }
}
