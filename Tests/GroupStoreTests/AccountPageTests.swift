import Foundation
import GroupStore
import HTTPTypes
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import Testing

/// The account pages' routes: statuses, redirects, cookies and headers.
@Suite("Account pages: sign-up, first visit, settings, export, deleting")
struct AccountPageTests {
    static func urlencoded(_ fields: [String: String]) -> [UInt8] {
        Array(
            fields.map { "\($0.key)=\(SitePathEncoding.encode($0.value))" }.sorted().joined(separator: "&").utf8)
    }

    static func post(
        _ client: any TestClientProtocol, _ path: String, _ fields: [String: String], cookie: String? = nil
    ) async throws -> Reply {
        try await client.call(
            .post, path, body: urlencoded(fields), contentType: "application/x-www-form-urlencoded",
            headers: cookie.map { [.cookie: $0] } ?? [:])
    }

    @Test(
        "Signing up from the form: a session cookie that ends with the browser, the first-visit page, the API's refusals",
        arguments: Backend.available)
    func signUp(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            #expect(try await client.call(.get, "/signup").status == .ok)
            let made = try await Self.post(
                client, "/signup", ["email": "ada@example.org", "username": "ada", "password": "correct horse battery"])
            #expect(made.status == .seeOther && made.headers[.location] == "/welcome")
            let cookie = String((made.headers[.setCookie] ?? "").split(separator: ";").first ?? "")
            #expect(made.headers[.setCookie]?.hasSuffix("; Path=/; HttpOnly; SameSite=Strict") == true)
            let welcome = try await client.call(.get, "/welcome", headers: [.cookie: cookie])
            #expect(welcome.status == .ok && welcome.text.contains("handoff link --store http://"))

            let taken = try await Self.post(
                client, "/signup",
                ["email": "ada2@example.org", "username": "ada", "password": "correct horse battery"])
            #expect(taken.status == .conflict && taken.headers[.setCookie] == nil)
            #expect(taken.text.contains("value=\"ada2@example.org\""), "what was typed stays")
            // A dead invite code is said before any account is made: bob can sign up after.
            let dead = try await Self.post(
                client, "/signup",
                ["email": "bob@example.org", "username": "bob", "password": "correct horse battery", "invite": "nope"])
            #expect(dead.status == .notFound && dead.headers[.setCookie] == nil)
            let weak = try await Self.post(
                client, "/signup", ["email": "bob@example.org", "username": "bob", "password": "short"])
            #expect(weak.status == .unprocessableContent)
            let bob = try await Self.post(
                client, "/signup", ["email": "bob@example.org", "username": "bob", "password": "correct horse battery"])
            #expect(bob.status == .seeOther, "the dead invite made no account: the name is still free")
            let markup = try await Self.post(
                client, "/signup",
                ["email": "eve@example.org", "username": "<b>eve</b>", "password": "correct horse battery"])
            #expect(markup.status == .unprocessableContent && !markup.text.contains("<b>eve"))
            let elsewhere = try await client.call(
                .post, "/signup",
                body: Self.urlencoded([
                    "email": "x@example.org", "username": "xxx", "password": "correct horse battery",
                ]),
                contentType: "application/x-www-form-urlencoded", headers: [.origin: "https://evil.example"])
            #expect(elsewhere.status == .forbidden)
            #expect(try await client.call(.get, "/welcome").status == .seeOther)
        }
    }

    @Test(
        "Sign-ups by invitation need a group's invite code; closed sign-ups make no account; either way the first account is the operator's",
        arguments: Backend.available)
    func signUpPolicies(_ backend: Backend) async throws {
        var inviteOnly = try StoreHarness(backend)
        inviteOnly.configuration.accounts.signUps = .invite
        try await inviteOnly.run { client in
            _ = try await client.signUp("ada")
            let refused = try await client.call(
                .post, "/v1/accounts",
                send: SignUp(email: "bob@example.org", username: "bob", password: "correct horse battery"))
            #expect(refused.status == .forbidden && refused.errorCode == "invite_only")
            #expect(try await client.call(.get, "/signup").text.contains("by invitation"))
            let form = try await Self.post(
                client, "/signup",
                ["email": "bob@example.org", "username": "bob", "password": "correct horse battery", "invite": "nope"])
            #expect(form.status == .notFound && form.headers[.setCookie] == nil, "no group has that code")
            let none = try await Self.post(
                client, "/signup", ["email": "bob@example.org", "username": "bob", "password": "correct horse battery"])
            #expect(none.status == .forbidden && none.headers[.setCookie] == nil, "no code at all")
        }
        var closed = try StoreHarness(backend)
        closed.configuration.accounts.signUps = .closed
        try await closed.run { client in
            _ = try await client.signUp("ada")
            let refused = try await client.call(
                .post, "/v1/accounts",
                send: SignUp(email: "bob@example.org", username: "bob", password: "correct horse battery"))
            #expect(refused.status == .forbidden && refused.errorCode == "signups_closed")
            #expect(try await client.call(.get, "/signup").text.contains("no new accounts"))
        }
    }

    @Test(
        "An invite link shows the group, signs a newcomer up into it, and joins a signed-in person",
        arguments: Backend.available)
    func inviteLink(_ backend: Backend) async throws {
        var harness = try StoreHarness(backend)
        harness.configuration.accounts.signUps = .invite
        try await harness.run { client in
            // The first account is the operator's, whatever the policy.
            let token = try await client.signUp("ada")
            let (id, invite) = try await client.createGroup(token, name: "Night owls")
            #expect(try await client.call(.get, "/join/\(invite)").status == .ok)
            #expect(try await client.call(.get, "/join/unknowncode").status == .notFound)
            let made = try await Self.post(
                client, "/signup",
                ["email": "bob@example.org", "username": "bob", "password": "correct horse battery", "invite": invite])
            #expect(made.status == .seeOther && made.headers[.location] == "/groups/\(id)")
            let bob = String((made.headers[.setCookie] ?? "").split(separator: ";").first ?? "")
            #expect(try await client.call(.get, "/groups/\(id)", headers: [.cookie: bob]).status == .ok)
            #expect(try await client.call(.get, "/join/\(invite)", headers: [.cookie: bob]).status == .ok)
            let again = try await client.call(.post, "/join/\(invite)", headers: [.cookie: bob])
            #expect(again.status == .seeOther && again.headers[.location] == "/groups/\(id)")
            #expect(try await client.call(.post, "/join/unknowncode", headers: [.cookie: bob]).status == .notFound)
            let anonymous = try await client.call(.post, "/join/\(invite)")
            #expect(anonymous.status == .seeOther && anonymous.headers[.location] == "/login?next=/join/\(invite)")
        }
    }

}

/// Percent-encoding for form bodies in tests.
enum SitePathEncoding {
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? ""
    }
}
