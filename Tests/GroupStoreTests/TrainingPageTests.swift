import ActivityFormats
import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import TestSupport
import Testing

@testable import GroupStore

/// Issue 34's `/me/training` and `GET /v1/me/training`, and a swim entered by hand counted in
/// the weekly chart and the weekly goal's ring.
@Suite("The training picture")
struct TrainingPageTests {
    @Test(
        "weeks per sport, load by day, the page's charts and calendar; a swim by hand in the chart and the goal",
        arguments: Backend.available)
    func picture(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            // Wednesday noon, so that "this week" has two days before and after.
            let wednesday = WallInstant(iso8601: "2026-11-25T12:00:00Z")!
            harness.clock.freeze(at: wednesday)
            let ada = try await client.signUp("ada")
            let cookie = try await client.webSignIn("ada").cookie
            let monday = WallInstant(iso8601: "2026-11-23T07:00:00Z")!
            let day = 86_400 * nanosecondsPerSecond
            // This week: a 6 km run (heart rate 150) and a 1.5 km swim by hand; last week a ride.
            _ = try await client.upload(
                ada, uuid: UUID().uuidString.lowercased(), file: SportsTests.paced(start: monday, [(2_000, 3)]))
            let swim = try await client.call(
                .post, "/v1/runs", token: ada,
                send: ManualRun(sport: "swim", startedAt: "2026-11-24T18:00:00Z", elapsedS: 1_800, distanceM: 1_500))
            #expect(swim.status == .created)
            _ = try await client.upload(
                ada, uuid: UUID().uuidString.lowercased(),
                file: SportsTests.paced(start: monday.advanced(byNanoseconds: -3 * day), [(1_800, 8)], sport: .cycling))

            let reply = try await client.call(.get, "/v1/me/training", token: ada)
            #expect(reply.status == .ok, "\(reply.text)")
            let view = try reply.decode(TrainingView.self)
            #expect(view.weeks.count == 12 && view.days.count == 90)
            #expect(view.weeks.last?.weekStarting == "2026-11-23" && view.days.last?.date == "2026-11-25")
            #expect(view.weeks.last?.sports == ["run": 6_000, "swim": 1_500], "\(view.weeks.last!)")
            #expect(view.weeks[10].sports == ["bike": 14_400])
            #expect(view.weeks.dropLast(2).allSatisfy { $0.sports.isEmpty })
            // The run's hour-long effort at 150 bpm: TRIMP from an estimated maximum (150 / 0.9).
            #expect(view.heartRateSource == "estimated" && view.maximumHeartRate == 167 && view.restingHeartRate == 60)
            let runDay = try #require(view.days.first { $0.date == "2026-11-23" })
            let expected = 2_000.0 / 60 * ((150.0 - 60) / (167 - 60)) * 0.64 * exp(1.92 * (150.0 - 60) / (167 - 60))
            #expect(abs(runDay.load - expected) < 0.1, "\(runDay.load) vs \(expected)")
            #expect(view.days.filter { $0.load > 0 }.count == 3 && view.days.last!.fitness > 0)
            #expect(try await client.call(.get, "/v1/me/training?weeks=13", token: ada).status == .unprocessableContent)

            // The heart rates from /settings: TRIMP over 50 to 190 bpm; refusals say which and why.
            for (fields, words) in [
                (["maximum": "190", "resting": "29"], "resting heart rate is a whole number"),
                (["maximum": "130", "resting": "115"], "at least 20 beats below"),
            ] {
                let refused = try await AccountPageTests.post(client, "/settings/heart-rate", fields, cookie: cookie)
                #expect(refused.status == .unprocessableContent && refused.text.contains(words), "\(fields)")
            }
            let saved = try await AccountPageTests.post(
                client, "/settings/heart-rate", ["maximum": "190", "resting": "50"], cookie: cookie)
            #expect(saved.status == .seeOther)
            #expect(
                try await client.call(.get, "/settings", headers: [.cookie: cookie]).text.contains(
                    "name=\"resting\" type=\"number\" inputmode=\"numeric\" min=\"30\" max=\"120\" value=\"50\""))
            let set = try await client.call(.get, "/v1/me/training", token: ada).decode(TrainingView.self)
            #expect(set.restingHeartRate == 50 && set.maximumHeartRate == 190 && set.heartRateSource == "settings")
            let reserve = (150.0 - 50) / (190 - 50)
            let trimp = 2_000.0 / 60 * reserve * 0.64 * exp(1.92 * reserve)
            let setDay = try #require(set.days.first { $0.date == "2026-11-23" })
            #expect(abs(setDay.load - trimp) < 0.1, "\(setDay.load) vs \(trimp)")

            let page = try await client.call(.get, "/me/training?weeks=52&days=365", headers: [.cookie: cookie])
            #expect(page.status == .ok)
            #expect(page.text.contains("<rect class=\"s-swim\"") && page.text.contains("<rect class=\"s-bike\""))
            #expect(page.text.contains("<table class=\"calendar\" id=\"calendar\">") && page.text.contains("Nov 2026"))
            #expect(page.text.contains("class=\"today\"") || page.text.contains(" today\""))
            #expect(page.text.contains("<polyline class=\"fitness\""))

            // The weekly goal's ring on the home page counts the swim: 7.5 of 10 km.
            let goal = try await AccountPageTests.post(client, "/settings/week-goal", ["goal": "10"], cookie: cookie)
            #expect(goal.status == .seeOther)
            let home = try await client.call(.get, "/", headers: [.cookie: cookie])
            #expect(home.text.contains("7.5 km of your weekly distance goal of 10.0 km: 75 %"), "\(home.text)")
        }
    }
}
