import Foundation
import GroupStore
import HandoffAPI
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import TestSupport
import Testing

@Suite("Accounts and sign-in over HTTP")
struct AccountTests {
    @Test("Sign up, sign in, see yourself, sign out: the token stops working at once", arguments: Backend.available)
    func lifecycle(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            let token = try await client.signUp("ada")
            let me = try await client.call(.get, "/v1/me", token: token)
            let account = try me.decode(AccountView.self)
            #expect(me.status == .ok && account.username == "ada")
            #expect(account.email == "ada@example.org")
            // The wire itself: no hash, no password, under any name.
            #expect(me.json["password_hash"] == nil && me.json["password"] == nil)

            let signIn = try await client.call(
                .post, "/v1/sessions", send: SignIn(login: "ADA@example.org", password: "correct horse battery"))
            #expect(signIn.status == .ok)
            let second = try signIn.decode(SignedIn.self).token
            #expect(second != token && second.count == 64)

            #expect(try await client.call(.delete, "/v1/sessions/current", token: token).status == .noContent)
            let revoked = try await client.call(.get, "/v1/me", token: token)
            #expect(revoked.status == .unauthorized && revoked.errorCode == "invalid_token")
            #expect(try await client.call(.get, "/v1/me", token: second).status == .ok)
            let none = try await client.call(.get, "/v1/me")
            #expect(none.status == .unauthorized && none.errorMessage.contains("Bearer"))
            let health = try await client.call(.get, "/v1/health")
            #expect(try health.status == .ok && health.decode(Health.self).status == "ok")
            let nowhere = try await client.call(.get, "/v1/nowhere")
            #expect(nowhere.status == .notFound && nowhere.errorMessage.contains("GET /v1/nowhere"))
        }
    }

    @Test("Bad sign-ups are refused with what to fix: weak, long, taken, malformed", arguments: Backend.available)
    func badSignUps(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            _ = try await client.signUp("grace")
            func attempt(_ body: [String: Any]) async throws -> Reply {
                try await client.call(.post, "/v1/accounts", json: body)
            }
            let weak = try await attempt(["email": "a@b.org", "username": "alan", "password": "short"])
            #expect(weak.status == .unprocessableContent && weak.errorCode == "weak_password")
            let long = try await attempt([
                "email": "a@b.org", "username": "alan", "password": String(repeating: "é", count: 40),
            ])
            #expect(long.errorCode == "long_password")
            let taken = try await attempt(["email": "GRACE@example.org", "username": "other", "password": "0123456789"])
            #expect(taken.status == .conflict && taken.errorCode == "email_taken")
            let name = try await attempt(["email": "x@example.org", "username": "Grace", "password": "0123456789"])
            #expect(name.status == .conflict && name.errorCode == "username_taken")
            let email = try await attempt(["email": "not an email", "username": "alan", "password": "0123456789"])
            #expect(email.errorCode == "invalid_email")
            let user = try await attempt(["email": "x@example.org", "username": "a b", "password": "0123456789"])
            #expect(user.errorCode == "invalid_username")
            let missing = try await attempt(["email": "x@example.org"])
            #expect(missing.status == .badRequest && missing.errorMessage.contains("username"))
        }
    }

    @Test(
        "Wrong passwords are refused alike for unknown logins, and the sixth try in a window gets 429",
        arguments: Backend.available)
    func wrongPasswordsAndRateLimit(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            _ = try await client.signUp("linus")
            let unknown = try await client.call(
                .post, "/v1/sessions", json: ["login": "nobody", "password": "whatever123"])
            #expect(unknown.status == .unauthorized && unknown.errorCode == "wrong_credentials")
            for _ in 0..<5 {
                let wrong = try await client.call(
                    .post, "/v1/sessions", json: ["login": "linus", "password": "wrong password"])
                #expect(wrong.status == .unauthorized && wrong.errorCode == "wrong_credentials")
            }
            let limited = try await client.call(
                .post, "/v1/sessions", json: ["login": "linus", "password": "correct horse battery"])
            #expect(limited.status == .tooManyRequests && limited.errorCode == "too_many_attempts")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 > 0)
        }
    }

    @Test(
        "Wrong passwords count per account across its names, the places a password is asked, and every store instance over the database",
        arguments: Backend.available)
    func rateLimitIsShared(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { first, repository in
            let session = try await first.signUp("grace")
            // A second instance of the store over the same database, as behind a load balancer.
            let clock = harness.clock
            let second = StoreApplication.make(
                repository: repository, configuration: harness.configuration, logger: harness.logger,
                now: { clock.now })
            try await second.test(.live) { second in
                for (client, login) in [
                    (first, "grace"), (second, "grace@example.org"), (first, "GRACE"), (second, "grace"),
                ] {
                    let wrong = try await client.call(
                        .post, "/v1/sessions", json: ["login": login, "password": "wrong password"])
                    #expect(wrong.status == .unauthorized, "\(login)")
                }
                let change = try await second.call(
                    .patch, "/v1/me", token: session,
                    json: ["email": "grace@example.com", "current_password": "not my password"])
                #expect(change.status == .forbidden && change.errorCode == "wrong_password")
                for client in [first, second] {
                    let limited = try await client.call(
                        .post, "/v1/sessions",
                        json: ["login": "grace@example.org", "password": "correct horse battery"])
                    #expect(limited.status == .tooManyRequests && limited.errorCode == "too_many_attempts")
                    #expect(limited.errorMessage.contains("try again in 15 minutes"))
                    #expect((1...900).contains(Int(limited.headers[.retryAfter] ?? "") ?? 0))
                    let delete = try await client.call(
                        .delete, "/v1/me", token: session, json: ["password": "correct horse battery"])
                    #expect(delete.status == .tooManyRequests, "deleting asks for the password too")
                }
                // Another account is not held up by grace's attempts.
                _ = try await first.signUp("hedy")
                #expect(
                    try await second.call(
                        .post, "/v1/sessions", json: ["login": "hedy", "password": "correct horse battery"]
                    ).status == .ok)
                // Once the window has passed the right password works, and clears the count.
                clock.advance(seconds: 15 * 60 + 1)
                #expect(
                    try await second.call(
                        .post, "/v1/sessions", json: ["login": "grace", "password": "correct horse battery"]
                    ).status == .ok)
                for _ in 0..<4 {
                    _ = try await first.call(.post, "/v1/sessions", json: ["login": "grace", "password": "nope nope!"])
                }
                #expect(
                    try await first.call(
                        .post, "/v1/sessions", json: ["login": "grace", "password": "correct horse battery"]
                    ).status == .ok)
            }
        }
    }

    @Test(
        "Changing the password asks for the current one and ends the other sessions; deleting needs it too",
        arguments: Backend.available)
    func changeAndDelete(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            let token = try await client.signUp("margaret")
            let other = try await client.call(
                .post, "/v1/sessions", send: SignIn(login: "margaret", password: "correct horse battery")
            ).decode(SignedIn.self).token
            let renamed = try await client.call(.patch, "/v1/me", token: token, send: AccountChange(username: "maggie"))
            #expect(try renamed.status == .ok && renamed.decode(AccountView.self).username == "maggie")
            let noCurrent = try await client.call(
                .patch, "/v1/me", token: token, json: ["password": "a new long password"])
            #expect(noCurrent.status == .forbidden && noCurrent.errorCode == "wrong_password")
            let changed = try await client.call(
                .patch, "/v1/me", token: token,
                json: ["password": "a new long password", "current_password": "correct horse battery"])
            #expect(changed.status == .ok)
            #expect(try await client.call(.get, "/v1/me", token: other).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/me", token: token).status == .ok)
            let old = try await client.call(
                .post, "/v1/sessions", json: ["login": "maggie", "password": "correct horse battery"])
            #expect(old.status == .unauthorized)

            let refused = try await client.call(.delete, "/v1/me", token: token, json: ["password": "wrong password"])
            #expect(refused.status == .forbidden)
            #expect(
                try await client.call(.delete, "/v1/me", token: token, json: ["password": "a new long password"]).status
                    == .noContent)
            #expect(try await client.call(.get, "/v1/me", token: token).status == .unauthorized)
            let gone = try await client.call(
                .post, "/v1/sessions", json: ["login": "maggie", "password": "a new long password"])
            #expect(gone.status == .unauthorized)
        }
    }

    @Test("Passwords and tokens are not in the SQLite file in the clear")
    func storedHashed() async throws {
        let harness = try StoreHarness()
        try await harness.run { client in
            let token = try await client.signUp("barbara", password: "a secret passphrase")
            let bytes =
                try Data(contentsOf: harness.directory.file("store.sqlite"))
                + ((try? Data(contentsOf: harness.directory.file("store.sqlite-wal"))) ?? Data())
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains("a secret passphrase"))
            #expect(!text.contains(token))
            #expect(text.contains("$2b$04$") || text.contains("$2a$04$") || text.contains("$2y$04$"), "a bcrypt hash")
        }
    }

    @Test(
        "No password and no token reaches the log, at trace level, through every route that takes one",
        arguments: Backend.available)
    func passwordsNeverLogged(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        let captured = CapturedLog()
        var logger = Logger(label: "store.test") { _ in captured }
        logger.logLevel = .trace
        try await harness.withDatabase { database in
            let repository = try await StoreRepository(database)
            let app = StoreApplication.make(
                repository: repository, configuration: harness.configuration, logger: logger)
            try await app.test(.live) { client in
                let first = "first secret phrase"
                let second = "second secret phrase"
                let session = try await client.signUp("ida", password: first)
                _ = try await client.call(.post, "/v1/sessions", json: ["login": "ida", "password": "wrong \(first)"])
                let signedIn = try await client.call(.post, "/v1/sessions", json: ["login": "ida", "password": first])
                let other = try #require(signedIn["token"] as? String)
                // A body that is not the route's JSON, with the password in it: refused, not logged.
                _ = try await client.call(
                    .post, "/v1/sessions", body: Array(#"{"login": "ida", "password": "\#(first)""#.utf8),
                    contentType: "application/json")
                _ = try await client.call(
                    .patch, "/v1/me", token: session, json: ["password": second, "current_password": first])
                _ = try await client.call(
                    .post, "/login",
                    body: Array("login=ida&password=\(second.replacingOccurrences(of: " ", with: "+"))".utf8),
                    contentType: "application/x-www-form-urlencoded")
                let device = try await DeviceTests.link(client, session)
                _ = try await client.call(.get, "/v1/groups", token: device)
                _ = try await client.call(.delete, "/v1/me", token: session, json: ["password": second])
                let log = captured.text
                #expect(!log.isEmpty, "trace logging reached the handler")
                for secret in [first, second, session, other, device] {
                    #expect(!log.contains(secret), "the log holds a secret: \(secret.prefix(6))…")
                }
            }
        }
    }
}
