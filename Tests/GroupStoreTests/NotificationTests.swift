import Foundation
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import Testing

@testable import GroupStore

/// Each person's notifications (issue 35), as a table of who is told what: the baton passed to
/// them, the baton free in their group, a friend's ask, kudos and comments on their runs, their
/// group's goal; never what they did themselves, nor what someone they blocked did; and only
/// their own, through the API and the page.
@Suite("Notifications")
struct NotificationTests {
    static func list(
        _ client: any TestClientProtocol, _ token: String, query: String = ""
    ) async throws
        -> NotificationList
    {
        let reply = try await client.call(.get, "/v1/notifications" + query, token: token)
        #expect(reply.status == .ok, "\(reply.text)")
        return try reply.decode(NotificationList.self)
    }

    /// "kind actor" for each of the person's notifications, oldest first.
    static func told(_ client: any TestClientProtocol, _ token: String) async throws -> [String] {
        try await list(client, token).notifications.reversed().map { "\($0.kind) \($0.actor ?? "-")" }
    }

    @Test(
        "who is told what: passed, set down, run out, asked, kudos (once, and taken back), comments, the goal; blocked people's doings never",
        arguments: Backend.available)
    func table(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let cleo = try await client.signUp("cleo")
            let dan = try await client.signUp("dan")
            let group = try await client.createGroup(ada, name: "Night <owls>", goal: 2_000, lease: 1)
            try await client.join(bob, group.invite)
            try await client.join(cleo, group.invite)
            #expect(
                try await client.call(.post, "/v1/blocks", token: cleo, send: FriendAsk(username: "bob")).status
                    == .noContent)
            let baton = "/v1/groups/\(group.id)/baton"

