import Foundation
import HandoffModel
import TestSupport
import Testing

@testable import GroupStore

/// Who sees a run: the rule as a table written out by hand, and the rule's SQL against the rule
/// on random worlds built by random sequences of asks, accepts, removals, blocks, joins, leaves,
/// suspensions and visibility changes, on both engines.
@Suite("Who sees a run: the rule, its table, and its SQL on random worlds")
struct VisibilityTests {
    typealias Relation = RunVisibility.Relation

    /// The viewers the table names, each as a relation to the run and its owner.
    static let viewers: [(String, Relation)] = [
        ("nobody signed in", Relation(signedIn: false)),
        ("a stranger", Relation()),
        ("the owner", Relation(isOwner: true)),
        ("a friend", Relation(isFriend: true)),
        ("a group-mate", Relation(inRunsGroup: true)),
        ("a friend and group-mate", Relation(isFriend: true, inRunsGroup: true)),
        ("a blocked friend", Relation(isFriend: true, blocked: true)),
        ("a blocked group-mate", Relation(inRunsGroup: true, blocked: true)),
        ("a blocked stranger", Relation(blocked: true)),
        ("a friend of a suspended runner", Relation(isFriend: true, inRunsGroup: true, ownerSuspended: true)),
        ("nobody signed in, a suspended runner", Relation(signedIn: false, ownerSuspended: true)),
    ]

    /// Who sees a run at each level, written out, not computed.
    static let table: [RunVisibility: Set<String>] = [
        .private: ["the owner"],
        .friends: ["the owner", "a friend", "a friend and group-mate"],
        .groups: ["the owner", "a friend", "a group-mate", "a friend and group-mate"],
        .public: [
            "nobody signed in", "a stranger", "the owner", "a friend", "a group-mate", "a friend and group-mate",
        ],
    ]

    @Test("Every level against every kind of viewer: exactly the table's viewers see the run")
    func rule() {
        for level in RunVisibility.allCases {
            let seeing = Set(Self.viewers.filter { level.allows($0.1) }.map(\.0))
            #expect(seeing == Self.table[level], "\(level)")
        }
        // A map is seen by no more people than its run, and by no more than its own level lets in.
        for run in RunVisibility.allCases {
            for map in RunVisibility.allCases {
                for (name, relation) in Self.viewers {
                    let seen = RunVisibility.mapAllowed(run: run, map: map, relation)
                    let expected = (Self.table[run] ?? []).contains(name) && (Self.table[map] ?? []).contains(name)
                    #expect(seen == expected, "run \(run), map \(map), \(name)")
                }
            }
        }
    }

    /// The world as the test believes it to be, changed only through what the store offers.
    struct World {
        var accounts: [Int64] = []
        var friends: Set<[Int64]> = []  // sorted pairs
        var asks: Set<[Int64]> = []  // [asker, asked]
        var blocks: Set<[Int64]> = []  // [blocker, blocked]
        var members: [Int64: Set<Int64>] = [:]  // group → accounts
        var runs: [Int64: (owner: Int64, visibility: RunVisibility, map: RunVisibility, groups: Set<Int64>)] = [:]
        var suspended: Set<Int64> = []

        func relation(_ viewer: Int64?, run: Int64) -> Relation {
            guard let run = runs[run] else { return Relation(signedIn: false) }
            guard let viewer else { return Relation(signedIn: false, ownerSuspended: suspended.contains(run.owner)) }
            return Relation(
                isOwner: viewer == run.owner, isFriend: friends.contains([viewer, run.owner].sorted()),
                inRunsGroup: run.groups.contains { members[$0]?.contains(viewer) == true },
                blocked: blocks.contains([run.owner, viewer]) || blocks.contains([viewer, run.owner]),
                ownerSuspended: suspended.contains(run.owner))
        }

        func visible(_ viewer: Int64?, map: Bool) -> Set<Int64> {
            Set(
                runs.filter { id, run in
                    map
                        ? RunVisibility.mapAllowed(run: run.visibility, map: run.map, relation(viewer, run: id))
                        : run.visibility.allows(relation(viewer, run: id))
                }.keys)
        }
    }

