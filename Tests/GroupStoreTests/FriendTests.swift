import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Testing

@testable import GroupStore

/// Friends and blocks over the API, on both engines.
@Suite("Friends and blocks: ask, accept, decline, remove, block, unblock")
struct FriendTests {
    @Test(
        "Ask and accept; asking back befriends; remove and decline; a block ends it all and is not told",
        arguments: Backend.available)
    func friends(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let cleo = try await client.signUp("cleo")
            func list(_ token: String) async throws -> [String] {
                try await client.call(.get, "/v1/friends", token: token).decode(FriendList.self).friends.map {
                    "\($0.username):\($0.status)"
                }
            }
            let asked = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "BOB"])
            #expect(asked.status == .ok && asked.json["status"] as? String == "asked")
            #expect(try await list(ada) == ["bob:asked"])
            #expect(try await list(bob) == ["ada:asking"])
            let again = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            #expect(again.json["status"] as? String == "asked", "asking again changes nothing")
            #expect(
                try await client.call(.post, "/v1/friends/ada/accept", token: cleo).errorCode == "no_request")
            let accepted = try await client.call(.post, "/v1/friends/ada/accept", token: bob)
            #expect(accepted.status == .ok && accepted.json["status"] as? String == "friends")
            #expect(try await list(ada) == ["bob:friends"])
            #expect(try await list(bob) == ["ada:friends"])

            // Asking someone who asked you makes you friends at once.
            _ = try await client.call(.post, "/v1/friends", token: cleo, json: ["username": "ada"])
            let back = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "cleo"])
            #expect(back.json["status"] as? String == "friends")
            #expect(try await list(ada) == ["bob:friends", "cleo:friends"])

            // Removing ends it for both; declining an ask is the same call.
            #expect(try await client.call(.delete, "/v1/friends/cleo", token: ada).status == .noContent)
            #expect(try await list(cleo) == [])
            #expect(try await client.call(.delete, "/v1/friends/cleo", token: ada).errorCode == "not_friends")
            _ = try await client.call(.post, "/v1/friends", token: cleo, json: ["username": "bob"])
            #expect(try await client.call(.delete, "/v1/friends/cleo", token: bob).status == .noContent)
            #expect(try await list(cleo) == [])

            // Refusals, each with its code.
            #expect(
                try await client.call(.post, "/v1/friends", token: ada, json: ["username": "ada"]).errorCode
                    == "invalid_friend")
            let nobody = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "nobody"])
            #expect(nobody.status == .notFound && nobody.errorCode == "account_not_found")
            #expect(try await client.call(.post, "/v1/friends", token: ada, json: [:]).status == .badRequest)
            #expect(try await client.call(.get, "/v1/friends").status == .unauthorized)

            // A block ends the friendship; the blocked person's ask looks like a name nobody has.
            #expect(
                try await client.call(.post, "/v1/blocks", token: bob, json: ["username": "ada"]).status == .noContent)
            #expect(try await list(ada) == [])
            #expect(try await list(bob) == [])
            let refused = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            #expect(refused.status == .notFound && refused.errorMessage == nobody.errorMessage)
            #expect(
                try await client.call(.post, "/v1/friends", token: bob, json: ["username": "ada"]).errorCode
                    == "blocked")
            #expect(
                try await client.call(.post, "/v1/blocks", token: bob, json: ["username": "bob"]).errorCode
                    == "invalid_block")
            #expect(
                try await client.call(.post, "/v1/blocks", token: bob, json: ["username": "nobody"]).status
                    == .notFound)
            #expect(try await client.call(.delete, "/v1/blocks/ada", token: bob).status == .noContent)
            #expect(try await client.call(.delete, "/v1/blocks/ada", token: bob).errorCode == "not_blocked")
            #expect(
                try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"]).json["status"]
                    as? String == "asked", "unblocked: asking works again, nothing came back by itself")
        }
    }

    @Test("A pack's device token may not touch friends or blocks", arguments: Backend.available)
    func deviceToken(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            let ada = try await client.signUp("ada")
            _ = try await client.signUp("bob")
            let device = try await DeviceTests.link(client, ada)
            for (method, path) in [
                (HTTPRequest.Method.get, "/v1/friends"), (.delete, "/v1/friends/bob"),
                (.post, "/v1/friends/bob/accept"),
                (.delete, "/v1/blocks/bob"),
            ] {
                #expect(
                    try await client.call(method, path, token: device).errorCode == "wrong_scope", "\(method) \(path)")
            }
            for path in ["/v1/friends", "/v1/blocks"] {
                #expect(
                    try await client.call(.post, path, token: device, json: ["username": "bob"]).errorCode
                        == "wrong_scope", "\(path)")
            }
        }
    }
}