            #expect(try await client.call(.post, baton + "/take", token: bob).status == .ok)
            #expect(try await client.call(.post, baton + "/pass", token: bob, send: BatonPass(to: "ada")).status == .ok)
            #expect(try await client.call(.post, baton + "/release", token: ada).status == .noContent)
            #expect(try await client.call(.post, baton + "/take", token: bob).status == .ok)
            harness.clock.advance(seconds: 3_700)  // bob's one-hour lease runs out; the next write says so
            #expect(try await client.call(.get, baton, token: ada).status == .ok)
            #expect(try await client.call(.post, baton + "/take", token: ada).status == .ok)
            // ada passes to bob (told), bob to cleo (not told: she blocked him).
            #expect(try await client.call(.post, baton + "/pass", token: ada, send: BatonPass(to: "bob")).status == .ok)
            #expect(
                try await client.call(.post, baton + "/pass", token: bob, send: BatonPass(to: "cleo")).status == .ok)
            #expect(
                try await client.call(.post, "/v1/friends", token: dan, send: FriendAsk(username: "ada")).status == .ok)

            // bob's run reaches the group's goal; ada gives kudos twice, takes them back, gives again.
            let run = UUID().uuidString.lowercased()
            let start = harness.clock.now.advanced(byNanoseconds: -1_200 * nanosecondsPerSecond)
            #expect(
                try await client.upload(bob, uuid: run, file: RunFiles.fit(start: start, seconds: 1_000, speed: 3))
                    .status == .created)
            for _ in 0..<2 { #expect(try await client.call(.post, "/v1/runs/\(run)/kudos", token: ada).status == .ok) }
            #expect(try await client.call(.delete, "/v1/runs/\(run)/kudos", token: ada).status == .ok)
            #expect(try await client.call(.post, "/v1/runs/\(run)/kudos", token: ada).status == .ok)
            for token in [ada, bob] {
                let comment = try await client.call(
                    .post, "/v1/runs/\(run)/comments", token: token, send: CommentBody(text: "Strong <b>finish</b>"))
                #expect(comment.status == .created)
            }

            #expect(
                try await Self.told(client, ada) == [
                    "baton_passed bob", "baton_expired bob", "friend_request dan", "goal_reached -",
                ])
            #expect(
                try await Self.told(client, bob) == [
                    "baton_released ada", "baton_passed ada", "goal_reached -", "kudos ada", "comment ada",
                ])
            // cleo blocked bob: his expired baton is not news to her; ada's release is.
            #expect(try await Self.told(client, cleo) == ["baton_released ada", "goal_reached -"])
            #expect(try await Self.told(client, dan) == [], "not in the group: nothing of it")

            // In words, with the page each is about; markup in a group's name is only text.
            let bobs = try await Self.list(client, bob)
            #expect(bobs.unread == 5 && bobs.next == nil)
            let words = Dictionary(uniqueKeysWithValues: bobs.notifications.map { ($0.kind, $0) })
            #expect(words["baton_released"]?.text == "ada set the baton down in Night <owls>: it is free.")
            #expect(
                words["baton_released"]?.href == "/groups/\(group.id)"
                    && words["baton_released"]?.group == Int64(group.id))
            #expect(words["kudos"]?.text.hasPrefix("ada gave kudos to your run of ") == true)
            #expect(words["kudos"]?.href == "/runs/\(run)" && words["kudos"]?.run == run)
            #expect(words["comment"]?.href == "/runs/\(run)#responses")
            #expect(words["goal_reached"]?.text == "Night <owls> reached its goal, thanks to everyone who ran for it.")
            let raw = try await client.call(.get, "/v1/notifications?limit=1", token: bob)
            let first = try #require((raw.json["notifications"] as? [[String: Any]])?.first)
            #expect(first["group"] is NSNull && first["read"] as? Bool == false, "every key, null where nothing")

            // Pages of them, and read up to a number; then all.
            let page1 = try await Self.list(client, bob, query: "?limit=3")
            #expect(page1.notifications.count == 3 && page1.next == page1.notifications.last?.id)
            let page2 = try await Self.list(client, bob, query: "?limit=3&before=\(page1.next ?? 0)")
            #expect(page2.notifications.map(\.kind) == ["baton_passed", "baton_released"] && page2.next == nil)
            let upTo = try #require(page2.notifications.first?.id)
            let marked = try await client.call(
                .post, "/v1/notifications/read", token: bob, send: NotificationsRead(upTo: upTo))
            #expect(try marked.decode(NotificationCount.self).unread == 3)
            #expect(try await Self.list(client, bob).notifications.map(\.read) == [false, false, false, true, true])
            let all = try await client.call(.post, "/v1/notifications/read", token: bob, json: [String: Int]())
            #expect(try all.decode(NotificationCount.self).unread == 0)
            #expect(try await Self.list(client, ada).unread == 4, "bob's reading is bob's alone")

            // ada blocks dan: his ask is no longer news to her.
            #expect(
                try await client.call(.post, "/v1/blocks", token: ada, send: FriendAsk(username: "dan")).status
                    == .noContent)
            #expect(try await Self.told(client, ada) == ["baton_passed bob", "baton_expired bob", "goal_reached -"])

            // Refusals.
            let bad = try await client.call(.get, "/v1/notifications?before=0", token: ada)
            #expect(bad.status == .unprocessableContent && bad.errorCode == "invalid_before")
            #expect(try await client.call(.get, "/v1/notifications?limit=201", token: ada).errorCode == "invalid_limit")
            let zero = try await client.call(
                .post, "/v1/notifications/read", token: ada, send: NotificationsRead(upTo: 0))
            #expect(zero.status == .unprocessableContent && zero.errorCode == "invalid_up_to")
            #expect(try await client.call(.get, "/v1/notifications").status == .unauthorized)
            let device = try await DeviceTests.link(client, ada)
            #expect(try await client.call(.get, "/v1/notifications", token: device).errorCode == "wrong_scope")
            #expect(
                try await client.call(.post, "/v1/notifications/read", token: device, json: [String: Int]()).errorCode
                    == "wrong_scope")
        }
    }

    @Test(
        "the page: newest first, the unread marked, the count in every page's header, marked read up to the newest shown",
        arguments: Backend.available)
    func page(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let group = try await client.createGroup(ada, name: "Night <owls>", goal: 100_000)
            try await client.join(bob, group.invite)
            let cookie = try await client.webSignIn("bob").cookie
            let empty = try await client.call(.get, "/notifications", headers: [.cookie: cookie])
            #expect(empty.status == .ok && empty.text.contains("Nothing yet."))
            #expect(
                empty.text.contains(#"<a href="/notifications" class="bell" aria-current="page">Notifications</a>"#))

            #expect(try await client.call(.post, "/v1/groups/\(group.id)/baton/take", token: ada).status == .ok)
            #expect(
                try await client.call(
                    .post, "/v1/groups/\(group.id)/baton/pass", token: ada, send: BatonPass(to: "bob")
                )
                .status == .ok)
            let home = try await client.call(.get, "/", headers: [.cookie: cookie]).text
            #expect(
                home.contains(
                    #"class="bell">Notifications <span class="count" aria-hidden="true">1</span><span class="visually-hidden">, 1 unread</span></a>"#
                ), "the header's count")
            let page = try await client.call(.get, "/notifications", headers: [.cookie: cookie]).text
            #expect(page.contains("<title>Notifications (1 unread) · Handoff</title>"))
            #expect(
                page.contains(
                    #"<li class="unread"><a href="/groups/\#(group.id)">ada passed you the baton in Night &lt;owls&gt;: it is yours.</a>"#
                ))
            let newest = try #require(try await NotificationTests.list(client, bob).notifications.first?.id)
            #expect(page.contains(#"name="up_to" value="\#(newest)""#))

            // Something new after the page was drawn stays unread when the page's button is pressed.
            #expect(
                try await client.call(.post, "/v1/groups/\(group.id)/baton/release", token: bob).status == .noContent)
            #expect(try await client.call(.post, "/v1/groups/\(group.id)/baton/take", token: ada).status == .ok)
            #expect(
                try await client.call(.post, "/v1/groups/\(group.id)/baton/release", token: ada).status == .noContent)
            let marked = try await AccountPageTests.post(
                client, "/notifications/read", ["up_to": "\(newest)"], cookie: cookie)
            #expect(marked.status == .seeOther && marked.headers[.location] == "/notifications")
            #expect(try await NotificationTests.list(client, bob).unread == 1)
            let after = try await client.call(.get, "/notifications", headers: [.cookie: cookie]).text
            #expect(after.contains("<title>Notifications (1 unread) · Handoff</title>"))
            #expect(after.contains(#"<li><a href="/groups/\#(group.id)">ada passed you the baton"#), "read: not marked")
            #expect(
                try await client.call(.get, "/notifications?before=x", headers: [.cookie: cookie]).status
                    == .unprocessableContent)
            #expect(try await client.call(.get, "/notifications").status == .seeOther, "signed out: to sign in")
        }
    }
}
