import ActivityFormats
import Foundation
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import TestSupport
import Testing

@testable import GroupStore

/// `PUT /v1/me/steps` (issue 34): the steps a pack counted outside runs, per day of its calendar,
/// added to the day's runs on `/v1/me/steps` and `/me/steps` and to a daily steps goal of all
/// sports; one count per pack and day, each upload replacing the last.
@Suite("Steps outside runs, from the pack")
struct StepsOutsideRunsTests {
    static func put(
        _ client: any TestClientProtocol, _ token: String, _ days: [(String, Int)], pack: String? = nil
    ) async throws -> Reply {
        try await client.call(
            .put, "/v1/me/steps", token: token,
            send: StepsOutsideRuns(days: days.map { .init(date: $0.0, steps: $0.1) }, pack: pack))
    }

    @Test(
        "A pack's days add to the day's runs; a resend replaces, two packs add up; the daily goal and the page count them",
        arguments: Backend.available)
    func counted(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let noon = WallInstant(iso8601: "2026-11-25T12:00:00Z")!
            harness.clock.freeze(at: noon)
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let pack = try await DeviceTests.link(client, ada)
            let watch = try await DeviceTests.link(client, ada)

            // A walk with 2,402 steps today, from a file.
            var walk = RunFiles.activity(
                start: noon.advanced(byNanoseconds: -3 * 3_600 * nanosecondsPerSecond), seconds: 1_200, speed: 1.4)
            walk.sport = .walking
            walk.summary.steps = 2_401
            let file = ActivityFormat.fit.write(walk)
            #expect(try await client.upload(ada, uuid: UUID().uuidString.lowercased(), file: file).status == .created)

            let first = try await Self.put(client, pack, [("2026-11-24", 8_000), ("2026-11-25", 4_210)])
            #expect(first.status == .ok, "\(first.text)")
            var days = try first.decode(StepsView.self).days
            #expect(days.count == 30 && days.last?.date == "2026-11-25")
            #expect(days.last?.steps == 4_210 + 2_402 && days.last?.outsideRuns == 4_210)
            #expect(days[28].date == "2026-11-24" && days[28].steps == 8_000 && days[28].outsideRuns == 8_000)

            // The pack's count for today grew: it replaces, it does not add.
            _ = try await Self.put(client, pack, [("2026-11-25", 4_310)])
            // Another pack of ada's counts its own steps: the two add up.
            _ = try await Self.put(client, watch, [("2026-11-25", 500)])
            days = try await client.call(.get, "/v1/me/steps", token: ada).decode(StepsView.self).days
            #expect(days.last?.outsideRuns == 4_810 && days.last?.steps == 4_810 + 2_402)
            #expect(days[28].steps == 8_000, "yesterday's count stays as it was")

            // A pack that names itself keeps its count through a new link (a new device token).
            _ = try await Self.put(client, pack, [("2026-11-23", 3_000)], pack: "0a1b2c3d")
            let relinked = try await DeviceTests.link(client, ada)
            _ = try await Self.put(client, relinked, [("2026-11-23", 3_500)], pack: "0A1B2C3D")
            days = try await client.call(.get, "/v1/me/steps", token: ada).decode(StepsView.self).days
            #expect(days[27].date == "2026-11-23" && days[27].outsideRuns == 3_500, "replaced, not 6,500")

            // A daily goal of steps in all sports counts them; one for walks only does not.
            _ = try await client.call(
                .post, "/v1/me/goals", token: ada, send: GoalSet(period: "day", measure: "steps", target: 10_000))
            _ = try await client.call(
                .post, "/v1/me/goals", token: ada,
                send: GoalSet(period: "day", measure: "steps", sport: "walk", target: 10_000))
            let goals = try await GoalsTests.goals(client, ada)
            #expect(goals.first { $0.sport == nil }?.done == 7_212, "\(goals)")
            #expect(goals.first { $0.sport == "walk" }?.done == 2_402)
            #expect(goals.first { $0.sport == nil }?.history.first?.done == 8_000, "yesterday, from the pack alone")

            // bob sees none of it; the page shows the column.
            #expect(
                try await client.call(.get, "/v1/me/steps", token: bob).decode(StepsView.self).days.last?.steps == 0)
            let (_, cookie) = try await client.webSignIn("ada")
            let page = try await client.call(.get, "/me/steps", headers: [.cookie: cookie]).text
            #expect(page.contains("Outside runs") && page.contains("4,810") && page.contains("7,212"))
        }
    }

    @Test(
        "Bad days are refused in words and nothing of the request is kept; no token, no steps",
        arguments: Backend.available)
    func refused(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let noon = WallInstant(iso8601: "2026-11-25T12:00:00Z")!
            harness.clock.freeze(at: noon)
            let ada = try await client.signUp("ada")
            let cases: [([(String, Int)], String)] = [
                ([("2026-11-25", 10), ("2026-02-30", 10)], "invalid_date"),
                ([("25/11/2026", 10)], "invalid_date"),
                ([("2026-11-25T00", 10)], "invalid_date"),
                ([("２０２６-11-25", 10)], "invalid_date"),
                ([("2026-11-27", 10)], "invalid_date"),
                ([("1999-12-31", 10)], "invalid_date"),
                ([("2026-11-25", -1)], "invalid_steps"),
                ([("2026-11-25", 200_001)], "invalid_steps"),
                ([("2026-11-24", 1), ("2026-11-24", 2)], "invalid_days"),
                ([], "invalid_days"),
                ((0..<63).map { (TrainingPicture.date(20_000 + Int64($0)), 1) }, "invalid_days"),
            ]
            for (days, code) in cases {
                let reply = try await Self.put(client, ada, days)
                #expect(reply.status == .unprocessableContent && reply.errorCode == code, "\(days): \(reply.text)")
            }
            for pack in ["", String(repeating: "a", count: 65), "a b", "pack/1", "ünï"] {
                let reply = try await Self.put(client, ada, [("2026-11-25", 10)], pack: pack)
                #expect(reply.status == .unprocessableContent && reply.errorCode == "invalid_pack", "\(pack)")
            }
            // Tomorrow is allowed (a pack east of UTC is a day ahead), and 2024-02-29 is a date.
            #expect(try await Self.put(client, ada, [("2026-11-26", 10), ("2024-02-29", 10)]).status == .ok)
            let days = try await client.call(.get, "/v1/me/steps", token: ada).decode(StepsView.self).days
            #expect(days.map(\.outsideRuns).reduce(0, +) == 0, "nothing refused was kept, tomorrow is not shown yet")
            #expect(try await Self.put(client, "", [("2026-11-25", 10)]).status == .unauthorized)
            #expect(StepsOutsideRunsUpload.dayNumber("1970-01-01") == 0)
            #expect(
                StepsOutsideRunsUpload.dayNumber("2026-11-28")
                    == TrainingPicture.localDay(
                        WallInstant(iso8601: "2026-11-28T10:00:00Z")!, zone: "UTC"))
        }
    }
}
