import ActivityFormats
import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import TestSupport
import Testing
import Training

@testable import GroupStore

/// Issue 34's records (`GET /v1/me/records`): best efforts found inside runs with a known fastest
/// stretch, the longest run and the biggest week, per sport; and, over random histories of
/// uploads, entries by hand, deletions and sport changes, the records, the goals, the group's total and the
/// weekly distances always equal a naive recomputation from the runs that remain.
@Suite("Personal records")
struct RecordsTests {
    static func records(_ client: any TestClientProtocol, _ token: String) async throws -> [RecordView] {
        let reply = try await client.call(.get, "/v1/me/records", token: token)
        #expect(reply.status == .ok, "\(reply.text)")
        return try reply.decode(RecordList.self).records
    }

    static func find(_ records: [RecordView], _ sport: String, _ name: String) -> RecordView? {
        records.first { $0.sport == sport && $0.name == name }
    }

    @Test(
        "a run with a known fast kilometre: 1 km, mile and 5 km within 1 s; per sport; moved and taken back",
        arguments: Backend.available)
    func known(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            #expect(try await Self.records(client, ada).isEmpty)
            let start = harness.clock.now.advanced(byNanoseconds: -5 * 3_600 * nanosecondsPerSecond)
            // 6 km at 5:00/km, the third kilometre at 3:30/km.
            let slow = 1000.0 / 300
            let file = SportsTests.paced(start: start, [(600, slow), (210, 1000.0 / 210), (900, slow)])
            let run = UUID().uuidString.lowercased()
            #expect(try await client.upload(ada, uuid: run, file: file).status == .created)
            var records = try await Self.records(client, ada)
            let km = try #require(Self.find(records, "run", "1 km"), "\(records)")
            #expect(abs(km.elapsedS - 210) <= 1 && km.uuid == run && km.distanceM == 1000 && km.kind == "best_effort")
            #expect(abs(try #require(Self.find(records, "run", "Mile")).elapsedS - (210 + 609.344 * 0.3)) <= 1)
            #expect(abs(try #require(Self.find(records, "run", "5 km")).elapsedS - 1_410) <= 1)
            #expect(Self.find(records, "run", "10 km") == nil)
            let longest = try #require(Self.find(records, "run", "Longest"))
            #expect(abs(longest.distanceM - 6_000) < 1 && longest.uuid == run)
            let week = try #require(Self.find(records, "run", "Biggest week"))
            #expect(abs(week.distanceM - 6_000) < 1 && week.uuid == nil && week.at.count == 10)

            // A faster ride is the bike's record, not the run's.
            let ride = UUID().uuidString.lowercased()
            let fast = SportsTests.paced(
                start: start.advanced(byNanoseconds: 3_600 * nanosecondsPerSecond), [(300, 10)], sport: .cycling)
            #expect(try await client.upload(ada, uuid: ride, file: fast).status == .created)
            records = try await Self.records(client, ada)
            #expect(Self.find(records, "run", "1 km")?.uuid == run)
            #expect(abs((Self.find(records, "bike", "1 km")?.elapsedS ?? 0) - 100) <= 1)
            // Its sport changed to run: it now holds the run's kilometre, and the bike has none.
            _ = try await client.call(.patch, "/v1/runs/\(ride)", token: ada, json: ["sport": "run"])
            records = try await Self.records(client, ada)
            #expect(Self.find(records, "run", "1 km")?.uuid == ride && Self.find(records, "bike", "1 km") == nil)
            #expect(Self.find(records, "run", "Biggest week")?.distanceM == 9_000)
            // Deleted: the first run's records come back.
            #expect(try await client.call(.delete, "/v1/runs/\(ride)", token: ada).status == .noContent)
            records = try await Self.records(client, ada)
            #expect(
                Self.find(records, "run", "1 km")?.uuid == run
                    && Self.find(records, "run", "1 km")?.elapsedS == km.elapsedS)
            // Another person's records are their own.
            let bob = try await client.signUp("bob")
            #expect(try await Self.records(client, bob).isEmpty)
        }
    }

    /// What the store should say, recomputed from scratch from the runs that remain.
    struct Kept {
        var sport: String
        var started: WallInstant
        var distanceMM: Int64
        var elapsedMS: Int64
        var efforts: [BestEfforts.Effort]
    }

    @Test(
        "random histories: records, goals, the group's total and the weeks equal a naive recomputation after every step",
        arguments: Backend.available)
    func histories(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let first = try await client.signUp("ada")
            let group = try await client.createGroup(first, goal: 1_000_000)
            _ = try await client.call(
                .patch, "/v1/groups/\(group.id)", token: first,
                send: GroupChange(sports: ["run": 1, "walk": 1, "bike": 0.25]))
            for goal in Self.goals {
                #expect(try await client.call(.post, "/v1/me/goals", token: first, send: goal).status == .created)
            }
            harness.clock.advance(seconds: 60)
            let joined = harness.clock.now
            harness.clock.advance(seconds: 40 * 86_400)
            // Weeks later: a new session.
            let signedIn = try await client.call(
                .post, "/v1/sessions", send: SignIn(login: "ada", password: "correct horse battery"))
            let ada = try signedIn.decode(SignedIn.self).token
            var generator = SeededGenerator(seed: backend == .sqlite ? 34 : 43)
            var kept: [String: Kept] = [:]
            let sports = ["run", "bike", "walk", "swim", "other"]
            for step in 0..<36 {
                let roll = Int.random(in: 0..<10, using: &generator)
                if roll < 5 || kept.isEmpty {
                    // An upload: 2 to 4 stretches of random pace, on one of 30 days.
                    let start = joined.advanced(
                        byNanoseconds: Int64.random(in: 3_600...(30 * 86_400), using: &generator) * nanosecondsPerSecond
                    )
                    let stretches = (0..<Int.random(in: 2...4, using: &generator)).map { _ in
                        (Int.random(in: 100...900, using: &generator), Double.random(in: 2...6, using: &generator))
                    }
                    let sport: Activity.Sport = [.running, .cycling, .walking][Int.random(in: 0..<3, using: &generator)]
                    let file = SportsTests.paced(start: start, stretches, sport: sport)
                    let uuid = UUID().uuidString.lowercased()
                    let reply = try await client.upload(ada, uuid: uuid, file: file)
                    #expect(reply.status == .created, "step \(step): \(reply.text)")
                    let view = try reply.decode(RunView.self)
                    let activity = try ActivityFormat.fit.read(file)
                    kept[uuid] = Kept(
                        sport: view.measures.sport, started: activity.start,
                        distanceMM: Int64((view.measures.distanceM * 1000).rounded()),
                        elapsedMS: Int64((view.measures.elapsedS * 1000).rounded()),
                        efforts: BestEfforts.find(
                            activity.points.map { (Double($0.elapsedSeconds), $0.distanceMeters) }))
                } else if roll == 5 {
                    let start = joined.advanced(byNanoseconds: Int64(step + 1) * 86_400 * nanosecondsPerSecond)
                    let entry = ManualRun(
                        sport: sports[Int.random(in: 0..<5, using: &generator)], startedAt: iso(start),
                        elapsedS: Double(Int.random(in: 600...3_600, using: &generator)),
                        distanceM: Double(Int.random(in: 500...8_000, using: &generator)))
                    let reply = try await client.call(.post, "/v1/runs", token: ada, send: entry)
                    #expect(reply.status == .created, "step \(step): \(reply.text)")
                    let view = try reply.decode(RunView.self)
                    kept[view.uuid] = Kept(
                        sport: entry.sport, started: start, distanceMM: Int64(entry.distanceM * 1000),
                        elapsedMS: Int64(entry.elapsedS * 1000), efforts: [])
                } else if roll < 8 {
                    let uuid = kept.keys.sorted()[Int.random(in: 0..<kept.count, using: &generator)]
                    #expect(try await client.call(.delete, "/v1/runs/\(uuid)", token: ada).status == .noContent)
                    kept[uuid] = nil
                } else {
                    let uuid = kept.keys.sorted()[Int.random(in: 0..<kept.count, using: &generator)]
                    let sport = sports[Int.random(in: 0..<5, using: &generator)]
                    let reply = try await client.call(.patch, "/v1/runs/\(uuid)", token: ada, json: ["sport": sport])
                    #expect(reply.status == .ok, "\(reply.text)")
                    kept[uuid]?.sport = sport
                }
                if step % 9 == 4 {
                    // As a store upgraded from before schema 21: efforts found again when asked.
                    try await repository.write { db in
                        try await db.query("DELETE FROM run_effort")
                        try await db.query("UPDATE run SET efforts = NULL")
                    }
                }
                try await Self.check(client, ada, group: group.id, kept, step: step)
                try await Self.checkGoals(client, ada, kept, now: harness.clock.now, step: step)
            }
        }
    }

    static func check(
        _ client: any TestClientProtocol, _ token: String, group: Int, _ kept: [String: Kept], step: Int
    ) async throws {
        let records = try await Self.records(client, token)
        for sport in ["run", "bike", "walk", "swim", "other"] {
            let runs = kept.filter { $0.value.sport == sport }
            for (name, meters) in BestEfforts.standard {
                let best = runs.compactMap { uuid, run in
                    run.efforts.first { $0.meters == meters }.map { (uuid, $0.seconds) }
                }.min { ($0.1, $0.0) < ($1.1, $1.0) }
                let found = Self.find(records, sport, name)
                #expect((found == nil) == (best == nil), "step \(step) \(sport) \(name): \(String(describing: found))")
                if let best, let found {
                    #expect(abs(found.elapsedS - best.1) <= 0.001, "step \(step) \(sport) \(name)")
                    #expect(
                        kept[found.uuid ?? ""]?.efforts.contains { abs($0.seconds - found.elapsedS) < 0.001 } == true)
                }
            }
            let longest = runs.values.map(\.distanceMM).max() ?? 0
            #expect(
                Int64(((Self.find(records, sport, "Longest")?.distanceM ?? 0) * 1000).rounded()) == longest,
                "step \(step) \(sport) longest")
            var weeks: [Int64: Int64] = [:]
            for run in runs.values { weeks[weekStart(run.started), default: 0] += run.distanceMM }
            #expect(
                Int64(((Self.find(records, sport, "Biggest week")?.distanceM ?? 0) * 1000).rounded())
                    == (weeks.values.filter { $0 > 0 }.max() ?? 0), "step \(step) \(sport) biggest week")
        }
        // The group counts run and walk in full, bike at a quarter, nothing else.
        let factors: [String: Int64] = ["run": 1000, "walk": 1000, "bike": 250]
        let total = kept.values.reduce(Int64(0)) { $0 + $1.distanceMM * (factors[$1.sport] ?? 0) / 1000 }
        let view = try await client.call(.get, "/v1/groups/\(group)", token: token).decode(GroupView.self)
        #expect(Int64((view.totalM * 1000).rounded()) == total, "step \(step) group total")
        // The weekly distances (every sport) over the 8 weeks back from now.
        let weeks = try await client.call(.get, "/v1/me/weeks?count=8", token: token).decode(Weeks.self)
        #expect(
            Int64((weeks.weeks.reduce(0) { $0 + $1.distanceM } * 1000).rounded())
                == kept.values.reduce(0) { $0 + $1.distanceMM }, "step \(step) weeks")
    }

    /// Weekly distance in every sport, weekly rides, and a daily walking distance.
    static let goals = [
        GoalSet(period: "week", measure: "distance", target: 20_000),
        GoalSet(period: "week", measure: "runs", sport: "bike", target: 2),
        GoalSet(period: "day", measure: "distance", sport: "walk", target: 3_000),
    ]

    /// Each goal's current period and 12 before it, summed naively (the account's calendar is UTC).
    static func checkGoals(
        _ client: any TestClientProtocol, _ token: String, _ kept: [String: Kept], now: WallInstant, step: Int
    ) async throws {
        let list = try await client.call(.get, "/v1/me/goals", token: token).decode(GoalList.self)
        #expect(list.goals.count == 3, "step \(step) goals")
        let day = 86_400 * nanosecondsPerSecond
        var fourInARow = false
        for goal in list.goals {
            // The period's first instant: the day, or the Monday (UTC) before it.
            func start(_ t: WallInstant) -> Int64 {
                goal.period == "day" ? t.nanosecondsSinceEpoch / day * day : weekStart(t)
            }
            let length = goal.period == "day" ? day : 7 * day
            var sums: [Int64: Double] = [:]
            for run in kept.values where goal.sport == nil || goal.sport == run.sport {
                sums[start(run.started), default: 0] += goal.measure == "runs" ? 1 : Double(run.distanceMM) / 1000
            }
            let current = start(now)
            #expect(abs(goal.done - (sums[current] ?? 0)) < 0.001, "step \(step) \(goal.period) \(goal.measure) now")
            #expect(goal.percent == Int(((sums[current] ?? 0) / goal.target * 100).rounded(.down)))
            #expect(goal.history.count == 12)
            var streak = 0
            var broken = false
            for (i, period) in goal.history.enumerated() {
                let first = current - Int64(i + 1) * length
                let done = sums[first] ?? 0
                #expect(period.start == String(iso(WallInstant(nanosecondsSinceEpoch: first)).prefix(10)))
                #expect(abs(period.done - done) < 0.001, "step \(step) \(goal.measure) \(period.start)")
                #expect(period.met == (done >= goal.target - 0.0005))
                if !broken && period.met { streak += 1 } else { broken = true }
                if goal.period == "week", i >= 3,
                    (0...3).allSatisfy({ (sums[current - Int64(i + 1 - $0) * length] ?? 0) >= goal.target - 0.0005 })
                {
                    fourInARow = true
                }
            }
            #expect(goal.streak == streak, "step \(step) \(goal.measure) streak")
        }
        // The level: a point a whole kilometre, 50 an objective (no baton here, and the group's
        // 1,000 km is never reached).
        let level = try await client.call(.get, "/v1/me/level", token: token).decode(LevelView.self)
        let total = kept.values.reduce(Int64(0)) { $0 + $1.distanceMM }
        let longest = kept.values.filter { $0.sport == "run" }.map(\.distanceMM).max() ?? 0
        var done: Set<String> = fourInARow ? ["four_weeks"] : []
        for (id, mm) in [
            ("first_5k", Int64(5_000_000)), ("first_10k", 10_000_000), ("half_marathon", 21_097_500),
            ("marathon", 42_195_000),
        ] where longest >= mm {
            done.insert(id)
        }
        #expect(Set(level.objectives.filter(\.done).map(\.id)) == done, "step \(step) objectives")
        #expect(level.points == Int(total / 1_000_000) + 50 * done.count, "step \(step) points")
        #expect(Level.threshold(level.level) <= level.points && level.points < Level.threshold(level.level + 1))
    }
}
