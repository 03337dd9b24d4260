import Foundation
import HandoffAPI
import HandoffModel
import Testing

@testable import GroupStore

/// Each person's kept weeks and bests (`person_week`, `person_best`, schema 27) are what the runs
/// give, for every viewer, after any change; and version 27 fills them from the runs there are.
@Suite("A person's summary is kept equal to their runs")
struct PersonSummaryTests {
    static let levels = ["private", "friends", "groups", "public"]
    static let sports = ["run", "bike", "walk", "swim", "other"]

    @Test(
        "random histories: for the person, a friend, a group-mate, a stranger and nobody, the kept summary equals the runs'",
        arguments: Backend.available)
    func histories(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        harness.clock.freeze(at: WallInstant(nanosecondsSinceEpoch: 1_795_000_000 * nanosecondsPerSecond))
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let cleo = try await client.signUp("cleo")
            _ = try await client.signUp("dan")
            let group = try await client.createGroup(ada, goal: 1_000_000)
            try await client.join(cleo, group.invite)
            _ = bob
            let ids = try await repository.read { db in
                var ids: [String: Int64] = [:]
                for name in ["ada", "bob", "cleo", "dan"] {
                    ids[name] = try await db.one("SELECT id FROM account WHERE username = ?", name)?.int("id")
                }
                return ids
            }
            let (adaID, bobID) = (try #require(ids["ada"]), try #require(ids["bob"]))
            try await repository.write { db in
                for (a, b) in [(adaID, bobID), (bobID, adaID)] {
                    try await db.query(
                        "INSERT INTO friend (account_id, friend_id, status, created_ns) VALUES (?, ?, 'friends', 0)", a,
                        b)
                }
            }
            let viewers: [(String, Int64?)] = [
                ("ada", adaID), ("bob", bobID), ("cleo", ids["cleo"]), ("dan", ids["dan"]), ("nobody", nil),
            ]
            // Monday 2026-11-30 00:00 UTC, the edge most runs start near.
            let monday = WallInstant(nanosecondsSinceEpoch: weekStart(harness.clock.now) + 7 * StoreRepository.day)
            var generator = SeededGenerator(seed: backend == .sqlite ? 27 : 72)
            var uuids: [String] = []
            for step in 0..<40 {
                let roll = Int.random(in: 0..<10, using: &generator)
                let start = monday.advanced(
                    byNanoseconds: Int64.random(in: -9 * 86_400...5 * 86_400, using: &generator) * nanosecondsPerSecond
                        - 3 * 86_400 * 7 * nanosecondsPerSecond)
                if roll < 3 || uuids.isEmpty {
                    // A file: its best efforts are kept.
                    let uuid = UUID().uuidString.lowercased()
                    let file = RunFiles.fit(
                        start: start, seconds: Int.random(in: 300...2_400, using: &generator),
                        speed: Double.random(in: 2...5, using: &generator))
                    #expect(try await client.upload(ada, uuid: uuid, file: file).status == .created, "step \(step)")
                    uuids.append(uuid)
                } else if roll < 5 {
                    let entry = ManualRun(
                        sport: Self.sports.randomElement(using: &generator)!, startedAt: iso(start),
                        elapsedS: Double(Int.random(in: 600...3_600, using: &generator)),
                        distanceM: Double([0, 3_000, 5_000, 12_345].randomElement(using: &generator)!))
                    let reply = try await client.call(.post, "/v1/runs", token: ada, send: entry)
                    #expect(reply.status == .created, "step \(step): \(reply.text)")
                    uuids.append(try reply.decode(RunView.self).uuid)
                } else if roll < 6 {
                    let uuid = uuids.remove(at: Int.random(in: 0..<uuids.count, using: &generator))
                    #expect(try await client.call(.delete, "/v1/runs/\(uuid)", token: ada).status == .noContent)
                } else {
                    let uuid = uuids[Int.random(in: 0..<uuids.count, using: &generator)]
                    let change =
                        roll < 8
                        ? RunChange(visibility: Self.levels.randomElement(using: &generator)!)
                        : RunChange(sport: Self.sports.randomElement(using: &generator)!)
                    let reply = try await client.call(.patch, "/v1/runs/\(uuid)", token: ada, send: change)
                    #expect(reply.status == .ok, "step \(step): \(reply.text)")
                }
                for (name, viewer) in viewers {
                    let kept = try await repository.personSummary(account: adaID, viewer: viewer)
                    let runs = try await repository.perRunSummary(account: adaID, viewer: viewer)
                    #expect(kept == runs, "step \(step), seen by \(name)")
                }
            }
            // What each sees is not all the same: ada sees every run, nobody the public ones only.
            let all = try await repository.personSummary(account: adaID, viewer: adaID)
            #expect(all.sports.count > 0 && all.efforts.count > 0)
            try await repository.write { db in
                try await db.query(
                    "INSERT INTO block (blocker_id, blocked_id, created_ns) VALUES (?, ?, 0)", adaID, bobID)
            }
            #expect(
                try await repository.personSummary(account: adaID, viewer: bobID)
                    == .none)
        }
    }

    @Test("version 27 fills each person's weeks and bests from the runs there are", arguments: Backend.available)
    func migration(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.withDatabase { database in
            try await Schema.migrate(database, upTo: 26)
            let people: [Int64] = try await database.write { db in
                var generator = SeededGenerator(seed: 2627)
                var people: [Int64] = []
                for name in ["ada", "bob"] {
                    people.append(
                        try #require(
                            try await db.one(
                                """
                                INSERT INTO account (email, username, username_key, password_hash, created_ns, email_key)
                                VALUES (?, ?, ?, 'x', 0, ?) RETURNING id
                                """, "\(name)@example.org", name, name, "\(name)@example.org")?.int("id")))
                }
                for index in 0..<60 {
                    let account = people[index % 2]
                    let sport = Self.sports.randomElement(using: &generator)!
                    // Around 1970 too: days before it are counted down, as `weekStart` does.
                    let started =
                        Int64.random(in: -20 * 86_400...400 * 86_400, using: &generator) * nanosecondsPerSecond
                        + (index % 3 == 0 ? 0 : 1_790_000_000 * nanosecondsPerSecond)
                    let run = try #require(
                        try await db.one(
                            """
                            INSERT INTO run (uuid, account_id, started_ns, elapsed_ms, timer_ms, distance_mm, sport, format,
                                sha256, size, summary, uploaded_ns, visibility, map_visibility, efforts)
                            VALUES (?, ?, ?, ?, ?, ?, ?, 'manual', ?, 0, '{}', 0, ?, 'private', 1) RETURNING id
                            """, UUID().uuidString.lowercased(), account, started,
                            Int64.random(in: 60_000...7_200_000, using: &generator),
                            Int64.random(in: 60_000...7_200_000, using: &generator),
                            Int64([0, 1_000_000, 5_000_000, 12_000_000].randomElement(using: &generator)!), sport,
                            String(repeating: "0", count: 64), Self.levels.randomElement(using: &generator)!
                        )?.int("id"))
                    for meters in [1000, 1609, 5000] where Bool.random(using: &generator) {
                        try await db.query(
                            "INSERT INTO run_effort (run_id, account_id, sport, distance_m, elapsed_ms) VALUES (?, ?, ?, ?, ?)",
                            run, account, sport, meters, Int64(meters * Int.random(in: 150...400, using: &generator)))
                    }
                }
                return people
            }
            let repository = try await StoreRepository(database)
            for account in people {
                let kept = try await repository.personSummary(account: account, viewer: account)
                #expect(kept == (try await repository.perRunSummary(account: account, viewer: account)))
                #expect(!kept.sports.isEmpty && !kept.efforts.isEmpty && !kept.longest.isEmpty)
                let seen = try await repository.personSummary(account: account, viewer: nil)
                #expect(seen == (try await repository.perRunSummary(account: account, viewer: nil)))
            }
        }
    }
}
