import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Testing

@testable import GroupStore

/// Kudos and comments: on runs the giver may see, one kudos per person, comments edited by their
/// author and deleted by their author or the run's owner, hidden between people either blocked,
/// counted in the feed and on the owner's home page.
@Suite("Kudos and comments")
struct SocialTests {
    @Test(
        "Kudos once per person on runs they may see; comments' rules, who edits and deletes; blocks hide them; counts in the feed",
        arguments: Backend.available)
    func api(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            var tokens: [String: String] = [:]
            for name in ["ada", "bob", "cleo", "dan"] { tokens[name] = try await client.signUp(name) }
            let (ada, bob, cleo, dan) = (tokens["ada"]!, tokens["bob"]!, tokens["cleo"]!, tokens["dan"]!)
            for friend in ["bob", "cleo"] {
                _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": friend])
                _ = try await client.call(.post, "/v1/friends/ada/accept", token: tokens[friend]!)
            }
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            let uuid = UUID().uuidString.lowercased()
            #expect(try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start)).status == .created)
            let kudos = "/v1/runs/\(uuid)/kudos"
            let comments = "/v1/runs/\(uuid)/comments"

            // Kudos: once per person, not on one's own run, not on a run one may not see.
            #expect(try await client.call(.post, kudos, token: bob).decode(KudosView.self).count == 1)
            let twice = try await client.call(.post, kudos, token: bob).decode(KudosView.self)
            #expect(twice == KudosView(count: 1, given: true, from: ["bob"]))
            _ = try await client.call(.post, kudos, token: cleo)
            #expect(
                try await client.call(.get, kudos, token: ada).decode(KudosView.self)
                    == KudosView(count: 2, given: false, from: ["bob", "cleo"]))
            #expect(try await client.call(.post, kudos, token: ada).errorCode == "own_run")
            let stranger = try await client.call(.post, kudos, token: dan)
            #expect(stranger.status == .notFound && stranger.errorCode == "run_not_found", "404, not 403")
            #expect(try await client.call(.get, comments, token: dan).errorCode == "run_not_found")
            #expect(
                try await client.call(.post, comments, token: dan, json: ["text": "hi"]).errorCode == "run_not_found")
            #expect(try await client.call(.delete, kudos, token: cleo).decode(KudosView.self).count == 1)

            // Comments: plain text kept as written, line breaks included; the rules' refusals.
            let written = "Nice <b>run</b> & \"pace\"\r\nSee you Tuesday"
            let posted = try await client.call(.post, comments, token: bob, json: ["text": written])
            #expect(posted.status == .created)
            let comment = try posted.decode(CommentView.self)
            #expect(comment.text == "Nice <b>run</b> & \"pace\"\nSee you Tuesday" && comment.author == "bob")
            #expect(comment.editedAt == nil)
            for (text, code) in [
                ("  \n ", "empty_comment"), (String(repeating: "é", count: 1_001), "comment_too_long"),
                ("bell \u{7}", "invalid_text"), ("right\u{202E}left", "invalid_text"),
            ] {
                #expect(
                    try await client.call(.post, comments, token: cleo, json: ["text": text]).errorCode == code,
                    "\(code)")
            }
            #expect(
                try await client.call(
                    .post, comments, token: cleo, json: ["text": String(repeating: "é", count: 1_000)]
                )
                .status == .created)
            let path = "\(comments)/\(comment.id)"
            // Only its author edits it; its author or the run's owner deletes it.
            #expect(
                try await client.call(.patch, path, token: cleo, json: ["text": "x"]).errorCode == "comment_not_found")
            #expect(
                try await client.call(.patch, path, token: ada, json: ["text": "x"]).errorCode == "comment_not_found")
            harness.clock.advance(seconds: 60)
            let edited = try await client.call(.patch, path, token: bob, json: ["text": "Nice run"])
            #expect(try edited.decode(CommentView.self).text == "Nice run")
            #expect(try edited.decode(CommentView.self).editedAt != nil)
            #expect(try await client.call(.delete, path, token: cleo).errorCode == "comment_not_found")
            #expect(try await client.call(.patch, "\(comments)/x", token: bob, json: ["text": "x"]).status == .notFound)
            let list = try await client.call(.get, comments, token: cleo).decode(CommentList.self).comments
            #expect(list.map(\.author) == ["bob", "cleo"])

            // In the feed, as counts.
            let feed = try await client.call(.get, "/v1/feed", token: bob).decode(Feed.self)
            let item = try #require(feed.runs.first { $0.uuid == uuid })
            #expect(item.kudos == 1 && item.comments == 2)

            // cleo blocks bob: she no longer sees his comment nor counts his kudos; he still sees
            // ada's run and his comment, but not cleo's.
            _ = try await client.call(.post, "/v1/blocks", token: cleo, json: ["username": "bob"])
            #expect(
                try await client.call(.get, comments, token: cleo).decode(CommentList.self).comments.map(\.author) == [
                    "cleo"
                ])
            #expect(try await client.call(.get, kudos, token: cleo).decode(KudosView.self).count == 0)
            #expect(
                try await client.call(.get, comments, token: bob).decode(CommentList.self).comments.map(\.author) == [
                    "bob"
                ])
            let cleoFeed = try await client.call(.get, "/v1/feed", token: cleo).decode(Feed.self)
            #expect(cleoFeed.runs.first { $0.uuid == uuid }.map { [$0.kudos, $0.comments] } == [0, 1])

            // The owner deletes any comment on the run; lowering the run shuts the others out.
            #expect(try await client.call(.delete, path, token: ada).status == .noContent)
            #expect(try await client.call(.delete, path, token: bob).errorCode == "comment_not_found", "gone")
            _ = try await client.call(.patch, "/v1/runs/\(uuid)", token: ada, json: ["visibility": "private"])
            #expect(try await client.call(.get, comments, token: bob).errorCode == "run_not_found")
            #expect(try await client.call(.post, kudos, token: bob).errorCode == "run_not_found")
            #expect(try await client.call(.get, comments, token: ada).decode(CommentList.self).comments.count == 1)

            // A pack's token may not; an unknown uuid is the same 404.
            let device = try await DeviceTests.link(client, bob)
            #expect(try await client.call(.post, kudos, token: device).errorCode == "wrong_scope")
            #expect(try await client.call(.get, comments, token: device).errorCode == "wrong_scope")
            let none = "/v1/runs/\(UUID().uuidString.lowercased())/kudos"
            #expect(try await client.call(.post, none, token: bob).errorCode == "run_not_found")
            #expect(try await client.call(.get, kudos).status == .unauthorized)

            // A deleted account's kudos and comments go with it.
            _ = try await client.call(.patch, "/v1/runs/\(uuid)", token: ada, json: ["visibility": "friends"])
            #expect(try await client.call(.get, kudos, token: ada).decode(KudosView.self).from == ["bob"])
            #expect(
                try await client.call(.delete, "/v1/me", token: bob, json: ["password": "correct horse battery"])
                    .status == .noContent)
            #expect(try await client.call(.get, kudos, token: ada).decode(KudosView.self).count == 0)
        }
    }

    @Test(
        "On the pages: kudos and comment forms for a friend, markup shown as text, edit and delete; the owner's home page counts what is new",
        arguments: Backend.available)
    func pages(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            _ = try await client.signUp("dan")
            _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: bob)
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            let uuid = UUID().uuidString.lowercased()
            #expect(try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start)).status == .created)
            let adaCookie = try await client.webSignIn("ada").cookie
            let bobCookie = try await client.webSignIn("bob").cookie
            let danCookie = try await client.webSignIn("dan").cookie
            let page = "/runs/\(uuid)"

            let before = try await client.call(.get, page, headers: [.cookie: bobCookie]).text
            #expect(before.contains("No kudos yet.") && before.contains("action=\"\(page)/comments\""))
            #expect(before.contains("Give kudos"))
            let own = try await client.call(.get, page, headers: [.cookie: adaCookie]).text
            #expect(!own.contains("Give kudos"), "not on one's own run")
            #expect(
                !(try await client.call(.get, "/", headers: [.cookie: adaCookie]).text.contains("id=\"reactions\"")))

            let given = try await AccountPageTests.post(client, "\(page)/kudos", ["give": "yes"], cookie: bobCookie)
            #expect(given.status == .seeOther && given.headers[.location] == "\(page)#responses")
            let sent = try await AccountPageTests.post(
                client, "\(page)/comments", ["text": "<script>alert(1)</script> fast!"], cookie: bobCookie)
            #expect(sent.status == .seeOther)
            let anchor = try #require(sent.headers[.location]?.split(separator: "#").last.map(String.init))
            let id = try #require(anchor.split(separator: "-").last.map(String.init))
            let after = try await client.call(.get, page, headers: [.cookie: bobCookie]).text
            #expect(after.contains("1 kudos, from bob.") && after.contains("Take back your kudos"))
            #expect(after.contains("&lt;script&gt;alert(1)&lt;/script&gt; fast!") && !after.contains("<script>alert"))
            #expect(after.contains("action=\"\(page)/comments/\(id)/edit\""))
            let empty = try await AccountPageTests.post(client, "\(page)/comments", ["text": " "], cookie: bobCookie)
            #expect(empty.status == .unprocessableContent && empty.text.contains("the comment is empty"))
            let stranger = try await AccountPageTests.post(client, "\(page)/kudos", ["give": "yes"], cookie: danCookie)
            #expect(stranger.status == .notFound)

            // The owner: a count on the home page until marked seen; may delete, not edit.
            let home = try await client.call(.get, "/", headers: [.cookie: adaCookie]).text
            #expect(
                home.contains("2 new kudos and comments on your runs") && home.contains("bob commented on your run"))
            let seen = try await client.call(.post, "/responses/seen", headers: [.cookie: adaCookie])
            #expect(seen.status == .seeOther && seen.headers[.location] == "/")
            #expect(
                !(try await client.call(.get, "/", headers: [.cookie: adaCookie]).text.contains("id=\"reactions\"")))
            let owners = try await client.call(.get, page, headers: [.cookie: adaCookie]).text
            #expect(!owners.contains("/comments/\(id)/edit") && owners.contains("/comments/\(id)/delete"))
            let notHers = try await AccountPageTests.post(
                client, "\(page)/comments/\(id)/edit", ["text": "changed"], cookie: adaCookie)
            #expect(notHers.status == .notFound)
            let edited = try await AccountPageTests.post(
                client, "\(page)/comments/\(id)/edit", ["text": "changed"], cookie: bobCookie)
            #expect(edited.status == .seeOther && edited.headers[.location] == "\(page)#comment-\(id)")
            #expect(try await client.call(.get, page, headers: [.cookie: bobCookie]).text.contains("changed</p>"))
            let deleted = try await client.call(.post, "\(page)/comments/\(id)/delete", headers: [.cookie: adaCookie])
            #expect(deleted.status == .seeOther)
            let taken = try await AccountPageTests.post(client, "\(page)/kudos", ["give": "no"], cookie: bobCookie)
            #expect(taken.status == .seeOther)
            #expect(try await client.call(.get, page, headers: [.cookie: bobCookie]).text.contains("No kudos yet."))
        }
    }
}