    @Test(
        "On random worlds the SQL returns exactly the runs and maps the rule allows, after every change",
        arguments: Backend.available)
    func sqlAgrees(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.withDatabase { database in
            let repository = try await StoreRepository(database)
            let now = WallInstant(secondsSinceEpoch: 1_790_000_000)
            var world = World()
            for index in 0..<6 {
                world.accounts.append(
                    try await repository.createAccount(
                        email: "r\(index)@example.org", username: "r\(index)", passwordHash: "x", now: now
                    ).id)
            }
            var codes: [Int64: String] = [:]
            for index in 0..<3 {
                let owner = world.accounts[index]
                let group = try await repository.createGroup(
                    name: "g\(index)", goalMM: 1_000_000, deadline: nil, leaseSeconds: 3600, autoPass: false,
                    inviteCode: "code\(index)", owner: owner, now: now)
                codes[group.id] = "code\(index)"
                world.members[group.id] = [owner]
            }
            let seed = UInt64(Date().timeIntervalSince1970 * 1000)
            var random = SeededRandom(seed: seed)
            var steps = 0
            var reached = (friends: false, blocks: false, runs: false)
            for _ in 0..<160 {
                let a = world.accounts.randomElement(using: &random)!
                let b = world.accounts.randomElement(using: &random)!
                let action = Int.random(in: 0..<11, using: &random)
                do {
                    switch action {
                    case 0, 1:
                        _ = try await repository.askFriend(a, b, now: now)
                        if world.asks.contains([b, a]) {
                            world.asks.remove([b, a])
                            world.friends.insert([a, b].sorted())
                        } else if !world.friends.contains([a, b].sorted()) {
                            world.asks.insert([a, b])
                        }
                    case 2:
                        try await repository.acceptFriend(a, b, now: now)
                        world.asks.remove([b, a])
                        world.friends.insert([a, b].sorted())
                    case 3:
                        try await repository.removeFriend(a, b)
                        world.friends.remove([a, b].sorted())
                        world.asks.remove([a, b])
                        world.asks.remove([b, a])
                    case 4:
                        try await repository.block(a, b, now: now)
                        world.friends.remove([a, b].sorted())
                        world.asks.remove([a, b])
                        world.asks.remove([b, a])
                        world.blocks.insert([a, b])
                    case 5:
                        try await repository.unblock(a, b)
                        world.blocks.remove([a, b])
                    case 6:
                        // Every group's last member may have left: then there is nothing to join.
                        guard let group = world.members.keys.sorted().randomElement(using: &random) else { break }
                        if Bool.random(using: &random) {
                            _ = try await repository.join(inviteCode: codes[group]!, account: a, now: now)
                            world.members[group, default: []].insert(a)
                        } else {
                            try await repository.leave(group, member: a, by: a, now: now)
                            world.members[group]?.remove(a)
                            // Their runs stop counting there (their distance stays as former members').
                            for (id, run) in world.runs where run.owner == a { world.runs[id]?.groups.remove(group) }
                            if world.members[group]?.isEmpty == true {
                                // The last member gone: the group and where runs counted in it go.
                                world.members[group] = nil
                                for id in world.runs.keys { world.runs[id]?.groups.remove(group) }
                            }
                        }
                    case 7, 8:
                        let visibility = RunVisibility.allCases.randomElement(using: &random)!
                        let map = min(visibility, RunVisibility.allCases.randomElement(using: &random)!)
                        let groups = Set(world.members.keys.filter { _ in Bool.random(using: &random) })
                        let id = try await Self.insertRun(database, owner: a, visibility, map, groups: groups)
                        world.runs[id] = (a, visibility, map, groups)
                    case 9:
                        // The operator suspends an account, or lifts a suspension.
                        let name = "r\(world.accounts.firstIndex(of: a) ?? 0)"
                        let suspend = !world.suspended.contains(a)
                        try await repository.setSuspended(username: name, suspend, reason: "test", now: now)
                        if suspend { world.suspended.insert(a) } else { world.suspended.remove(a) }
                    default:
                        guard let id = world.runs.keys.sorted().randomElement(using: &random) else { break }
                        let visibility = RunVisibility.allCases.randomElement(using: &random)!
                        let map = min(visibility, RunVisibility.allCases.randomElement(using: &random)!)
                        _ = try await database.write { db in
                            try await db.query(
                                "UPDATE run SET visibility = ?, map_visibility = ? WHERE id = ?", visibility.rawValue,
                                map.rawValue, id)
                        }
                        world.runs[id]?.visibility = visibility
                        world.runs[id]?.map = map
                    }
                } catch let error as StoreError {
                    // Refused: the world is as it was; the refusal must be one the rules give.
                    #expect(
                        [
                            "invalid_friend", "blocked", "account_not_found", "no_request", "not_friends",
                            "not_blocked",
                            "invalid_block", "not_a_member",
                        ].contains(error.code) || error.status == .notFound,
                        "\(error.code): \(error.message) (seed \(seed))")
                }
                steps += 1
                reached.friends = reached.friends || !world.friends.isEmpty
                reached.blocks = reached.blocks || !world.blocks.isEmpty
                reached.runs = reached.runs || !world.runs.isEmpty
                for viewer in [nil] + world.accounts {
                    for map in [false, true] {
                        let (condition, arguments) = RunVisibility.sql(
                            viewer: viewer, column: map ? "run.map_visibility" : "run.visibility")
                        let rows = try await database.read { db in
                            try await db.query("SELECT run.id FROM run WHERE \(condition)", arguments)
                        }
                        let seen = Set(try rows.map { try $0.int("id") })
                        let expected = world.visible(viewer, map: map)
                        #expect(seen == expected, "step \(steps), viewer \(viewer ?? 0), map \(map) (seed \(seed))")
                        if seen != expected { return }
                    }
                }
                // The feed, by either of its plans, pages through exactly the circle's runs the
                // rule allows: own, friends', and those counted in the viewer's groups.
                for viewer in world.accounts {
                    let visible = world.visible(viewer, map: false)
                    let expected = Set(
                        world.runs.filter { id, run in
                            visible.contains(id)
                                && (run.owner == viewer || world.friends.contains([viewer, run.owner].sorted())
                                    || run.groups.contains { world.members[$0]?.contains(viewer) == true })
                        }.keys)
                    var pages: [[Int64]] = []
                    for smallCircle in [Int.max, -1] {
                        var ids: [Int64] = []
                        var cursor: StoreRepository.RunCursor?
                        repeat {
                            let page = try await repository.feed(
                                viewer: viewer, scope: .everyone, limit: 3, after: cursor, smallCircle: smallCircle)
                            ids += page.runs.map(\.run.id)
                            cursor = page.next
                        } while cursor != nil
                        pages.append(ids)
                    }
                    #expect(
                        Set(pages[0]) == expected && pages[0].count == expected.count, "step \(steps) (seed \(seed))")
                    #expect(pages[0] == pages[1], "both plans, step \(steps), viewer \(viewer) (seed \(seed))")
                    if pages[0] != pages[1] || Set(pages[0]) != expected { return }
                }
            }
            #expect(steps == 160)
            #expect(
                reached.friends && reached.blocks && reached.runs,
                "the walk reached friends, blocks and runs (seed \(seed))")
        }
    }

    static func insertRun(
        _ database: any SQLDatabase, owner: Int64, _ visibility: RunVisibility, _ map: RunVisibility,
        groups: Set<Int64>
    ) async throws -> Int64 {
        try await database.write { db in
            let uuid = UUID().uuidString.lowercased()
            let id =
                try await db.one(
                    """
                    INSERT INTO run (uuid, account_id, started_ns, elapsed_ms, timer_ms, distance_mm, sport, format, sha256,
                        size, summary, uploaded_ns, visibility, map_visibility)
                    VALUES (?, ?, 0, 1000, 1000, 1000, 'running', 'fit', ?, 1, '{}', 0, ?, ?) RETURNING id
                    """, uuid, owner, uuid, visibility.rawValue, map.rawValue)?.int("id") ?? 0
            for group in groups.sorted() {
                try await db.query(
                    "INSERT INTO run_team (run_id, team_id, distance_mm, account_id) VALUES (?, ?, 1000, ?)", id, group,
                    owner)
            }
            return id
        }
    }
}
