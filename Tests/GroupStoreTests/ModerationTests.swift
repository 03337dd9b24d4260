import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import TestSupport
import Testing

@testable import GroupStore

/// Reports to the operator and what the operator does with them: a comment hidden or deleted, a
/// profile hidden, an account suspended (no signing in, no tokens, nothing of it seen by anyone)
/// and restored; the forms on the pages; `handoff-store moderation` on a real database.
@Suite("Reports and moderation")
struct ModerationTests {
    @Test(
        "Reporting a comment or profile one may see; hide, delete and suspend do what they say, to everyone",
        arguments: Backend.available)
    func api(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
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
            let comments = "/v1/runs/\(uuid)/comments"
            let rude = try await client.call(.post, comments, token: bob, json: ["text": "Rude <words>"])
                .decode(CommentView.self)
            _ = try await client.call(.post, comments, token: cleo, json: ["text": "Well run"])
            _ = try await client.call(.post, "/v1/runs/\(uuid)/kudos", token: bob)

            // Who may report what: not one's own words, not what one may not see (the same 404).
            func report(_ token: String, _ body: [String: Any]) async throws -> Reply {
                try await client.call(.post, "/v1/reports", token: token, json: body)
            }
            let commentReport: [String: Any] = [
                "kind": "comment", "run": uuid, "comment": rude.id, "reason": "Rude to ada",
            ]
            let filed = try await report(cleo, commentReport)
            #expect(filed.status == .created, "\(filed.text)")
            let first = try filed.decode(ReportView.self)
            #expect(first.kind == "comment" && !first.resolved)
            #expect(try await report(cleo, commentReport).decode(ReportView.self).id == first.id, "once while open")
            #expect(try await report(ada, commentReport).status == .created, "the run's owner reports too")
            #expect(try await report(bob, commentReport).errorCode == "own_report")
            let unseen = try await report(dan, commentReport)
            #expect(unseen.status == .notFound && unseen.errorCode == "run_not_found", "404, not 403")
            #expect(
                try await report(cleo, ["kind": "comment", "run": uuid, "comment": 999_999, "reason": "x"]).errorCode
                    == "comment_not_found")
            #expect(
                try await report(cleo, ["kind": "comment", "run": uuid, "reason": "x"]).errorCode == "invalid_report")
            for (reason, code) in [(" \n", "empty_reason"), (String(repeating: "x", count: 1_001), "reason_too_long")] {
                var body = commentReport
                body["reason"] = reason
                #expect(try await report(cleo, body).errorCode == code)
            }
            #expect(
                try await report(cleo, ["kind": "profile", "username": "nobody", "reason": "x"]).errorCode
                    == "account_not_found")
            #expect(
                try await report(bob, ["kind": "profile", "username": "bob", "reason": "x"]).errorCode == "own_report")

            // The operator's list: the words as they were, even after an edit.
            _ = try await client.call(.patch, "\(comments)/\(rude.id)", token: bob, json: ["text": "Edited away"])
            let open = try await repository.reports()
            #expect(open.count == 2 && open.allSatisfy { $0.excerpt == "Rude <words>" && $0.reported == "bob" })
            #expect(Set(open.compactMap(\.reporter)) == ["cleo", "ada"])

            // Hide: nobody but bob sees it, in lists and counts; both reports close together.
            let hidden = try await repository.resolve(report: first.id, .hide, now: harness.clock.now)
            #expect(hidden.resolution == "hidden")
            #expect(try await repository.reports().isEmpty, "every open report of the comment resolved")
            await #expect(throws: StoreError.self) {
                _ = try await repository.resolve(report: first.id, .delete, now: harness.clock.now)
            }
            for (name, token) in [("ada", ada), ("cleo", cleo)] {
                let seen = try await client.call(.get, comments, token: token).decode(CommentList.self).comments
                #expect(seen.map(\.text) == ["Well run"], "\(name)")
            }
            let own = try await client.call(.get, comments, token: bob).decode(CommentList.self).comments
            #expect(own.first?.hidden == true && own.last?.hidden == nil)
            let feed = try await client.call(.get, "/v1/feed", token: ada).decode(Feed.self)
            #expect(feed.runs.first { $0.uuid == uuid }?.comments == 1)

            // A comment reported, then deleted by its author: resolving acts on nothing else (not
            // on the author's profile).
            _ = try await client.call(
                .put, "/v1/me/profile", token: bob, json: ["nickname": ["value": "Bob", "visibility": "public"]])
            let gone = try await client.call(.post, comments, token: bob, json: ["text": "Soon gone"])
                .decode(CommentView.self)
            _ = try await report(cleo, ["kind": "comment", "run": uuid, "comment": gone.id, "reason": "Spam"])
            _ = try await client.call(.delete, "\(comments)/\(gone.id)", token: bob)
            let orphan = try #require(try await repository.reports().first)
            let resolved = try await repository.resolve(report: orphan.id, .delete, now: harness.clock.now)
            #expect(resolved.resolution == "deleted")
            let kept = try await client.call(.get, "/v1/me/profile", token: bob).decode(ProfileSettings.self)
            #expect(kept.nickname?.value == "Bob", "the author's profile is not what was reported")
            let cookieBob = try await client.webSignIn("bob").cookie
            _ = try await AccountPageTests.post(
                client, "/settings/profile",
                [
                    "nickname": "B0b the rude", "nickname_visibility": "public", "height_cm": "180",
                    "height_cm_visibility": "friends",
                ], cookie: cookieBob)
            let profile = try await report(dan, ["kind": "profile", "username": "BOB", "reason": "Offensive name"])
            #expect(profile.status == .created, "\(profile.text)")
            let listed = try #require(try await repository.reports().first)
            #expect(listed.excerpt == "Username: bob\nNickname: B0b the rude", "dan sees no height: \(listed.excerpt)")
            _ = try await repository.resolve(report: listed.id, .hide, now: harness.clock.now)
            let cookieDan = try await client.webSignIn("dan").cookie
            let page = try await client.call(.get, "/people/bob", headers: [.cookie: cookieDan])
            #expect(page.status == .ok && !page.text.contains("B0b the rude"))

            // Suspend: bob cannot sign in, his token is gone, and nothing of his shows to anyone.
            _ = try await report(ada, ["kind": "profile", "username": "bob", "reason": "Again"])
            let again = try #require(try await repository.reports().first)
            #expect(
                try await repository.resolve(report: again.id, .suspend, now: harness.clock.now).resolution
                    == "account suspended")
            #expect(try await client.call(.get, "/v1/friends", token: bob).status == .unauthorized)
            let signIn = try await client.call(
                .post, "/v1/sessions", send: SignIn(login: "bob", password: "correct horse battery"))
            #expect(signIn.status == .forbidden && signIn.errorCode == "account_suspended")
            #expect(try await client.webSignIn("bob").reply.text.contains("suspended by the store"))
            let bobRun = UUID().uuidString.lowercased()
            try await repository.setSuspended(username: "bob", false, reason: "", now: harness.clock.now)
            let back = try await client.call(
                .post, "/v1/sessions", send: SignIn(login: "bob", password: "correct horse battery"))
            let bobToken = try back.decode(SignedIn.self).token
            #expect(
                try await client.upload(bobToken, uuid: bobRun, file: RunFiles.fit(start: start)).status == .created)
            #expect(
                try await client.call(.get, "/v1/feed", token: ada).decode(Feed.self).runs.contains {
                    $0.uuid == bobRun
                })
            try await repository.setSuspended(username: "bob", true, reason: "test", now: harness.clock.now)
            #expect(try await client.call(.get, "/v1/feed", token: ada).decode(Feed.self).runs.map(\.uuid) == [uuid])
            let cookieAda = try await client.webSignIn("ada").cookie
            #expect(try await client.call(.get, "/runs/\(bobRun)", headers: [.cookie: cookieAda]).status == .notFound)
            #expect(try await client.call(.get, "/people/bob", headers: [.cookie: cookieAda]).status == .notFound)
            #expect(try await client.call(.get, "/v1/runs/\(uuid)/kudos", token: ada).decode(KudosView.self).count == 0)
            #expect(try await client.call(.get, comments, token: ada).decode(CommentList.self).comments.count == 1)
        }
    }

    @Test(
        "The report forms: linked from a comment and a person's page, sent, refused with the words kept",
        arguments: Backend.available)
    func pages(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            _ = try await client.signUp("cleo")
            _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: bob)
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            let uuid = UUID().uuidString.lowercased()
            _ = try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start))
            let comment = try await client.call(
                .post, "/v1/runs/\(uuid)/comments", token: bob, json: ["text": "Spam <a href=x>here</a>"]
            ).decode(CommentView.self)
            let cookie = try await client.webSignIn("ada").cookie
            let form = "/runs/\(uuid)/comments/\(comment.id)/report"
            let run = try await client.call(.get, "/runs/\(uuid)", headers: [.cookie: cookie])
            #expect(run.text.contains("href=\"\(form)\""))
            let page = try await client.call(.get, form, headers: [.cookie: cookie])
            #expect(page.status == .ok && page.text.contains("Spam &lt;a href=x&gt;here&lt;/a&gt;"))
            let empty = try await AccountPageTests.post(client, form, ["reason": "  "], cookie: cookie)
            #expect(empty.status == .unprocessableContent && empty.text.contains("say in a few words"))
            let sent = try await AccountPageTests.post(client, form, ["reason": "Spam & <links>"], cookie: cookie)
            #expect(sent.status == .ok && sent.text.contains("Report sent"))
            #expect(try await repository.reports().first?.reason == "Spam & <links>")
            let cleo = try await client.webSignIn("cleo").cookie
            #expect(
                try await client.call(.get, form, headers: [.cookie: cleo]).status == .notFound, "cleo may not see it")
            #expect(try await AccountPageTests.post(client, form, ["reason": "x"], cookie: cleo).status == .notFound)
            let person = try await client.call(.get, "/people/bob", headers: [.cookie: cookie])
            #expect(person.text.contains("href=\"/people/bob/report\""))
            #expect(try await client.call(.get, "/people/bob/report", headers: [.cookie: cookie]).status == .ok)
            let profile = try await AccountPageTests.post(
                client, "/people/bob/report", ["reason": "Fake"], cookie: cookie)
            #expect(profile.status == .ok)
            #expect(try await client.call(.get, "/people/ada/report", headers: [.cookie: cookie]).status == .ok)
            let own = try await AccountPageTests.post(client, "/people/ada/report", ["reason": "x"], cookie: cookie)
            #expect(own.status == .unprocessableContent && own.text.contains("your own"))
            #expect(try await repository.reports().count == 2)
        }
    }

    @Test("handoff-store moderation lists reports (and as JSON), resolves one, suspends and restores by name")
    func command() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data").path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let repository = try await StoreRepository(try SQLiteDatabase(path: data + "/store.sqlite"))
        let now = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970)
        let ada = try await repository.createAccount(
            email: "a@example.org", username: "ada", passwordHash: "x", now: now)
        _ = try await repository.createAccount(email: "b@example.org", username: "bob", passwordHash: "x", now: now)
        try await repository.setProfile(
            account: ada.id, Profile(values: [.nickname: "Ada\u{1B}[31m"], levels: [.nickname: .public]))
        _ = try await repository.report(.profile(username: "ada"), reporter: 2, reason: "Odd name\nreally", now: now)
        let store = Products.url("handoff-store")
        let list = try await runProcessAsync(store, ["moderation", "list", "--data", data], environment: [:])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("#1  profile of ada, reported by bob"), "\(list.stdout)")
        #expect(
            list.stdout.contains("> Nickname: Ada?[31m") && !list.stdout.contains("\u{1B}"),
            "no escape reaches the terminal")
        #expect(list.stdout.contains("1 open report. Resolve one with"))
        let json = try await runProcessAsync(store, ["moderation", "list", "--json", "--data", data], environment: [:])
        let reports = try JSONDecoder().decode([StoredReport].self, from: Data(json.stdout.utf8))
        #expect(reports.map(\.reason) == ["Odd name\nreally"])
        let wrong = try await runProcessAsync(
            store, ["moderation", "resolve", "1", "burn", "--data", data], environment: [:])
        #expect(wrong.status != 0 && wrong.stderr.contains("hide, delete, suspend or dismiss"))
        let resolved = try await runProcessAsync(
            store, ["moderation", "resolve", "1", "delete", "--data", data], environment: [:])
        #expect(resolved.status == 0 && resolved.stdout.contains("Report 1: deleted."), "\(resolved.stderr)")
        #expect(try await repository.profile(account: ada.id).values.isEmpty)
        let twice = try await runProcessAsync(
            store, ["moderation", "resolve", "1", "delete", "--data", data], environment: [:])
        #expect(twice.status != 0 && twice.stderr.contains("was resolved"))
        let none = try await runProcessAsync(store, ["moderation", "list", "--data", data], environment: [:])
        #expect(none.stdout.contains("No open reports."))
        let suspend = try await runProcessAsync(
            store, ["moderation", "suspend", "ada", "--data", data], environment: [:])
        let suspended = try await repository.isSuspended(ada.id)
        #expect(suspend.status == 0 && suspended)
        let lift = try await runProcessAsync(
            store, ["moderation", "unsuspend", "ada", "--data", data], environment: [:])
        let lifted = try await !repository.isSuspended(ada.id)
        #expect(lift.status == 0 && lifted)
        let nobody = try await runProcessAsync(
            store, ["moderation", "suspend", "nobody", "--data", data], environment: [:])
        #expect(nobody.status != 0 && nobody.stderr.contains("no runner has this username"))
    }
}