/// A run as a post: its title (a default from the time of day) and description, its owner's to
/// write and everyone's who sees the run to read; the feed's small route where the map is seen.
@Suite("A run as a post")
struct RunPostTests {
    @Test(
        "The owner titles and describes a run; a friend reads both, escaped, on the page and in the feed, with the route's thumbnail only where the map is seen",
        arguments: Backend.available)
    func post(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: bob)
            // 06:30 UTC, and ada reads UTC: a morning run.
            let midnight = harness.clock.now.nanosecondsSinceEpoch / (86_400 * nanosecondsPerSecond) * 86_400
            let start = WallInstant(
                nanosecondsSinceEpoch: (midnight - 86_400 + 6 * 3_600 + 1_800) * nanosecondsPerSecond)
            let uuid = UUID().uuidString.lowercased()
            #expect(try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start)).status == .created)
            let adaCookie = try await client.webSignIn("ada").cookie
            let bobCookie = try await client.webSignIn("bob").cookie
            let page = "/runs/\(uuid)"
            #expect(
                try await client.call(.get, page, headers: [.cookie: adaCookie]).text.contains("<h1>Morning run</h1>"))
            let feed = try await client.call(.get, "/feed", headers: [.cookie: bobCookie]).text
            #expect(feed.contains(">Morning run</a>") && feed.contains("<svg class=\"thumb\""))

            let long = try await AccountPageTests.post(
                client, "\(page)/post", ["title": String(repeating: "x", count: 101), "description": ""],
                cookie: adaCookie)
            #expect(long.status == .unprocessableContent && long.text.contains("at most 100 characters"))
            let theirs = try await AccountPageTests.post(
                client, "\(page)/post", ["title": "Mine now", "description": ""], cookie: bobCookie)
            #expect(theirs.status == .notFound)
            let saved = try await AccountPageTests.post(
                client, "\(page)/post", ["title": "Hills <3", "description": "Windy & cold.\r\nLegs heavy."],
                cookie: adaCookie)
            #expect(saved.status == .seeOther && saved.headers[.location] == page)
            let seen = try await client.call(.get, page, headers: [.cookie: bobCookie]).text
            #expect(seen.contains("<h1>Hills &lt;3</h1>") && seen.contains("Windy &amp; cold.\nLegs heavy."))
            #expect(!seen.contains("action=\"\(page)/post\""), "the form is the owner's")
            let after = try await client.call(.get, "/feed", headers: [.cookie: bobCookie]).text
            #expect(after.contains(">Hills &lt;3</a>") && after.contains("Windy &amp; cold."))

            // The map for ada alone: no thumbnail for bob; an empty title gives the default back.
            _ = try await client.call(.patch, "/v1/runs/\(uuid)", token: ada, json: ["map_visibility": "private"])
            #expect(
                !(try await client.call(.get, "/feed", headers: [.cookie: bobCookie]).text.contains("class=\"thumb\"")))
            _ = try await AccountPageTests.post(
                client, "\(page)/post", ["title": " ", "description": ""], cookie: adaCookie)
            #expect(
                try await client.call(.get, page, headers: [.cookie: bobCookie]).text.contains("<h1>Morning run</h1>"))
        }
    }
}
