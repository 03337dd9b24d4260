import ActivityFormats
import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import TestSupport
import Testing

@testable import GroupStore

/// Issue 34's personal goals (`/v1/me/goals`, `/me/goals`) and steps (`/v1/me/steps`,
/// `/me/steps`): set, replaced and removed; progress on the person's own calendar; rings on the
/// home page and, for the person and their friends only, on the profile; steps from a file's
/// session carried into the daily step goal.
@Suite("Personal goals and steps")
struct GoalsTests {
    static func goals(_ client: any TestClientProtocol, _ token: String) async throws -> [GoalView] {
        try await client.call(.get, "/v1/me/goals", token: token).decode(GoalList.self).goals
    }

    @Test("set, replaced, refused, removed; nobody else's goal can be touched", arguments: Backend.available)
    func api(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let weekly = try await client.call(
                .post, "/v1/me/goals", token: ada, send: GoalSet(period: "week", measure: "distance", target: 20_000))
            #expect(weekly.status == .created, "\(weekly.text)")
            let first = try weekly.decode(GoalView.self)
            #expect(first.target == 20_000 && first.done == 0 && first.percent == 0 && first.sport == nil)
            #expect(first.history.count == 12 && first.streak == 0)
            // The same kind again replaces it: 200, the same id.
            let again = try await client.call(
                .post, "/v1/me/goals", token: ada, send: GoalSet(period: "week", measure: "distance", target: 30_000))
            let replaced = try again.decode(GoalView.self)
            #expect(again.status == .ok && replaced.id == first.id)
            let daily = try await client.call(
                .post, "/v1/me/goals", token: ada,
                send: GoalSet(period: "day", measure: "time", sport: "walk", target: 1_800))
            #expect(daily.status == .created)
            let listed = try await Self.goals(client, ada)
            #expect(listed.map(\.period) == ["day", "week"] && listed[1].target == 30_000)

            for (body, code) in [
                (GoalSet(period: "month", measure: "distance", target: 1), "invalid_period"),
                (GoalSet(period: "week", measure: "kcal", target: 1), "invalid_measure"),
                (GoalSet(period: "week", measure: "runs", sport: "ski", target: 1), "invalid_sport"),
                (GoalSet(period: "week", measure: "runs", target: 0), "invalid_target"),
                (GoalSet(period: "day", measure: "steps", target: 200_001), "invalid_target"),
                (GoalSet(period: "week", measure: "distance", target: 0.0001), "invalid_target"),
            ] {
                let refused = try await client.call(.post, "/v1/me/goals", token: ada, send: body)
                #expect(refused.status == .unprocessableContent && refused.text.contains(code), "\(refused.text)")
            }
            #expect(try await Self.goals(client, ada).count == 2, "nothing refused was kept")

            // bob can neither see nor remove ada's goals.
            #expect(try await Self.goals(client, bob).isEmpty)
            let theirs = try await client.call(.delete, "/v1/me/goals/\(first.id)", token: bob)
            #expect(theirs.status == .notFound && theirs.text.contains("GET /v1/me/goals"))
            #expect(try await client.call(.get, "/v1/me/goals").status == .unauthorized)
            #expect(try await client.call(.delete, "/v1/me/goals/\(first.id)", token: ada).status == .noContent)
            #expect(try await client.call(.delete, "/v1/me/goals/\(first.id)", token: ada).status == .notFound)
            #expect(try await Self.goals(client, ada).map(\.measure) == ["time"])
        }
    }

    @Test(
        "progress on the person's calendar: a run late on Sunday in UTC is Monday in Auckland; deletes and sport changes count",
        arguments: Backend.available)
    func progress(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let wednesday = WallInstant(iso8601: "2026-11-25T12:00:00Z")!
            harness.clock.freeze(at: wednesday)
            let ada = try await client.signUp("ada")
            let cookie = try await client.webSignIn("ada").cookie
            for goal in [
                GoalSet(period: "week", measure: "distance", target: 10_000),
                GoalSet(period: "week", measure: "runs", sport: "swim", target: 1),
                GoalSet(period: "week", measure: "time", target: 3_600),
            ] {
                #expect(try await client.call(.post, "/v1/me/goals", token: ada, send: goal).status == .created)
            }
            func enter(_ sport: String, _ at: String, _ meters: Double) async throws -> String {
                let reply = try await client.call(
                    .post, "/v1/runs", token: ada,
                    send: ManualRun(sport: sport, startedAt: at, elapsedS: 1_800, distanceM: meters))
                #expect(reply.status == .created, "\(reply.text)")
                return try reply.decode(RunView.self).uuid
            }
            // Sunday 22 Nov 12:00 UTC is Monday 23 Nov 01:00 in Auckland (UTC+13).
            let sunday = try await enter("run", "2026-11-22T12:00:00Z", 4_000)
            let swim = try await enter("swim", "2026-11-24T07:00:00Z", 1_500)
            // Two weeks back, a 12 km run: that week was met.
            _ = try await enter("run", "2026-11-10T07:00:00Z", 12_000)

            // In the API's order: distance, time, activities.
            var goals = try await Self.goals(client, ada)
            #expect(goals.map(\.measure) == ["distance", "time", "runs"])
            #expect(goals[0].done == 1_500 && goals[0].percent == 15, "UTC: Sunday is last week")
            #expect(goals[0].history[0].start == "2026-11-16" && goals[0].history[0].done == 4_000)
            #expect(goals[0].history[1].met && !goals[0].history[0].met && goals[0].streak == 0)
            #expect(goals[2].done == 1 && goals[2].percent == 100 && goals[2].sport == "swim")
            #expect(goals[1].done == 1_800 && goals[1].percent == 50)

            let zone = try await AccountPageTests.post(
                client, "/settings/preferences", ["units": "km", "zone": "Pacific/Auckland", "next": "/settings"],
                cookie: cookie)
            #expect(zone.status == .seeOther)
            goals = try await Self.goals(client, ada)
            #expect(goals[0].done == 5_500 && goals[0].percent == 55, "Auckland: Sunday's run is Monday's")
            #expect(goals[0].history[0].done == 0 && goals[1].done == 3_600 && goals[1].percent == 100)
            // The home page's week and `/v1/me/weeks` are on the same calendar as the goals.
            let weeks = try await client.call(.get, "/v1/me/weeks?count=3", token: ada).decode(Weeks.self).weeks
            #expect(
                weeks.map(\.weekStarting) == ["2026-11-22T11:00:00Z", "2026-11-15T11:00:00Z", "2026-11-08T11:00:00Z"])
            #expect(weeks.map(\.distanceM) == [5_500, 0, 12_000] && weeks.map(\.runs) == [2, 0, 1])
            let week = try await client.call(.get, "/", headers: [.cookie: cookie]).text
            #expect(week.contains(#"<span class="k">This week</span> <span class="v">5.5 km</span>"#))

            // A swim changed to a walk leaves the swim goal; a deleted run leaves the distance.
            #expect(
                try await client.call(.patch, "/v1/runs/\(swim)", token: ada, json: ["sport": "walk"]).status == .ok)
            #expect(try await client.call(.delete, "/v1/runs/\(sunday)", token: ada).status == .noContent)
            goals = try await Self.goals(client, ada)
            #expect(goals[0].done == 1_500 && goals[2].done == 0 && goals[1].done == 1_800)

            // The home page draws each goal's ring, in words too.
            let home = try await client.call(.get, "/", headers: [.cookie: cookie]).text
            #expect(home.contains("1.5 km of your weekly distance goal of 10.0 km: 15 %"), "\(home)")
            #expect(home.contains("0 activities of your weekly activities, swims only goal of 1 activity: 0 %"))
        }
    }

    @Test(
        "the goals page sets, refuses and removes; the profile shows goals to the person and friends only",
        arguments: Backend.available)
    func pages(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            var tokens: [String: String] = [:]
            var cookies: [String: String] = [:]
            for name in ["ada", "bob", "cleo"] {
                tokens[name] = try await client.signUp(name)
                cookies[name] = try await client.webSignIn(name).cookie
            }
            _ = try await client.call(.post, "/v1/friends", token: tokens["ada"]!, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: tokens["bob"]!)

            let set = try await AccountPageTests.post(
                client, "/me/goals", ["period": "week", "measure": "distance", "sport": "", "target": "25,5"],
                cookie: cookies["ada"]!)
            #expect(set.status == .seeOther && set.headers[.location] == "/me/goals")
            #expect(try await Self.goals(client, tokens["ada"]!).first?.target == 25_500)
            let refused = try await AccountPageTests.post(
                client, "/me/goals", ["period": "day", "measure": "time", "sport": "swim", "target": "2000"],
                cookie: cookies["ada"]!)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("at most 1440 minutes") && refused.text.contains("value=\"2000\""))
            #expect(refused.text.contains("<option value=\"swim\" selected>"))
            let page = try await client.call(.get, "/me/goals", headers: [.cookie: cookies["ada"]!]).text
            #expect(page.contains("Weekly distance") && page.contains("0.0 km of 25.5 km"))

            // A public 5 km and a private 3 km: a stranger could see a run but still no goals,
            // and a friend's ring counts the public one only.
            for (meters, visibility) in [(5_000.0, "public"), (3_000, "private")] {
                let entered = try await client.call(
                    .post, "/v1/runs", token: tokens["ada"]!,
                    send: ManualRun(
                        sport: "run",
                        startedAt: iso(harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)),
                        elapsedS: 1_800, distanceM: meters))
                let uuid = try entered.decode(RunView.self).uuid
                let changed = try await client.call(
                    .patch, "/v1/runs/\(uuid)", token: tokens["ada"]!, send: RunChange(visibility: visibility))
                #expect(changed.status == .ok)
            }
            let rings: [String: String?] = [
                "ada": "8.0 km of your weekly distance goal of 25.5 km",
                "bob": "5.0 km of ada&#39;s weekly distance goal of 25.5 km",
                "cleo": nil,
            ]
            for (viewer, ring) in rings {
                let profile = try await client.call(.get, "/people/ada", headers: [.cookie: cookies[viewer]!]).text
                #expect(profile.contains("<h2>Goals</h2>") == (ring != nil), "\(viewer)")
                #expect(profile.contains("weekly distance goal of 25.5 km") == (ring != nil), "\(viewer)")
                if let ring { #expect(profile.contains(ring), "\(viewer): \(profile)") }
            }
            let friend = try await client.call(.get, "/people/ada", headers: [.cookie: cookies["bob"]!]).text
            #expect(friend.contains("of ada&#39;s weekly distance goal") && !friend.contains("Remove</button>"))

            let goal = try #require(try await Self.goals(client, tokens["ada"]!).first)
            // bob's button on ada's goal removes nothing.
            _ = try await AccountPageTests.post(client, "/me/goals/\(goal.id)/delete", [:], cookie: cookies["bob"]!)
            #expect(try await Self.goals(client, tokens["ada"]!).count == 1)
            let removed = try await AccountPageTests.post(
                client, "/me/goals/\(goal.id)/delete", [:], cookie: cookies["ada"]!)
            #expect(removed.status == .seeOther)
            #expect(try await Self.goals(client, tokens["ada"]!).isEmpty)
        }
    }

    @Test(
        "a file's steps (FIT session total_cycles, strides) reach /v1/me/steps and the daily step goal; a ride's cycles do not",
        arguments: Backend.available)
    func steps(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let noon = WallInstant(iso8601: "2026-11-25T12:00:00Z")!
            harness.clock.freeze(at: noon)
            let ada = try await client.signUp("ada")
            let cookie = try await client.webSignIn("ada").cookie
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            var walk = RunFiles.activity(start: start, seconds: 1_200, speed: 1.4)
            walk.sport = .walking
            walk.summary.steps = 2_401
            let file = ActivityFormat.fit.write(walk)
            #expect(try ActivityFormat.fit.read(file).summary.steps == 2_402, "strides: within one step")
            #expect(try await client.upload(ada, uuid: UUID().uuidString.lowercased(), file: file).status == .created)
            var ride = RunFiles.activity(
                start: start.advanced(byNanoseconds: -7_200 * nanosecondsPerSecond), seconds: 600, speed: 8)
            ride.sport = .cycling
            ride.summary.steps = 5_000
            #expect(try ActivityFormat.fit.read(ActivityFormat.fit.write(ride)).summary.steps == nil)
            #expect(
                try await client.upload(ada, uuid: UUID().uuidString.lowercased(), file: ActivityFormat.fit.write(ride))
                    .status == .created)

            let steps = try await client.call(.get, "/v1/me/steps", token: ada).decode(StepsView.self)
            #expect(steps.days.count == 30 && steps.days.last?.steps == 2_402 && steps.goal == nil)
            #expect(steps.days.dropLast().allSatisfy { $0.steps == 0 })
            let goal = try await AccountPageTests.post(client, "/me/steps/goal", ["goal": "2,000"], cookie: cookie)
            #expect(goal.status == .seeOther)
            let goals = try await Self.goals(client, ada)
            #expect(
                goals.count == 1 && goals[0].measure == "steps" && goals[0].done == 2_402 && goals[0].percent == 120)
            let page = try await client.call(.get, "/me/steps", headers: [.cookie: cookie]).text
            #expect(page.contains("2,402") && page.contains("<path class=\"goal\""))
            let bad = try await AccountPageTests.post(client, "/me/steps/goal", ["goal": "12"], cookie: cookie)
            #expect(bad.status == .unprocessableContent && bad.text.contains("from 100 to 100,000"))
        }
    }
}