/// Who sees each run: the account's default for new runs, and each run's own choice.
@Suite("Who sees each run: the default, a run's own choice, its map never above it")
struct RunAudienceTests {
    @Test(
        "A new run takes the person's default; PATCH and the run page's form change it; a map above its run is refused",
        arguments: Backend.available)
    func audience(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bobToken = try await client.signUp("bob")
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            let first = UUID().uuidString.lowercased()
            let stored = try await client.upload(ada, uuid: first, file: RunFiles.fit(start: start))
            #expect(
                stored.json["visibility"] as? String == "groups" && stored.json["map_visibility"] as? String == "groups"
            )

            // PATCH: the map is never above the run; lowering the run takes the map down with it.
            let path = "/v1/runs/\(first)"
            let publicRun = try await client.call(.patch, path, token: ada, json: ["visibility": "public"])
            #expect(publicRun.status == .ok && publicRun.json["visibility"] as? String == "public")
            #expect(publicRun.json["map_visibility"] as? String == "groups", "the map keeps its own level")
            let above = try await client.call(
                .patch, path, token: ada, json: ["visibility": "friends", "map_visibility": "public"])
            #expect(above.status == .unprocessableContent && above.errorCode == "invalid_visibility")
            let lowered = try await client.call(.patch, path, token: ada, json: ["visibility": "private"])
            #expect(
                lowered.json["visibility"] as? String == "private"
                    && lowered.json["map_visibility"] as? String == "private")
            #expect(
                try await client.call(.patch, path, token: ada, json: ["visibility": "everyone"]).errorCode
                    == "invalid_visibility")
            let theirs = try await client.call(.patch, path, token: bobToken, json: ["visibility": "public"])
            #expect(theirs.status == .notFound && theirs.errorCode == "run_not_found", "another's run: 404, not 403")
            #expect(try await client.call(.get, path, token: ada).json["visibility"] as? String == "private")

            // The settings' default applies to new runs only.
            let cookie = try await client.webSignIn("ada").cookie
            let refused = try await AccountPageTests.post(
                client, "/settings/visibility", ["visibility": "friends", "map_visibility": "public"], cookie: cookie)
            #expect(refused.status == .unprocessableContent && refused.text.contains("no more people than the run"))
            let saved = try await AccountPageTests.post(
                client, "/settings/visibility", ["visibility": "public", "map_visibility": "friends"], cookie: cookie)
            #expect(saved.status == .seeOther && saved.headers[.location] == "/settings?done=visibility")
            let settings = try await client.call(.get, "/settings", headers: [.cookie: cookie]).text
            #expect(
                settings.contains("<option value=\"public\" selected>")
                    && settings.contains("<option value=\"friends\" selected>"))
            let second = UUID().uuidString.lowercased()
            let next = try await client.upload(
                ada, uuid: second,
                file: RunFiles.fit(start: start.advanced(byNanoseconds: 1_800 * nanosecondsPerSecond)))
            #expect(
                next.json["visibility"] as? String == "public" && next.json["map_visibility"] as? String == "friends")
            #expect(try await client.call(.get, path, token: ada).json["visibility"] as? String == "private", "kept")

            // The run page's own form.
            let page = try await client.call(.get, "/runs/\(second)", headers: [.cookie: cookie]).text
            #expect(page.contains("action=\"/runs/\(second)/visibility\""))
            let chosen = try await AccountPageTests.post(
                client, "/runs/\(second)/visibility", ["visibility": "friends", "map_visibility": "private"],
                cookie: cookie)
            #expect(chosen.status == .seeOther && chosen.headers[.location] == "/runs/\(second)")
            let after = try await client.call(.get, "/v1/runs/\(second)", token: ada)
            #expect(
                after.json["visibility"] as? String == "friends" && after.json["map_visibility"] as? String == "private"
            )
            let wrong = try await AccountPageTests.post(
                client, "/runs/\(second)/visibility", ["visibility": "private", "map_visibility": "public"],
                cookie: cookie)
            #expect(wrong.status == .unprocessableContent)
            let bobCookie = try await client.webSignIn("bob").cookie
            let notTheirs = try await AccountPageTests.post(
                client, "/runs/\(second)/visibility", ["visibility": "public", "map_visibility": "public"],
                cookie: bobCookie)
            #expect(notTheirs.status == .notFound)
        }
    }
}

