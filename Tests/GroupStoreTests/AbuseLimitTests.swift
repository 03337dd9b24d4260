import Foundation
import GroupStore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 27, findings 5 and 9: lock-outs, guesses and floods. The store is told 127.0.0.1 is its
/// reverse proxy, so each request's `X-Forwarded-For` plays a different client.
@Suite("Limits on guessing and flooding (issue 27)")
struct AbuseLimitTests {
    static func from(_ address: String) -> HTTPFields { [HTTPField.Name("X-Forwarded-For")!: address] }

    static func harness(_ backend: Backend) throws -> StoreHarness {
        var harness = try StoreHarness(backend, transport: .live)
        harness.configuration.network.trustedProxy = "127.0.0.1"
        return harness
    }

    static func signIn(
        _ client: any TestClientProtocol, _ login: String, _ password: String, from address: String
    ) async throws -> Reply {
        try await client.call(
            .post, "/v1/sessions", json: ["login": login, "password": password], headers: from(address))
    }

    @Test(
        "A stranger's wrong passwords lock the stranger out, not the owner: the right password from a clean address gets in",
        arguments: Backend.available)
    func noLockOutByStrangers(_ backend: Backend) async throws {
        try await Self.harness(backend).run { client in
            _ = try await client.signUp("ada")
            for _ in 0..<5 {
                let wrong = try await Self.signIn(client, "ada", "not her password", from: "203.0.113.9")
                #expect(wrong.status == .unauthorized)
            }
            let guesser = try await Self.signIn(client, "ada", "correct horse battery", from: "203.0.113.9")
            #expect(guesser.status == .tooManyRequests && Int(guesser.headers[.retryAfter] ?? "") ?? 0 > 0)
            // The account has had its five guesses: a second guessing address gets one try more…
            let second = try await Self.signIn(client, "ada", "still not it", from: "198.51.100.20")
            #expect(second.status == .unauthorized)
            let again = try await Self.signIn(client, "ada", "correct horse battery", from: "198.51.100.20")
            #expect(again.status == .tooManyRequests, "an address that guessed at a locked account waits")
            // …and the owner, from where nobody guessed, signs in.
            let owner = try await Self.signIn(client, "ada", "correct horse battery", from: "192.0.2.44")
            #expect(owner.status == .ok)
            try await Self.alive(client)
        }
    }

    @Test(
        "X-Forwarded-For is ignored unless the peer is the trusted proxy: spoofing it does not escape the limit",
        arguments: Backend.available)
    func forwardedForNeedsTrust(_ backend: Backend) async throws {
        try await StoreHarness(backend, transport: .live).run { client in
            _ = try await client.signUp("ada")
            for i in 0..<5 {
                let wrong = try await Self.signIn(client, "ada", "wrong password", from: "203.0.113.\(i)")
                #expect(wrong.status == .unauthorized)
            }
            let limited = try await Self.signIn(client, "ada", "correct horse battery", from: "192.0.2.1")
            #expect(limited.status == .tooManyRequests)
        }
    }

    @Test("One address guessing across many logins is stopped by its own limit", arguments: Backend.available)
    func perAddressLimit(_ backend: Backend) async throws {
        var harness = try Self.harness(backend)
        harness.configuration.accounts.addressAttempts = 6
        try await harness.run { client in
            _ = try await client.signUp("ada")
            for i in 0..<6 {
                let wrong = try await Self.signIn(client, "user\(i)", "guess password", from: "203.0.113.7")
                #expect(wrong.status == .unauthorized)
            }
            let limited = try await Self.signIn(client, "ada", "correct horse battery", from: "203.0.113.7")
            #expect(limited.status == .tooManyRequests && limited.errorCode == "too_many_attempts")
            let other = try await Self.signIn(client, "ada", "correct horse battery", from: "192.0.2.8")
            #expect(other.status == .ok)
        }
    }