/// Levels and objectives: earned from the runs there are, taken back with them.
@Suite("Levels and objectives")
struct LevelTests {
    @Test("the rules: points, thresholds, distance objectives, four weeks in a row")
    func rules() {
        #expect((1...5).map(Level.threshold) == [0, 100, 300, 600, 1_000])
        var level = Level(
            distanceMM: 103_999_999, longestRunMM: 4_999_999, weeklyGoals: [], carried: false, groupGoal: false)
        #expect(level.done.isEmpty && level.points == 103 && level.level == 2)
        level = Level(distanceMM: 50_000_000, longestRunMM: 0, weeklyGoals: [], carried: true, groupGoal: true)
        #expect(level.done == ["baton_leg", "group_goal"], "a walk is not a run")
        level = Level(
            distanceMM: 21_097_500, longestRunMM: 21_097_500, weeklyGoals: [], carried: false, groupGoal: false)
        #expect(level.done == ["first_5k", "first_10k", "half_marathon"] && level.points == 171)
        let goal = PersonalGoal(id: 1, period: .week, measure: .runs, sport: nil, target: 1)
        let now = WallInstant(iso8601: "2026-11-25T12:00:00Z")!
        let today = TrainingPicture.localDay(now, zone: "UTC")
        func weeks(_ back: [Int]) -> GoalProgress {
            let runs = back.map {
                GoalRun(
                    started: now.advanced(byNanoseconds: -Int64($0) * 7 * 86_400 * nanosecondsPerSecond), sport: .run,
                    distanceMM: 1_000, timerMS: 1_000, steps: nil)
            }
            return GoalProgress(goal, runs: runs, today: today, zone: "UTC")
        }
        let three = Level(
            distanceMM: 0, longestRunMM: 0, weeklyGoals: [weeks([1, 2, 3, 5, 6, 7])], carried: false, groupGoal: false)
        #expect(!three.done.contains("four_weeks"))
        let four = Level(
            distanceMM: 0, longestRunMM: 0, weeklyGoals: [weeks([5, 6, 7, 8])], carried: false, groupGoal: false)
        #expect(four.done == ["four_weeks"])
    }

