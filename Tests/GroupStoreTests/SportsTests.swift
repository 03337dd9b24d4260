import ActivityFormats
import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import TestSupport
import Testing

@testable import GroupStore

/// Issue 34's sports in the store: every run has one of five sports; an activity entered by hand
/// (`POST /v1/runs`) is answered like an upload and counts like one; a group says which sports
/// count and by what factor, and a run's sport changed on its page counts again by the new one.
@Suite("Sports, entries by hand and each group's sports")
struct SportsTests {
    /// A run at 1 Hz whose speed changes by stretches: (seconds, metres a second) each.
    static func paced(start: WallInstant, _ stretches: [(Int, Double)], sport: Activity.Sport = .running) -> [UInt8] {
        let seconds = stretches.reduce(0) { $0 + $1.0 }
        var activity = RunFiles.activity(start: start, seconds: seconds, speed: 3)
        activity.sport = sport
        var distance = 0.0
        var t = 0
        for (length, speed) in stretches {
            for _ in 0..<length {
                t += 1
                distance += speed
                activity.points[t - 1].distanceMeters = distance
                activity.points[t - 1].speedMetersPerSecond = speed
                activity.points[t - 1].latitude = 48.2 + distance / 111_000
            }
        }
        activity.summary.statistics.distanceMeters = distance
        return ActivityFormat.fit.write(activity)
    }