    @Test("Sign-ups are limited per address, with Retry-After", arguments: Backend.available)
    func signUpLimit(_ backend: Backend) async throws {
        var harness = try Self.harness(backend)
        harness.configuration.accounts.signUpsPerAddress = 3
        try await harness.run { client in
            func signUp(_ name: String, from address: String) async throws -> Reply {
                try await client.call(
                    .post, "/v1/accounts",
                    json: ["email": "\(name)@example.org", "username": name, "password": "correct horse battery"],
                    headers: Self.from(address))
            }
            for i in 0..<3 { #expect(try await signUp("bot\(i)", from: "203.0.113.5").status == .created) }
            let limited = try await signUp("bot3", from: "203.0.113.5")
            #expect(limited.status == .tooManyRequests && limited.errorCode == "too_many_signups")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 > 0)
            #expect(try await signUp("person", from: "192.0.2.9").status == .created)
        }
    }

    @Test(
        "A flood of sign-ins for unknown logins queues behind a bounded bcrypt: the excess gets 503 and a real sign-in still works",
        arguments: Backend.available)
    func bcryptIsBounded(_ backend: Backend) async throws {
        var harness = try Self.harness(backend)
        harness.configuration.accounts.bcryptConcurrency = 1
        harness.configuration.accounts.bcryptQueue = 2
        harness.configuration.accounts.bcryptCost = 12  // slow enough that the flood piles up
        try await harness.run { client in
            _ = try await client.signUp("ada")
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for i in 0..<12 {
                    group.addTask {
                        try await client.call(
                            .post, "/v1/sessions", json: ["login": "nobody\(i)", "password": "guess password"],
                            headers: Self.from("203.0.113.\(i)"), ownConnection: true)
                    }
                }
                return try await group.reduce(into: [Reply]()) { $0.append($1) }
            }
            let busy = replies.filter { $0.status == .serviceUnavailable }
            #expect(!busy.isEmpty && busy.allSatisfy { $0.errorCode == "busy" && $0.headers[.retryAfter] != nil })
            #expect(replies.allSatisfy { [.unauthorized, .serviceUnavailable].contains($0.status) })
            let owner = try await Self.signIn(client, "ada", "correct horse battery", from: "192.0.2.1")
            #expect(owner.status == .ok)
        }
    }

    @Test(
        "Device codes per address and user-code guesses per account are limited (RFC 8628 §5.1, §5.2): 429 with Retry-After",
        arguments: Backend.available)
    func deviceFlowLimits(_ backend: Backend) async throws {
        var harness = try Self.harness(backend)
        harness.configuration.devices.codesPerAddress = 3
        harness.configuration.devices.approvalsPerAccount = 4
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            for _ in 0..<3 {
                let code = try await client.call(
                    .post, "/v1/device/code", json: ["name": "pack"], headers: Self.from("203.0.113.1"))
                #expect(code.status == .ok)
            }
            let flood = try await client.call(
                .post, "/v1/device/code", json: ["name": "pack"], headers: Self.from("203.0.113.1"))
            #expect(flood.status == .tooManyRequests && Int(flood.headers[.retryAfter] ?? "") ?? 0 > 0)
            let code = try await client.call(
                .post, "/v1/device/code", json: ["name": "pack"], headers: Self.from("192.0.2.1"))
            let userCode = try #require(code["user_code"] as? String)

            for guess in ["BBBB-BBBB", "CCCC-CCCC", "DDDD-DDDD", "FFFF-FFFF"] {
                let wrong = try await client.call(.post, "/v1/device/approve", token: ada, json: ["user_code": guess])
                #expect(wrong.status == .notFound)
            }
            let limited = try await client.call(
                .post, "/v1/device/approve", token: ada, json: ["user_code": userCode])
            #expect(limited.status == .tooManyRequests && Int(limited.headers[.retryAfter] ?? "") ?? 0 > 0)
            let (_, cookie) = try await client.webSignIn("ada")
            let web = try await client.call(
                .post, "/device", body: Array("user_code=\(userCode)".utf8),
                contentType: "application/x-www-form-urlencoded", headers: [.cookie: cookie])
            #expect(web.status == .tooManyRequests, "the web form counts the same guesses")
            try await Self.alive(client)
        }
    }

    static func alive(_ client: any TestClientProtocol) async throws {
        #expect(try await client.call(.get, "/v1/health", ownConnection: true).status == .ok)
    }
}