    @Test(
        "a baton leg and a group goal earn objectives; deleting the run takes them back; a stranger sees public runs only",
        arguments: Backend.available)
    func earned(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let cleo = try await client.signUp("cleo")
            let cookie = try await client.webSignIn("cleo").cookie
            let group = try await client.createGroup(ada, goal: 5_000)
            #expect(try await client.call(.post, "/v1/groups/\(group.id)/baton/take", token: ada).status == .ok)
            harness.clock.advance(seconds: 4_000)
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            let uuid = UUID().uuidString.lowercased()
            let upload = try await client.upload(
                ada, uuid: uuid, file: RunFiles.fit(start: start, seconds: 2_000, speed: 3))
            #expect(upload.status == .created)
            var level = try await client.call(.get, "/v1/me/level", token: ada).decode(LevelView.self)
            let done = Set(level.objectives.filter(\.done).map(\.id))
            #expect(done == ["first_5k", "baton_leg", "group_goal"], "\(done)")
            #expect(level.points == 6 + 150 && level.level == 2 && level.nextLevelPoints == 300)
            #expect(level.distanceM == 6_000)

            // cleo is a stranger: ada's runs are private by default, so nothing is earned in her eyes.
            let seen = try await client.call(.get, "/people/ada", headers: [.cookie: cookie]).text
            #expect(seen.contains("<h2>Level 1</h2>") && !seen.contains("✓ done"), "\(seen)")
            _ = cleo

            #expect(try await client.call(.delete, "/v1/runs/\(uuid)", token: ada).status == .noContent)
            level = try await client.call(.get, "/v1/me/level", token: ada).decode(LevelView.self)
            #expect(level.objectives.allSatisfy { !$0.done } && level.points == 0 && level.level == 1)
        }
    }
}