/// The feed: one's own runs and the circle's, each only where its runner lets the viewer see it.
@Suite("The feed: own, friends' and group-mates' runs, as each runner lets them be seen")
struct FeedTests {
    @Test(
        "Each viewer's feed holds exactly the runs the rule lets them see from their circle, page by page; a block takes them out",
        arguments: Backend.available)
    func feed(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            var tokens: [String: String] = [:]
            for name in ["ada", "bob", "cleo", "dan"] { tokens[name] = try await client.signUp(name) }
            let (ada, bob, cleo, dan) = (tokens["ada"]!, tokens["bob"]!, tokens["cleo"]!, tokens["dan"]!)
            _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: bob)
            let (_, invite) = try await client.createGroup(ada)
            try await client.join(cleo, invite)
            harness.clock.advance(seconds: 7_200)
            // Each run: its runner, its level, its map's level; started a minute apart, in order.
            let plan: [(String, String, String, String)] = [
                ("a1", "ada", "private", "private"), ("b1", "bob", "friends", "friends"),
                ("b2", "bob", "private", "private"), ("b3", "bob", "public", "private"),
                ("c1", "cleo", "groups", "groups"), ("c2", "cleo", "friends", "friends"),
                ("d1", "dan", "public", "public"),
            ]
            var uuids: [String: String] = [:]
            for (index, (name, runner, level, map)) in plan.enumerated() {
                let uuid = UUID().uuidString.lowercased()
                let start = harness.clock.now.advanced(byNanoseconds: Int64(index * 60 - 3_600) * nanosecondsPerSecond)
                let token = tokens[runner]!
                #expect(
                    try await client.upload(token, uuid: uuid, file: RunFiles.fit(start: start, seconds: 30)).status
                        == .created)
                let changed = try await client.call(
                    .patch, "/v1/runs/\(uuid)", token: token, json: ["visibility": level, "map_visibility": map])
                #expect(changed.status == .ok)
                uuids[name] = uuid
            }
            let names = Dictionary(uniqueKeysWithValues: uuids.map { ($1, $0) })
            func feed(_ token: String, _ query: String = "") async throws -> [String] {
                var seen: [String] = []
                var cursor: String?
                repeat {
                    let path = "/v1/feed?limit=2" + query + (cursor.map { "&cursor=" + $0 } ?? "")
                    let page = try await client.call(.get, path, token: token).decode(Feed.self)
                    seen += page.runs.map { (names[$0.uuid] ?? "?") + ($0.map ? "+map" : "") }
                    cursor = page.nextCursor
                } while cursor != nil
                return seen
            }
            // Newest first. ada: her own, bob's for friends and the public one (its map private),
            // cleo's counted in their group; not cleo's for friends, not dan's.
            #expect(try await feed(ada) == ["c1+map", "b3", "b1+map", "a1+map"])
            #expect(try await feed(ada, "&scope=mine") == ["a1+map"])
            #expect(try await feed(bob) == ["b3+map", "b2+map", "b1+map"], "ada's run is private")
            #expect(try await feed(cleo) == ["c2+map", "c1+map"], "ada's run is private; bob is no friend of cleo")
            #expect(try await feed(dan) == ["d1+map"], "a stranger's public runs are not in anyone's feed")
            // bob blocks ada: nothing of his in hers, nothing of hers in his.
            _ = try await client.call(.post, "/v1/blocks", token: bob, json: ["username": "ada"])
            #expect(try await feed(ada) == ["c1+map", "a1+map"])

            #expect(try await client.call(.get, "/v1/feed?scope=all", token: ada).errorCode == "invalid_scope")
            #expect(try await client.call(.get, "/v1/feed?limit=0", token: ada).errorCode == "invalid_limit")
            #expect(try await client.call(.get, "/v1/feed?cursor=x", token: ada).errorCode == "invalid_cursor")
            #expect(try await client.call(.get, "/v1/feed").status == .unauthorized)
        }
    }
}
