import Foundation
import HandoffAPI
import HandoffModel
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import GroupStore

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

    @Test(
        "A connection the server ends between two statements of a transaction fails that request within 2 s, never leaves it waiting"
    )
    func endedBetweenStatements() async throws {
        _ = try Backend.postgresAdminURL()
        let harness = try StoreHarness(.postgres)
        try await harness.run { client, repository in
            let token = try await client.signUp("ada")
            let ada = try await TallyTests.accountID(repository, "ada")
            let name = try await Self.name(repository)
            // Inside the upload's transaction, before its COMMIT: the server ends this session
            // (as a stopping server does), and the test waits until that backend has exited.
            let endSession: @Sendable (any SQLSession) async throws -> Void = { db in
                let pid = try #require(try await db.one("SELECT pg_backend_pid() AS pid")?.int("pid"))
                try await Self.admin("SELECT pg_terminate_backend(\(pid))")
                let began = ContinuousClock.now
                while try await Self.backendCount(name, pid: pid) > 0, ContinuousClock.now - began < .seconds(5) {
                    try await Task.sleep(for: .milliseconds(20))
                }
                // Time for the client to read the server's FATAL and close its channel.
                try await Task.sleep(for: .milliseconds(300))
            }
            let finished = Atomic<Bool>(false)
            let upload = Task {
                defer { finished.store(true, ordering: .releasing) }
                return try await StoreRepository.$beforeRunCommit.withValue(endSession) {
                    try await repository.putRun(
                        TallyTests.run(start: harness.clock.now, distanceMM: 1_000_000), account: ada,
                        now: harness.clock.now)
                }
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while !finished.load(ordering: .acquiring), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            // Before the fix in PostgresSession.send, the COMMIT was dropped with the closed channel
            // and this upload never answered.
            let answered = finished.load(ordering: .acquiring)
            try #require(answered, "the upload is still waiting 10 s later")
            switch await upload.result {
            case .success: Issue.record("the upload was stored though its connection was ended before COMMIT")
            case .failure(let error as StoreError):
                #expect(error.status == .serviceUnavailable && error.code == "database_unavailable", "\(error)")
            case .failure(let error): Issue.record("expected 503 database_unavailable, got \(error)")
            }
            // Nothing was counted, and the next request gets a working connection.
            #expect(try await client.faultCall(.get, "/v1/runs", token: token).status == .ok)
            try await checkTotals(repository)
        }
    }

    @Test(
        "A database that takes no new connections while one is at work: requests wait for that one (200), they do not get 503"
    )
    func refusedConnectWaitsForLent() async throws {
        _ = try Backend.postgresAdminURL()
        let harness = try StoreHarness(.postgres)
        try await harness.run { client, repository in
            let token = try await client.signUp("ada")
            let ada = try await TallyTests.accountID(repository, "ada")
            let name = try await Self.name(repository)
            // No idle connection left: each request below needs a new one or the held one.
            try await Self.endSessions(name)
            let (entered, enter) = AsyncStream<Void>.makeStream()
            let (release, go) = AsyncStream<Void>.makeStream()
            let hold: @Sendable (any SQLSession) async throws -> Void = { _ in
                enter.yield()
                var iterator = release.makeAsyncIterator()
                _ = await iterator.next()
            }
            let held = Task {
                try await StoreRepository.$beforeRunCommit.withValue(hold) {
                    try await repository.putRun(
                        TallyTests.run(start: harness.clock.now, distanceMM: 1_000_000), account: ada,
                        now: harness.clock.now)
                }
            }
            var inside = entered.makeAsyncIterator()
            _ = await inside.next()
            try await Self.admin("ALTER DATABASE \"\(name)\" ALLOW_CONNECTIONS false")
            do {
                let requests = Task {
                    try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { tasks in
                        for _ in 0..<3 {
                            tasks.addTask { try await client.faultCall(.get, "/v1/runs", token: token).status }
                        }
                        return try await tasks.reduce(into: []) { $0.append($1) }
                    }
                }
                // The requests have found no connection to open; the held one comes back.
                try await Task.sleep(for: .milliseconds(200))
                go.yield()
                go.finish()
                let statuses = try await requests.value
                #expect(statuses == [.ok, .ok, .ok], "\(statuses)")
                #expect(try await held.value.created)
                try await Self.admin("ALTER DATABASE \"\(name)\" ALLOW_CONNECTIONS true")
            } catch {
                go.finish()
                try? await Self.admin("ALTER DATABASE \"\(name)\" ALLOW_CONNECTIONS true")
                throw error
            }
        }
    }

    static func backendCount(_ name: String, pid: Int64) async throws -> Int64 {
        let database = try PostgresDatabase(url: try Backend.postgresAdminURL(), logger: logger)
        return try await database.whileRunning {
            try await database.read { db in
                try await db.one(
                    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = ? AND pid = ?", name, pid)?.int("n")
                    ?? 0
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
