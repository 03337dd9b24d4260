import Foundation
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import Testing

@testable import GroupStore

/// A group's lists come a page at a time with keyset cursors (App/PageCursor.swift,
/// Groups/Repository+Members.swift): every member and leg exactly once, in exact order, and no
/// reply grows with the group.
@Suite("Bounded pages: members and legs a page at a time")
struct PagingTests {
    /// Adds `count` members to group `team` straight in SQL (one statement each, valid on both
    /// engines): accounts Runner1…RunnerN, distances (id × 7919) mod `modulo` mm so that many
    /// are equal, turns in account order after the owner's.
    static func seed(_ repository: StoreRepository, team: Int, count: Int, modulo: Int64 = 37_000) async throws {
        try await repository.database.write { db in
            try await db.query(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                INSERT INTO account (email, email_key, username, username_key, password_hash, created_ns)
                SELECT 'runner' || i || '@example.org', 'runner' || i || '@example.org', 'Runner' || i, 'runner' || i,
                    'x', 0
                FROM n
                """, count)
            try await db.query(
                """
                INSERT INTO member (team_id, account_id, joined_ns, turn, distance_mm, runs, name_key)
                SELECT ?, id, 0, id, (id * 7919) % ?, id % 5, username_key FROM account
                WHERE username_key LIKE 'runner%'
                """, team, modulo)
        }
    }

    /// Pending tally rows for every `every`th seeded member: up, down, and onto others' distances.
    static func addPending(_ repository: StoreRepository, team: Int, every: Int) async throws {
        try await repository.database.write { db in
            let members = try await db.query(
                "SELECT account_id, distance_mm FROM member WHERE team_id = ? ORDER BY account_id", team
            ).map { (id: try $0.int("account_id"), mm: try $0.int("distance_mm")) }
            for (index, (id, mm)) in members.enumerated() where index % every == 0 {
                // A deleted run takes away no more than the member ran.
                let change: Int64 = [15_000, -min(mm, 2_000), 3_000, 1_000, 0][index / every % 5]
                try await db.query(
                    "INSERT INTO tally (team_id, account_id, distance_mm, runs) VALUES (?, ?, ?, 1)", team, id, change)
                if index % (every * 2) == 0 {
                    try await db.query(
                        "INSERT INTO tally (team_id, account_id, distance_mm, runs) VALUES (?, ?, 7, 1)", team, id)
                }
            }
        }
    }

    /// Every member of `team` by brute force: exact distance (stored + every pending row), sorted
    /// as the store ranks them.
    static func expected(
        _ repository: StoreRepository, team: Int
    ) async throws -> [(account: Int64, username: String, mm: Int64)] {
        let rows = try await repository.database.read { db in
            try await db.query(
                """
                SELECT member.account_id, account.username, member.distance_mm + CAST(coalesce((SELECT sum(distance_mm)
                    FROM tally WHERE tally.team_id = member.team_id AND tally.account_id = member.account_id), 0)
                    AS BIGINT) AS mm
                FROM member JOIN account ON account.id = member.account_id WHERE member.team_id = ?
                """, team)
        }
        return try rows.map { (try $0.int("account_id"), try $0.text("username"), try $0.int("mm")) }
            .sorted { $0.mm > $1.mm || ($0.mm == $1.mm && $0.account < $1.account) }
    }

    /// Follows `next_cursor` from `first` to the last page; fails past `most` pages.
    static func all(
        _ client: any TestClientProtocol, token: String, _ first: String, most: Int = 100
    ) async throws -> [MemberPage] {
        var pages: [MemberPage] = []
        var uri: String? = first
        while let next = uri, pages.count < most {
            let reply = try await client.call(.get, next, token: token)
            try #require(reply.status == .ok, "\(next): \(reply.text)")
            let page = try reply.decode(MemberPage.self)
            pages.append(page)
            uri = page.nextCursor.map { first + "&cursor=" + $0 }
        }
        #expect(uri == nil, "more than \(most) pages")
        return pages
    }

    @Test(
        "Pages of 40 visit each of 250 members exactly once: by exact distance (pending uploads included), by turn, by name",
        arguments: Backend.available)
    func pagesVisitEveryMemberOnce(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let (id, _) = try await client.createGroup(ada)
            try await Self.seed(repository, team: id, count: 249)
            try await Self.addPending(repository, team: id, every: 7)
            let expected = try await Self.expected(repository, team: id)
            #expect(expected.count == 250)

            let base = "/v1/groups/\(id)/members?limit=40"
            let byDistance = try await Self.all(client, token: ada, base)
            #expect(byDistance.count == 7, "250 members, 40 a page")
            #expect(byDistance.allSatisfy { $0.memberCount == 250 })
            let members = byDistance.flatMap(\.members)
            #expect(members.map(\.username) == expected.map(\.username), "every member once, in exact order")
            #expect(members.map(\.distanceM) == expected.map { Double($0.mm) / 1000 })
            #expect(members.map(\.rank) == (1...250).map { Int64($0) })
            #expect(byDistance.dropLast().allSatisfy { $0.members.count == 40 && $0.nextCursor != nil })

            // The progress's first page and its cursor continue into the same list.
            let progress = try await client.call(.get, "/v1/groups/\(id)/progress", token: ada).decode(
                ProgressView.self)
            #expect(progress.members.map(\.username) == Array(expected.prefix(50)).map(\.username))
            #expect(progress.memberCount == 250)
            let cursor = try #require(progress.nextCursor)
            let after = try await client.call(.get, "/v1/groups/\(id)/members?limit=200&cursor=\(cursor)", token: ada)
            let continued = try after.decode(MemberPage.self)
            #expect(continued.members.map(\.username) == expected.dropFirst(50).map(\.username))
            #expect(continued.members.first?.rank == 51 && continued.nextCursor == nil)

            // A roll-up in between changes nothing shown.
            try await repository.rollUp(all: true)
            #expect(try await Self.all(client, token: ada, base).flatMap(\.members) == members)

            // Rotation: the owner first (turn 0), then by turn; name order: by name key.
            let byTurn = try await Self.all(client, token: ada, base + "&order=rotation").flatMap(\.members)
            #expect(byTurn.count == 250 && byTurn.first?.username == "ada")
            #expect(zip(byTurn, byTurn.dropFirst()).allSatisfy { $0.turn < $1.turn })
            #expect(byTurn.allSatisfy { $0.rank == nil })
            let byName = try await Self.all(client, token: ada, base + "&order=name").flatMap(\.members)
            #expect(byName.map(\.username) == expected.map(\.username).sorted { $0.lowercased() < $1.lowercased() })
        }
    }

    @Test(
        "A cursor that is not a next_cursor, or is another list's, is a 422 invalid_cursor; so are bad limits and orders",
        arguments: Backend.available)
    func invalidCursors422(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let cyd = try await client.signUp("cyd")
            let (id, _) = try await client.createGroup(ada)
            let members = "/v1/groups/\(id)/members"
            let junk = [
                "", "x", "m1", "m1.1.2", "m1.1.2.3.4", "m1.01.2.3", "m1.+1.2.3", "m1.1.0.1", "m1.1.2.0", "m1..2.3",
                "m2.1.2.3", "M1.1.2.3", "m1.1.2.3%20", "m1.%D9%A1.2.3", "n1.zz.1", "n1.ff.1", "n1.6.1", "n1.6A.1",
                "r1.1", "l1.1.-2", "m1.99999999999999999999.2.3", "m1.0.1.9223372036854775807",
                String(repeating: "1", count: 500),
            ]
            for cursor in junk {
                let reply = try await client.call(.get, "\(members)?cursor=\(cursor)", token: ada)
                #expect(reply.status == .unprocessableContent && reply.errorCode == "invalid_cursor", "\(cursor)")
                #expect(reply.errorMessage.contains("next_cursor"), "the message says what a cursor is")
            }
            // Real cursors of another list.
            for (uri, cursor) in [
                (members, "r1.0.1"), (members + "?order=rotation", "m1.0.1.1"), (members + "?q=a", "m1.0.1.1"),
                ("/v1/groups/\(id)/legs", "m1.0.1.1"), (members, "l1.5.1"),
            ] {
                let reply = try await client.call(
                    .get, uri + (uri.contains("?") ? "&" : "?") + "cursor=\(cursor)", token: ada)
                #expect(
                    reply.status == .unprocessableContent && reply.errorCode == "invalid_cursor", "\(uri) \(cursor)")
                #expect(reply.errorMessage.contains("not the"), "\(reply.errorMessage)")
            }
            for (query, code) in [
                ("limit=0", "invalid_limit"), ("limit=201", "invalid_limit"), ("limit=x", "invalid_limit"),
                ("order=fastest", "invalid_order"), ("order=rotation&q=a", "invalid_order"),
                ("q=" + String(repeating: "a", count: 65), "invalid_query"),
            ] {
                let reply = try await client.call(.get, "\(members)?\(query)", token: ada)
                #expect(reply.status == .unprocessableContent && reply.errorCode == code, "\(query): \(reply.text)")
            }
            let legs = try await client.call(.get, "/v1/groups/\(id)/legs?limit=101", token: ada)
            #expect(legs.status == .unprocessableContent && legs.errorCode == "invalid_limit")
            // A valid cursor answers nothing of a group the caller is not in.
            for uri in ["\(members)?cursor=m1.0.1.1", "/v1/groups/\(id)/legs?cursor=l1.5.1"] {
                let outsider = try await client.call(.get, uri, token: cyd)
                #expect(outsider.status == .notFound, "\(uri)")
            }
            // The group page: a broken "Next" link is a page that says so and links back.
            let (_, cookie) = try await client.webSignIn("ada")
            let page = try await client.call(.get, "/groups/\(id)?after=m1.1.2", headers: [.cookie: cookie])
            #expect(page.status == .unprocessableContent && page.text.contains("href=\"/groups/\(id)\""))
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            // A control character in a search is refused in words, as a page and as JSON.
            let control = try await client.call(.get, "/groups/\(id)?q=a%00b", headers: [.cookie: cookie])
            #expect(control.status == .badRequest && control.text.contains("U+0000"))
            #expect(control.headers[.contentType] == "text/html; charset=utf-8")
            let json = try await client.call(.get, "\(members)?q=%E2%80%AEa", token: ada)
            #expect(json.status == .badRequest && json.errorCode == "invalid_text", "\(json.text)")
        }
    }

    @Test(
        "Every member's place is exact with pending tally rows, checked against a brute-force ranking",
        arguments: Backend.available)
    func placeIsExactWithPending(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let (id, _) = try await client.createGroup(ada)
            // Few distinct distances, so that many places are decided by account id.
            try await Self.seed(repository, team: id, count: 299, modulo: 5_000)
            try await Self.addPending(repository, team: id, every: 3)
            let expected = try await Self.expected(repository, team: id)
            let now = harness.clock.now
            let places = try await repository.database.read { db in
                var places: [Int64: Int64] = [:]
                for member in expected {
                    let week = weekStart(now)
                    let pending = try await StoreRepository.pendingMembers(db, team: Int64(id), week: week)
                    let row = try await StoreRepository.place(
                        db, team: Int64(id), account: member.account, week: week, pending: pending)
                    places[member.account] = row.member?.rank
                    #expect(row.count == 300)
                }
                return places
            }
            for (index, member) in expected.enumerated() {
                #expect(places[member.account] == Int64(index + 1), "\(member.username) at \(member.mm) mm")
            }
            // The viewer's own row, through the API, before and after a roll-up.
            let adaPlace = Int64(try #require(expected.firstIndex { $0.username == "ada" }) + 1)
            for _ in 0..<2 {
                let progress = try await client.call(.get, "/v1/groups/\(id)/progress", token: ada).decode(
                    ProgressView.self)
                #expect(progress.me?.username == "ada" && progress.me?.rank == adaPlace)
                try await repository.rollUp(all: true)
            }
            // ada's own upload is pending: her place moves at once.
            try await repository.database.write { db in
                try await db.query(
                    "INSERT INTO tally (team_id, account_id, distance_mm, runs) VALUES (?, ?, 20000, 1)", id,
                    try #require(expected.first { $0.username == "ada" }).account)
            }
            let moved = try await Self.expected(repository, team: id)
            let progress = try await client.call(.get, "/v1/groups/\(id)/progress", token: ada).decode(
                ProgressView.self)
            #expect(progress.me?.rank == Int64(try #require(moved.firstIndex { $0.username == "ada" }) + 1))
            #expect(progress.members.map(\.username) == moved.prefix(50).map(\.username))
        }
    }
}
