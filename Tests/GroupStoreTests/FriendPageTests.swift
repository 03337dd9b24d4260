import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Testing

@testable import GroupStore

/// The friends page and the feed page: statuses, redirects and what each person is shown.
@Suite("The friends page and the feed page")
struct FriendPageTests {
    @Test(
        "Ask by name, accept, see the friend's run in the feed, toggle to one's own, block and unblock; refusals on the page",
        arguments: Backend.available)
    func pages(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let adaID = try #require(try await client.call(.get, "/v1/me", token: ada).json["id"] as? Int)
            let bobID = try #require(try await client.call(.get, "/v1/me", token: bob).json["id"] as? Int)
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            let run = UUID().uuidString.lowercased()
            #expect(try await client.upload(bob, uuid: run, file: RunFiles.fit(start: start)).status == .created)
            let adaCookie = try await client.webSignIn("ada").cookie
            let bobCookie = try await client.webSignIn("bob").cookie
            for path in ["/feed", "/friends"] {
                let page = try await client.call(.get, path, headers: [.cookie: adaCookie])
                #expect(page.status == .ok && page.headers[.contentType] == "text/html; charset=utf-8", "\(path)")
                #expect(try await client.call(.get, path).status == .seeOther, "\(path) signed out")
            }
            #expect(
                !(try await client.call(.get, "/feed", headers: [.cookie: adaCookie]).text.contains("bob")),
                "not friends yet")

            // Asking: the name as typed comes back with the refusal.
            let nobody = try await AccountPageTests.post(client, "/friends", ["username": "nobody"], cookie: adaCookie)
            #expect(nobody.status == .notFound && nobody.text.contains("value=\"nobody\""))
            let me = try await AccountPageTests.post(client, "/friends", ["username": "ada"], cookie: adaCookie)
            #expect(me.status == .unprocessableContent)
            let asked = try await AccountPageTests.post(client, "/friends", ["username": "bob"], cookie: adaCookie)
            #expect(asked.status == .seeOther && asked.headers[.location] == "/friends?done=asked")
            let bobsPage = try await client.call(.get, "/friends", headers: [.cookie: bobCookie]).text
            #expect(bobsPage.contains("action=\"/friends/\(adaID)/accept\""))
            let accepted = try await client.call(.post, "/friends/\(adaID)/accept", headers: [.cookie: bobCookie])
            #expect(accepted.status == .seeOther && accepted.headers[.location] == "/friends?done=accept")

            // The friend's run in the feed (bob's default lets friends see it), with its page.
            let feed = try await client.call(.get, "/feed", headers: [.cookie: adaCookie]).text
            #expect(feed.contains(">bob</a></strong>") && feed.contains("href=\"/runs/\(run)\""))
            let mine = try await AccountPageTests.post(client, "/feed/scope", ["scope": "mine"], cookie: adaCookie)
            #expect(mine.status == .seeOther && mine.headers[.location] == "/feed")
            let own = try await client.call(.get, "/feed", headers: [.cookie: adaCookie]).text
            #expect(!own.contains(">bob</a></strong>") && own.contains("value=\"everyone\""), "remembered")
            _ = try await AccountPageTests.post(client, "/feed/scope", ["scope": "everyone"], cookie: adaCookie)
            #expect(
                try await client.call(.get, "/feed?after=nonsense", headers: [.cookie: adaCookie]).status
                    == .unprocessableContent)

            // Blocking from the page: the run leaves the feed; unblocking does not bring the friendship back.
            let blocked = try await client.call(.post, "/friends/\(bobID)/block", headers: [.cookie: adaCookie])
            #expect(blocked.status == .seeOther && blocked.headers[.location] == "/friends?done=block")
            #expect(
                !(try await client.call(.get, "/feed", headers: [.cookie: adaCookie]).text.contains(">bob</a></strong>"))
            )
            #expect(
                try await client.call(.post, "/friends/\(bobID)/unblock", headers: [.cookie: adaCookie]).status
                    == .seeOther)
            #expect(try await client.call(.get, "/v1/friends", token: ada).decode(FriendList.self).friends.isEmpty)

            // Buttons for nothing, another's id, or from another site.
            for action in ["accept", "remove", "unblock"] {
                #expect(
                    try await client.call(.post, "/friends/\(bobID)/\(action)", headers: [.cookie: adaCookie]).status
                        == .notFound, "\(action)")
            }
            #expect(
                try await client.call(.post, "/friends/999999/block", headers: [.cookie: adaCookie]).status
                    == .notFound)
            #expect(
                try await client.call(.post, "/friends/\(adaID)/block", headers: [.cookie: adaCookie]).status
                    == .unprocessableContent)
            #expect(
                try await client.call(
                    .post, "/friends/\(bobID)/block", headers: [.cookie: adaCookie, .origin: "https://evil.example"]
                ).status == .forbidden)
            #expect(try await client.call(.post, "/friends/\(bobID)/block").status == .seeOther, "signed out")
        }
    }
}
