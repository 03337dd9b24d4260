import Foundation
import GroupStore
import HTTPTypes
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import Logging
import TestSupport
import Testing

/// A forgotten password: the operator's one-time link, and the page it opens.
@Suite("Password reset links")
struct PasswordResetTests {
    @Test(
        "A reset link sets a new password once, ends every session and pack, and is refused when used, expired or made up",
        arguments: Backend.available)
    func resetLink(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        let clock = harness.clock
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let token = try await repository.issuePasswordReset(username: "ada", now: clock.now)
            #expect(try await client.call(.get, "/reset/\(token)").status == .ok)
            #expect(try await client.call(.get, "/reset/0123456789abcdef").status == .notFound)
            let weak = try await AccountPageTests.post(client, "/reset/\(token)", ["password": "short"])
            #expect(weak.status == .unprocessableContent)
            let set = try await AccountPageTests.post(client, "/reset/\(token)", ["password": "a new long password"])
            #expect(set.status == .ok)
            #expect(try await client.call(.get, "/v1/me", token: ada).status == .unauthorized, "sessions ended")
            #expect(try await client.webSignIn("ada", password: "a new long password").reply.status == .seeOther)
            #expect(try await client.webSignIn("ada").reply.status != .seeOther, "the old password no longer works")
            let again = try await AccountPageTests.post(client, "/reset/\(token)", ["password": "yet another password"])
            #expect(again.status == .notFound, "a link works once")

            // Using one link voids the others; so does a new password set in the settings.
            let first = try await repository.issuePasswordReset(username: "ada", now: clock.now)
            let second = try await repository.issuePasswordReset(username: "ada", now: clock.now)
            #expect(
                try await AccountPageTests.post(client, "/reset/\(first)", ["password": "the third long password"])
                    .status == .ok)
            #expect(try await client.call(.get, "/reset/\(second)").status == .notFound, "the other link is void")
            let waiting = try await repository.issuePasswordReset(username: "ada", now: clock.now)
            let cookie = try await client.webSignIn("ada", password: "the third long password").cookie
            let changed = try await AccountPageTests.post(
                client, "/settings/password",
                ["current_password": "the third long password", "password": "the fourth long password"], cookie: cookie)
            #expect(changed.status == .seeOther)
            #expect(try await client.call(.get, "/reset/\(waiting)").status == .notFound, "a new password voids it")

            let late = try await repository.issuePasswordReset(username: "ada", now: clock.now)
            clock.advance(seconds: 86_400 + 1)
            #expect(try await client.call(.get, "/reset/\(late)").status == .notFound, "a day later it has expired")
            await #expect(throws: StoreError.self) {
                _ = try await repository.issuePasswordReset(username: "nobody", now: clock.now)
            }
        }
    }

    @Test("handoff-store account reset-password prints the link for the store's address, and names a missing account")
    func command() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data").path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let repository = try await StoreRepository(try SQLiteDatabase(path: data + "/store.sqlite"))
        let service = AccountService(
            repository: repository,
            configuration: {
                var configuration = AccountService.Configuration()
                configuration.bcryptCost = 4
                return configuration
            }(), now: { WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970) })
        _ = try await service.signUp(
            email: "ada@example.org", username: "ada", password: "correct horse battery", address: "127.0.0.1")
        let printed = try await runProcessAsync(
            Products.url("handoff-store"),
            ["account", "reset-password", "ada", "--data", data, "--url", "https://club.example.org/"],
            environment: [:])
        #expect(printed.status == 0, "\(printed.stderr)")
        let link = printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(link.hasPrefix("https://club.example.org/reset/") && link.count == 31 + 64, "\(link)")
        #expect(printed.stderr.contains("give this link to ada only"))
        let token = String(link.dropFirst("https://club.example.org/reset/".count))
        #expect(try await repository.issuePasswordReset(username: "ada", now: .init(secondsSinceEpoch: 0)) != token)
        let missing = try await runProcessAsync(
            Products.url("handoff-store"), ["account", "reset-password", "nobody", "--data", data], environment: [:])
        #expect(missing.status != 0 && missing.stderr.contains("no account is named nobody"))
    }
}