    @Test(
        "a swim entered by hand: stored once per uuid, in the runs, the feed and the weeks; refused clearly when wrong",
        arguments: Backend.available)
    func manual(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let at = iso(harness.clock.now.advanced(byNanoseconds: -2 * 3_600 * nanosecondsPerSecond))
            let uuid = UUID().uuidString.lowercased()
            let swim = ManualRun(
                sport: "swim", startedAt: at, elapsedS: 1_800, distanceM: 1_500, notes: "Lane 3 <b>busy</b>",
                poolLengthM: 25, strokes: 1_200, uuid: uuid)
            let created = try await client.call(.post, "/v1/runs", token: ada, send: swim)
            #expect(created.status == .created, "\(created.text)")
            #expect(created.headers[.location] == "/v1/runs/\(uuid)")
            let view = try created.decode(RunView.self)
            #expect(view.uuid == uuid && view.measures.sport == "swim" && view.measures.distanceM == 1_500)
            #expect(view.measures.elapsedS == 1_800 && view.file.format == "manual" && view.file.size == 0)
            #expect(
                view.description == "Lane 3 <b>busy</b>" && view.title?.hasSuffix(" swim") == true, "\(created.text)")
            #expect(view.summary.objectValue?["entered_by_hand"]?.objectValue?["pool_length_m"]?.doubleValue == 25)
            // Sent again: the same entry, 200; the same uuid with other values: 409.
            let again = try await client.call(.post, "/v1/runs", token: ada, send: swim)
            #expect(try again.status == .ok && again.decode(RunView.self).uuid == uuid)
            var other = swim
            other.distanceM = 1_600
            #expect(try await client.call(.post, "/v1/runs", token: ada, send: other).status == .conflict)
            // Nothing to download; the run itself is there.
            let file = try await client.call(.get, "/v1/runs/\(uuid)/file", token: ada)
            #expect(file.status == .notFound && file.text.contains("entered by hand"), "\(file.text)")
            #expect(try await client.call(.get, "/v1/runs/\(uuid)", token: ada).status == .ok)
            let list = try await client.call(.get, "/v1/runs", token: ada).decode(RunList.self)
            #expect(list.runs.map(\.uuid) == [uuid])
            let feed = try await client.call(.get, "/v1/feed", token: ada)
            #expect(feed.status == .ok && feed.text.contains(uuid), "\(feed.text)")
            let weeks = try await client.call(.get, "/v1/me/weeks", token: ada).decode(Weeks.self)
            #expect(weeks.weeks.contains { $0.distanceM == 1_500 && $0.runs == 1 }, "\(weeks)")
            // The page shows it as a swim, with no file to draw and no downloads.
            let page = try await client.call(
                .get, "/runs/\(uuid)", headers: [.cookie: try await client.webSignIn("ada").cookie])
            #expect(
                page.status == .ok && page.text.contains(" swim</h1>") && page.text.contains(">25 m<")
                    && page.text.contains("Entered by hand"), "\(page.status) \(page.text)")
            #expect(!page.text.contains("cannot be drawn") && !page.text.contains("/file"), "\(page.text)")

            // Refusals, each saying what to send.
            for (bad, code) in [
                (ManualRun(sport: "rowing", startedAt: at, elapsedS: 60, distanceM: 100), "invalid_sport"),
                (ManualRun(sport: "run", startedAt: "yesterday", elapsedS: 60, distanceM: 100), "invalid_started_at"),
                (
                    ManualRun(sport: "run", startedAt: "2099-01-01T00:00:00Z", elapsedS: 60, distanceM: 100),
                    "implausible_run"
                ),
                (ManualRun(sport: "run", startedAt: at, elapsedS: 0, distanceM: 100), "implausible_run"),
                (ManualRun(sport: "run", startedAt: at, elapsedS: 60, distanceM: -1), "implausible_run"),
                (
                    ManualRun(sport: "run", startedAt: at, elapsedS: 60, distanceM: 100, poolLengthM: 25),
                    "invalid_entry"
                ),
                (
                    ManualRun(sport: "swim", startedAt: at, elapsedS: 60, distanceM: 100, poolLengthM: 3),
                    "invalid_pool_length"
                ),
                (ManualRun(sport: "run", startedAt: at, elapsedS: 60, distanceM: 100, uuid: "nope"), "invalid_uuid"),
            ] {
                let reply = try await client.call(.post, "/v1/runs", token: ada, send: bad)
                #expect(reply.status == .unprocessableContent && reply.text.contains(code), "\(bad): \(reply.text)")
            }
            #expect(try await client.call(.get, "/v1/runs", token: ada).decode(RunList.self).runs.count == 1)
        }
    }

    @Test(
        "a group counts run and walk unless its owner says otherwise; a factor scales; a changed sport counts again",
        arguments: Backend.available)
    func groupSports(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let group = try await client.createGroup(ada, goal: 500_000)
            let view = try await client.call(.get, "/v1/groups/\(group.id)", token: ada).decode(GroupView.self)
            #expect(view.sports == ["run": 1, "walk": 1])
            harness.clock.advance(seconds: 60)
            let start = harness.clock.now
            harness.clock.advance(seconds: 7_200)
            // A 10 km ride: not counted, and the reply says why.
            let ride = Self.paced(start: start, [(1_000, 10)], sport: .cycling)
            let rideID = UUID().uuidString.lowercased()
            let stored = try await client.upload(ada, uuid: rideID, file: ride)
            let reply = try stored.decode(RunView.self)
            #expect(reply.measures.sport == "bike" && (reply.countedIn ?? []).isEmpty)
            #expect(reply.notCounted?.map(\.reasonCode) == ["sport_not_counted"], "\(stored.text)")
            #expect(try await Self.total(client, ada, group.id) == 0)

            // Bikes ×0.25 from now on; bad rules are refused and change nothing.
            for bad: [String: Double] in [[:], ["bike": 0], ["bike": 11], ["rowing": 1], ["run": 1e9]] {
                let refused = try await client.call(
                    .patch, "/v1/groups/\(group.id)", token: ada, send: GroupChange(sports: bad))
                #expect(
                    refused.status == .unprocessableContent || refused.status == .badRequest, "\(bad): \(refused.text)")
            }
            let changed = try await client.call(
                .patch, "/v1/groups/\(group.id)", token: ada, send: GroupChange(sports: ["run": 1, "bike": 0.25]))
            #expect(try changed.decode(GroupView.self).sports == ["run": 1, "bike": 0.25], "\(changed.text)")
            let second = UUID().uuidString.lowercased()
            let counted = try await client.upload(
                ada, uuid: second,
                file: Self.paced(
                    start: start.advanced(byNanoseconds: 3_600 * nanosecondsPerSecond),
                    [(400, 10)], sport: .cycling)
            ).decode(RunView.self)
            #expect((counted.countedIn ?? []).map(\.distanceM) == [1_000], "4 km by bike count 1 km")
            #expect(try await Self.total(client, ada, group.id) == 1_000)

            // The first ride was a run after all: it counts in full; then a swim: out again.
            let asRun = try await client.call(.patch, "/v1/runs/\(rideID)", token: ada, json: ["sport": "run"])
            #expect((try asRun.decode(RunView.self).countedIn ?? []).map(\.distanceM) == [10_000], "\(asRun.text)")
            #expect(try await Self.total(client, ada, group.id) == 11_000)
            let asSwim = try await client.call(.patch, "/v1/runs/\(rideID)", token: ada, json: ["sport": "swim"])
            #expect(try asSwim.decode(RunView.self).notCounted?.map(\.reasonCode) == ["sport_not_counted"])
            #expect(try await Self.total(client, ada, group.id) == 1_000)
            let wrong = try await client.call(.patch, "/v1/runs/\(rideID)", token: ada, json: ["sport": "kayak"])
            #expect(wrong.status == .unprocessableContent && wrong.text.contains("invalid_sport"))
            // Another's run cannot be changed.
            let bob = try await client.signUp("bob")
            #expect(
                try await client.call(.patch, "/v1/runs/\(rideID)", token: bob, json: ["sport": "run"]).status
                    == .notFound)
            // The group's page says which sports count.
            let page = try await client.call(
                .get, "/groups/\(group.id)", headers: [.cookie: try await client.webSignIn("ada").cookie])
            #expect(page.text.contains("Runs count; rides count ×0.25."), "\(page.text)")
        }
    }

    @Test(
        "from the web: an activity entered on the upload page, its sport changed on its page, records on the profile",
        arguments: Backend.available)
    func web(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            _ = try await client.signUp("ada")
            let cookie = try await client.webSignIn("ada").cookie
            let upload = try await client.call(.get, "/runs/upload", headers: [.cookie: cookie])
            #expect(upload.status == .ok && upload.text.contains("Enter an activity by hand"))
            let day = String(iso(harness.clock.now.advanced(byNanoseconds: -86_400 * nanosecondsPerSecond)).prefix(10))
            let refused = try await AccountPageTests.post(
                client, "/runs/enter",
                ["sport": "swim", "date": day, "time": "07:30", "duration": "half an hour", "distance": "1.5"],
                cookie: cookie)
            #expect(refused.status == .unprocessableContent && refused.text.contains("Give the duration"))
            let made = try await AccountPageTests.post(
                client, "/runs/enter",
                [
                    "sport": "swim", "date": day, "time": "07:30", "duration": "32:10", "distance": "1,5",
                    "pool": "50", "strokes": "", "notes": "Cold <water>",
                ], cookie: cookie)
            #expect(made.status == .seeOther, "\(made.text)")
            let location = try #require(made.headers[.location])
            let page = try await client.call(.get, location, headers: [.cookie: cookie])
            #expect(page.text.contains(">50 m<") && page.text.contains("Cold &lt;water&gt;"), "\(page.text)")
            let uuid = String(location.dropFirst("/runs/".count))
            let token = try await client.call(
                .post, "/v1/sessions", send: SignIn(login: "ada", password: "correct horse battery")
            ).decode(SignedIn.self).token
            let run = try await client.call(.get, "/v1/runs/\(uuid)", token: token).decode(RunView.self)
            #expect(run.measures.distanceM == 1_500 && run.measures.elapsedS == 1_930 && run.measures.sport == "swim")
            #expect(run.measures.startedAt == "\(day)T07:30:00Z", "the person's zone is UTC")

            // A ride uploaded as such, changed to a run from its page.
            let start = harness.clock.now.advanced(byNanoseconds: -5 * 3_600 * nanosecondsPerSecond)
            let ride = UUID().uuidString.lowercased()
            _ = try await client.upload(token, uuid: ride, file: Self.paced(start: start, [(400, 5)], sport: .cycling))
            let changed = try await AccountPageTests.post(
                client, "/runs/\(ride)/sport", ["sport": "run"], cookie: cookie)
            #expect(changed.status == .seeOther && changed.headers[.location] == "/runs/\(ride)")
            let bad = try await AccountPageTests.post(client, "/runs/\(ride)/sport", ["sport": "kayak"], cookie: cookie)
            #expect(bad.status == .unprocessableContent && bad.text.contains("run, bike, walk, swim or other"))
            let shown = try await client.call(.get, "/runs/\(ride)", headers: [.cookie: cookie])
            #expect(shown.text.contains("<option value=\"run\" selected>") && shown.text.contains("Personal best"))
            // The profile lists the records: the run's 1 km (200 s), the swim's longest.
            let profile = try await client.call(.get, "/people/ada", headers: [.cookie: cookie])
            #expect(profile.text.contains("<table id=\"records\">") && profile.text.contains("3:20"), "\(profile.text)")
            #expect(profile.text.contains("Swim") && profile.text.contains("Biggest week"))
        }
    }

    static func total(_ client: any TestClientProtocol, _ token: String, _ group: Int) async throws -> Double {
        try await client.call(.get, "/v1/groups/\(group)", token: token).decode(GroupView.self).totalM
    }
}
