import Foundation
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import Testing

@testable import GroupStore

/// A group's goal reached, as an event (issue 35): announced once for each goal, by the run that
/// reached it, however many uploads cross it at once; and a group's events kept to its newest.
@Suite("A group's goal reached, and its events kept")
struct GoalEventsTests {
    /// The kinds of the group's events, in order, with the runner of each counted one.
    static func kinds(_ client: any TestClientProtocol, _ token: String, _ group: Int) async throws -> [String] {
        try await GroupEventsTests.events(client, token, group).events.map { event in
            event.runner.map { "\(event.kind) \($0)" } ?? event.kind
        }
    }

    @Test(
        "the run that reaches the goal announces it, once; the next runs do not; a raised goal is announced again when reached",
        arguments: Backend.available)
    func reachedOnce(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let group = try await client.createGroup(ada, goal: 5_000)
            try await client.join(bob, group.invite)
            harness.clock.advance(seconds: 7_200)
            func run(_ token: String, metres: Int) async throws {
                harness.clock.advance(seconds: 3_600)
                let start = harness.clock.now.advanced(byNanoseconds: -3_000 * nanosecondsPerSecond)
                let reply = try await client.upload(
                    token, uuid: UUID().uuidString.lowercased(),
                    file: RunFiles.fit(start: start, seconds: metres / 2, speed: 2))
                #expect(reply.status == .created, "\(reply.text)")
            }
            try await run(ada, metres: 3_000)
            #expect(try await Self.kinds(client, ada, group.id) == ["run_counted ada"])
            try await run(bob, metres: 2_400)
            try await run(ada, metres: 1_000)
            #expect(
                try await Self.kinds(client, ada, group.id) == [
                    "run_counted ada", "run_counted bob", "goal_reached bob", "run_counted ada",
                ])
            let reached = try await GroupEventsTests.events(client, bob, group.id).events[2]
            #expect(abs((reached.totalM ?? 0) - 5_400) < 2 && abs((reached.distanceM ?? 0) - 2_400) < 2, "\(reached)")

            // The owner raises the goal: reaching it is news again, once.
            #expect(
                try await client.call(.patch, "/v1/groups/\(group.id)", token: ada, json: ["goal_m": 8_000]).status
                    == .ok)
            try await run(bob, metres: 1_000)
            try await run(bob, metres: 1_200)
            try await run(ada, metres: 500)
            #expect(
                try await Self.kinds(client, ada, group.id).suffix(4) == [
                    "run_counted bob", "run_counted bob", "goal_reached bob", "run_counted ada",
                ])
        }
    }

    @Test(
        "eight uploads that each cross the goal at once: one goal_reached, after the counted run that reached it",
        arguments: Backend.available)
    func reachedTogether(_ backend: Backend) async throws {
        var live = try StoreHarness(backend, transport: .live)
        live.configuration.uploads.concurrency = 8
        let harness = live
        try await harness.run { client in
            let owner = try await client.signUp("owner")
            let group = try await client.createGroup(owner, goal: 1_000)
            var runners: [String] = []
            for n in 0..<8 {
                let token = try await client.signUp("runner\(n)")
                try await client.join(token, group.invite)
                runners.append(token)
            }
            harness.clock.advance(seconds: 7_200)
            let start = harness.clock.now.advanced(byNanoseconds: -3_000 * nanosecondsPerSecond)
            try await withThrowingTaskGroup(of: Int.self) { uploads in
                for token in runners {
                    uploads.addTask {
                        try await client.upload(
                            token, uuid: UUID().uuidString.lowercased(),
                            file: RunFiles.fit(start: start, seconds: 600, speed: 2), ownConnection: true
                        ).status.code
                    }
                }
                for try await status in uploads { #expect(status == 201) }
            }
            let events = try await GroupEventsTests.events(client, owner, group.id).events
            #expect(events.filter { $0.kind == "run_counted" }.count == 8)
            let reached = events.filter { $0.kind == "goal_reached" }
            #expect(reached.count == 1, "\(events.map(\.kind))")
            if let goal = reached.first, let index = events.firstIndex(of: goal) {
                #expect(events[index - 1].kind == "run_counted" && events[index - 1].runner == goal.runner)
            }
        }
    }

    @Test(
        "a group keeps its newest thousand events: the hundredth after them trims the older",
        arguments: Backend.available)
    func trimmed(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let group = try await client.createGroup(ada, goal: 5_000)
            let team = Int64(group.id)
            let now = harness.clock.now
            for _ in 0..<11 {
                try await repository.write { db in
                    for _ in 0..<99 {
                        try await StoreRepository.recordEvent(db, team: team, kind: "baton_released", now: now)
                    }
                }
            }
            // 1,089 events: the thousandth trimmed nothing (it would keep 1 to 1,000), and none
            // since was a hundredth.
            var list = try await repository.groupEvents(team: team, after: 0, limit: 2)
            #expect(list.events.map(\.id) == [1, 2] && list.lastID == 1_089)
            try await repository.write { db in
                for _ in 0..<11 {
                    try await StoreRepository.recordEvent(db, team: team, kind: "baton_released", now: now)
                }
            }
            // The 1,100th kept 101 to 1,100, and the ten after it are there too.
            list = try await repository.groupEvents(team: team, after: 0, limit: 2)
            #expect(list.events.map(\.id) == [101, 102] && list.lastID == 1_100)
            let all = try await repository.groupEvents(team: team, after: 0, limit: 5_000)
            #expect(all.events.count == 1_000 && all.events.last?.id == 1_100)
        }
    }

    @Test(
        "version 29 marks the goals already reached, so they are not announced at the next run",
        arguments: Backend.available)
    func migration(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.withDatabase { database in
            try await Schema.migrate(database, upTo: 28)
            try await database.write { db in
                try await db.query(
                    "INSERT INTO account (id, email, email_key, username, username_key, password_hash, created_ns) VALUES (1, 'a@example.org', 'a@example.org', 'ada', 'ada', 'x', 0)"
                )
                for (id, goal, total, pending) in [(1, 5_000_000, 4_000_000, 2_000_000), (2, 5_000_000, 4_000_000, 0)] {
                    try await db.query(
                        "INSERT INTO team (id, name, owner_id, goal_mm, total_mm, invite_code, lease_s, created_ns) VALUES (?, 'g', 1, ?, ?, ?, 3600, 0)",
                        Int64(id), Int64(goal), Int64(total), "code\(id)")
                    try await db.query(
                        "INSERT INTO tally (team_id, account_id, distance_mm, runs) VALUES (?, 1, ?, 1)", Int64(id),
                        Int64(pending))
                }
            }
            try await Schema.migrate(database)
            let marked = try await database.read { db in
                try await db.query("SELECT id, goal_reached_mm FROM team ORDER BY id").map {
                    [try $0.int("id"), try $0.intOrNil("goal_reached_mm") ?? -1]
                }
            }
            #expect(marked == [[1, 5_000_000], [2, -1]])
        }
    }
}
