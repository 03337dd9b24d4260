import Foundation
import GroupStore
import HandoffAPI
import HandoffModel
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// PostgreSQL refusing the store, in process, on the shared test server: the test's own database
/// stops taking connections (`ALLOW_CONNECTIONS false`) and its sessions are ended, which is what
/// the store sees of a server that stops or restarts. StoreFaultTests stops a whole server.
@Suite("PostgreSQL refusing connections: 503 with Retry-After at once, and back by itself")
struct PostgresFaultTests {
    static var logger: Logger {
        var logger = Logger(label: "store.test")
        logger.logLevel = .critical
        return logger
    }

    /// Runs `sql` on the admin database (`postgres`), about the test's own database only.
    static func admin(_ sql: String) async throws {
        let database = try PostgresDatabase(url: try Backend.postgresAdminURL(), logger: logger)
        _ = try await database.whileRunning { try await database.write { try await $0.query(sql, []) } }
    }

    static func name(_ repository: StoreRepository) async throws -> String {
        try await repository.database.read { try await $0.one("SELECT current_database() AS name") }?.text("name") ?? ""
    }

    static func endSessions(_ name: String) async throws {
        try await admin(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid()"
        )
    }

    @Test("Every request gets 503 database_unavailable with Retry-After within 2 s; allowed again, 200 within 2 s")
    func refusingDatabase() async throws {
        _ = try Backend.postgresAdminURL()
        let harness = try StoreHarness(.postgres)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let group = try await client.createGroup(ada).id
            let cookie = try await client.webSignIn("ada").cookie
            // A FIT file holds whole seconds: its start must not fall before the group was made.
            let start = harness.clock.now.advanced(byNanoseconds: 2_000_000_000)
            var files: [String: [UInt8]] = [:]
            let first = UUID().uuidString.lowercased()
            files[first] = FaultCalls.run(start, 0)
            #expect(try await client.faultUpload(ada, uuid: first, file: files[first] ?? []).status == .created)

            let name = try await Self.name(repository)
            try await Self.admin("ALTER DATABASE \"\(name)\" ALLOW_CONNECTIONS false")
            do {
                try await Self.endSessions(name)
                var refused: [String] = []
                for index in 1...6 {
                    let uuid = UUID().uuidString.lowercased()
                    files[uuid] = FaultCalls.run(start, index)
                    for (method, uri) in [
                        (HTTPRequest.Method.get, "/v1/groups/\(group)/progress"), (.get, "/v1/runs"), (.put, uuid),
                    ] {
                        let began = ContinuousClock.now
                        let reply =
                            method == .put
                            ? try await client.faultUpload(ada, uuid: uuid, file: files[uuid] ?? [])
                            : try await client.faultCall(method, uri, token: ada)
                        let took = ContinuousClock.now - began
                        #expect(took < .seconds(2), "\(uri) took \(took)")
                        Self.expectUnavailable(reply, uri)
                    }
                    refused.append(uuid)
                    try await Task.sleep(for: .milliseconds(100))
                }
                let page = try await client.faultCall(.get, "/groups/\(group)", headers: [.cookie: cookie])
                #expect(page.status == .serviceUnavailable && page.headers[.retryAfter] == "2")
                #expect(page.text.contains("cannot reach its database"))

                try await Self.admin("ALTER DATABASE \"\(name)\" ALLOW_CONNECTIONS true")
                let allowed = ContinuousClock.now
                var status = HTTPResponse.Status.serviceUnavailable
                while status != .ok, ContinuousClock.now - allowed < .seconds(5) {
                    status = try await client.faultCall(.get, "/v1/runs", token: ada).status
                    if status != .ok { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(status == .ok)
                #expect(ContinuousClock.now - allowed < .seconds(2), "back after \(ContinuousClock.now - allowed)")
                for uuid in refused {
                    #expect(try await client.faultUpload(ada, uuid: uuid, file: files[uuid] ?? []).status == .created)
                }
                let progress = try await client.faultCall(.get, "/v1/groups/\(group)/progress", token: ada)
                let total = try progress.decode(ProgressView.self).group.totalM
                let expected = try files.values.reduce(Int64(0)) { $0 + (try RunFiles.distanceMM($1)) }
                #expect(Int64((total * 1000).rounded()) == expected)
                try await checkTotals(repository)
            } catch {
                try? await Self.admin("ALTER DATABASE \"\(name)\" ALLOW_CONNECTIONS true")
                throw error
            }
        }
    }

    @Test("Connections ended by the server while idle are replaced: the next requests get 200")
    func endedConnectionsReplaced() async throws {
        _ = try Backend.postgresAdminURL()
        try await StoreHarness(.postgres).run { client, repository in
            let ada = try await client.signUp("ada")
            let name = try await Self.name(repository)
            for _ in 0..<3 {
                // Several connections open, then idle.
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    for _ in 0..<4 { tasks.addTask { _ = try await client.faultCall(.get, "/v1/runs", token: ada) } }
                    try await tasks.waitForAll()
                }
                try await Self.endSessions(name)
                for _ in 0..<4 {
                    let reply = try await client.faultCall(.get, "/v1/runs", token: ada)
                    #expect(reply.status == .ok, "\(reply.status) \(reply.text)")
                }
            }
        }
    }

    static func expectUnavailable(_ reply: Reply, _ uri: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            reply.status == .serviceUnavailable, "\(uri): \(reply.status) \(reply.text)", sourceLocation: sourceLocation
        )
        #expect(reply.headers[.retryAfter] == "2", "\(uri)", sourceLocation: sourceLocation)
        #expect(reply.errorCode == "database_unavailable", "\(uri)", sourceLocation: sourceLocation)
    }
}
