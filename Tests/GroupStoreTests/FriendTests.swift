import Foundation
import HTTPTypes
import HandoffAPI
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
