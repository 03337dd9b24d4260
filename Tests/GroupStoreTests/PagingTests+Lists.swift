import Foundation
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import Testing

@testable import GroupStore

extension PagingTests {
    @Test(
        "A search by the start of a name, in any case or Unicode spelling, finds exactly those members, a page at a time",
        arguments: Backend.available)
    func searchByNameStart(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let (id, _) = try await client.createGroup(ada)
            try await Self.seed(repository, team: id, count: 249)
            let names = try await Self.expected(repository, team: id).map(\.username)
            let base = "/v1/groups/\(id)/members?limit=40"

            let found = try await Self.all(client, token: ada, base + "&q=RUNNER1")
            let wanted = names.filter { $0.lowercased().hasPrefix("runner1") }.sorted {
                $0.lowercased() < $1.lowercased()
            }
            #expect(wanted.count == 111, "runner1, runner10…19, runner100…199")
            #expect(found.flatMap(\.members).map(\.username) == wanted)
            #expect(found.count == 3 && found.allSatisfy { $0.memberCount == 250 })
            #expect(found.flatMap(\.members).allSatisfy { $0.rank == nil })
            // Fullwidth letters fold to the same key; `%` and `_` are letters, not wildcards.
            let wide = try await client.call(
                .get, base + "&q=%EF%BC%B2%EF%BC%B5%EF%BC%AE%EF%BC%AE%EF%BC%A5%EF%BC%B21", token: ada)
            #expect(try wide.decode(MemberPage.self).members.map(\.username) == Array(wanted.prefix(40)))
            for q in ["%25", "_", "runner1%25", "zz", "runner2499"] {
                let none = try await client.call(.get, base + "&q=\(q)", token: ada).decode(MemberPage.self)
                #expect(none.members.isEmpty && none.nextCursor == nil, "\(q)")
            }
            #expect(try await Self.all(client, token: ada, base + "&q=").flatMap(\.members).count == 250)

            // A new username is found by its new start at once.
            let change = AccountChange(username: "Zelda", currentPassword: "correct horse battery")
            #expect(try await client.call(.patch, "/v1/me", token: ada, send: change).status == .ok)
            let zel = try await client.call(.get, base + "&q=zel", token: ada).decode(MemberPage.self)
            #expect(zel.members.map(\.username) == ["Zelda"])
            #expect(try await client.call(.get, base + "&q=ada", token: ada).decode(MemberPage.self).members.isEmpty)
        }
    }

    @Test(
        "Legs come newest first, 20 with the progress and the baton, then a page at a time, each once (legs taken at one moment too)",
        arguments: Backend.available)
    func legsPaged(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let (id, _) = try await client.createGroup(ada)
            let expected = try await repository.database.write { db in
                let adaID = try #require(try await db.one("SELECT id FROM account WHERE username = 'ada'")).int("id")
                for i in 0..<45 {
                    // Three legs taken at each moment.
                    let taken = Int64(1_790_000_000 + i / 3) * 1_000_000_000
                    try await db.query(
                        """
                        INSERT INTO leg (team_id, account_id, taken_ns, ended_ns, ended_how, distance_mm, runs)
                        VALUES (?, ?, ?, ?, 'released', ?, 1)
                        """, id, adaID, taken, taken + 500, Int64(i) * 100)
                }
                let pending = try #require(try await db.one("SELECT max(id) AS id FROM leg")).int("id")
                try await db.query(
                    "INSERT INTO tally (team_id, account_id, leg_id, distance_mm, runs) VALUES (?, ?, ?, 5000, 1)", id,
                    adaID, pending)
                return try await db.query(
                    "SELECT id FROM leg WHERE team_id = ? ORDER BY taken_ns DESC, id DESC", id
                ).map { try $0.int("id") }
            }
            var legs: [LegView] = []
            var cursor: String?
            repeat {
                let reply = try await client.call(
                    .get, "/v1/groups/\(id)/legs?limit=7" + (cursor.map { "&cursor=\($0)" } ?? ""), token: ada)
                try #require(reply.status == .ok, "\(reply.text)")
                let page = try reply.decode(LegPage.self)
                legs += page.legs
                cursor = page.nextCursor
            } while cursor != nil && legs.count < 100
            #expect(legs.map(\.id) == expected)
            #expect(legs.first?.distanceM == 9.4, "a leg's pending distance counts at once")

            let progress = try await client.call(.get, "/v1/groups/\(id)/progress", token: ada).decode(
                ProgressView.self)
            #expect(progress.legs.map(\.id) == Array(expected.prefix(20)))
            let baton = try await client.call(.get, "/v1/groups/\(id)/baton", token: ada).decode(BatonState.self)
            #expect(baton.legs == progress.legs && baton.legsNextCursor == progress.legsNextCursor)
            let next = try #require(progress.legsNextCursor)
            let rest = try await client.call(.get, "/v1/groups/\(id)/legs?limit=100&cursor=\(next)", token: ada)
            let page = try rest.decode(LegPage.self)
            #expect(page.legs.map(\.id) == Array(expected.dropFirst(20)) && page.nextCursor == nil)
        }
    }

    @Test(
        "The rotation's reply holds its first 200 members and a cursor on to the rest, in the order set",
        arguments: Backend.available)
    func rotationPaged(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let (id, _) = try await client.createGroup(ada)
            try await Self.seed(repository, team: id, count: 450)
            let order = try await Self.expected(repository, team: id).map(\.username).shuffled()
            let reply = try await client.call(
                .put, "/v1/groups/\(id)/rotation", token: ada, send: Rotation(members: order))
            try #require(reply.status == .ok, "\(reply.text)")
            let first = try reply.decode(MemberList.self)
            #expect(first.members.map(\.username) == Array(order.prefix(200)))
            #expect(first.members.map(\.turn) == (0..<200).map { Int64($0) })
            var all = first.members
            var cursor = first.nextCursor
            while let next = cursor, all.count < 1000 {
                let page = try await client.call(
                    .get, "/v1/groups/\(id)/members?order=rotation&limit=200&cursor=\(next)", token: ada
                ).decode(MemberPage.self)
                all += page.members
                cursor = page.nextCursor
            }
            #expect(all.map(\.username) == order)

            // The baton follows the rotation without reading the whole group.
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/take", token: ada).status == .ok)
            let passed = try await client.call(.post, "/v1/groups/\(id)/baton/pass", token: ada)
            let adaTurn = try #require(order.firstIndex(of: "ada"))
            #expect(try passed.decode(BatonView.self).holder == order[(adaTurn + 1) % order.count])
        }
    }

    /// The `href` of a page's "Next →" link, as a browser follows it.
    static func nextLink(_ html: String) -> String? {
        guard let end = html.range(of: "\" rel=\"next\""),
            let start = html[..<end.lowerBound].range(of: "href=\"", options: .backwards)
        else { return nil }
        return String(html[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The rows of the page's members table, its header included.
    static func memberRows(_ html: String) -> Int {
        guard let table = html.range(of: "<table id=\"members\">"),
            let end = html[table.upperBound...].range(of: "</table>")
        else { return 0 }
        return html[table.lowerBound..<end.lowerBound].components(separatedBy: "<tr").count - 1
    }

    @Test(
        "At 10,000 members the progress, a page of members and the group's pages each stay under 100 KB, with the viewer's exact place",
        arguments: Backend.available)
    func boundedAt10kMembers(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let (id, _) = try await client.createGroup(ada)
            try await Self.seed(repository, team: id, count: 10_000, modulo: 100_000_000)
            try await Self.addPending(repository, team: id, every: 997)
            let expected = try await Self.expected(repository, team: id)
            let place = try #require(expected.firstIndex { $0.username == "ada" }) + 1

            let reply = try await client.call(.get, "/v1/groups/\(id)/progress", token: ada)
            #expect(reply.body.count < 100_000, "progress: \(reply.body.count) bytes")
            let progress = try reply.decode(ProgressView.self)
            #expect(progress.members.count == 50 && progress.memberCount == 10_001)
            #expect(progress.members.map(\.username) == expected.prefix(50).map(\.username))
            #expect(progress.me?.rank == Int64(place))
            let members = try await client.call(.get, "/v1/groups/\(id)/members?limit=200", token: ada)
            #expect(members.body.count < 100_000, "members: \(members.body.count) bytes")

            let (_, cookie) = try await client.webSignIn("ada")
            let page = try await client.call(.get, "/groups/\(id)", headers: [.cookie: cookie])
            #expect(page.status == .ok && page.body.count < 100_000, "the group page: \(page.body.count) bytes")
            #expect(page.text.contains("Your place: <strong>#\(place)</strong> of 10001"))
            #expect(Self.memberRows(page.text) == 1 + 10 + 2, "a header, the top 10, a gap and the viewer")
            #expect(page.text.contains("<tr class=\"me\"><td class=\"n\">\(place)</td><td>ada (owner)</td>"))
            #expect(page.text.contains("action=\"/groups/\(id)\" id=\"search\""))
            let second = try await client.call(
                .get, try #require(Self.nextLink(page.text)), headers: [.cookie: cookie])
            #expect(second.status == .ok && second.body.count < 100_000, "\(second.body.count) bytes")
            #expect(Self.memberRows(second.text) == 51)
            #expect(second.text.contains("<td class=\"n\">11</td><td>\(expected[10].username) <form"))
            #expect(second.text.contains("<a href=\"/groups/\(id)\">Top</a>") && Self.nextLink(second.text) != nil)

            let search = try await client.call(.get, "/groups/\(id)?q=Runner12", headers: [.cookie: cookie])
            #expect(search.status == .ok && search.body.count < 100_000)
            #expect(search.text.contains("value=\"Runner12\"") && Self.memberRows(search.text) == 51)
            let more = try #require(Self.nextLink(search.text))
            #expect(more.hasPrefix("/groups/\(id)?q=Runner12&after=n1."))
            let found = try await client.call(.get, more, headers: [.cookie: cookie])
            #expect(found.status == .ok && Self.memberRows(found.text) == 51, "runner12, 120…129, 1200…1299: 111")
            let nobody = try await client.call(.get, "/groups/\(id)?q=%3Cb%3E", headers: [.cookie: cookie])
            #expect(nobody.text.contains("name starts with “&lt;b&gt;”."), "the search is escaped")
        }
    }
}
