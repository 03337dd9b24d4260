import Foundation
import HandoffAPI
import HandoffModel
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GroupStore

/// SQLite's disk filling up, in process: the writer connection is capped at the database's
/// current size (`PRAGMA max_page_count`), which fails a write exactly as a full disk does
/// (SQLITE_FULL). StoreFaultTests fills a real file system.
@Suite(
    "A full disk under SQLite: writes get 507 storage_full, reads keep working, writes work again once there is room")
struct StorageFullTests {
    @Test("Uploads get 507 in words; runs, progress, the group page and a pack's reads get 200")
    func fullDatabase() async throws {
        let harness = try StoreHarness(.sqlite)
        try await harness.run { client, repository in
            let sqlite = try #require(repository.database as? SQLiteDatabase)
            let ada = try await client.signUp("ada")
            let group = try await client.createGroup(ada).id
            let cookie = try await client.webSignIn("ada").cookie
            let pack = try await DeviceTests.link(client, ada)
            // A FIT file holds whole seconds: its start must not fall before the group was made.
            let start = harness.clock.now.advanced(byNanoseconds: 2_000_000_000)
            var files: [String: [UInt8]] = [:]
            for index in 0..<3 {
                let uuid = UUID().uuidString.lowercased()
                files[uuid] = FaultCalls.run(start, index)
                #expect(try await client.faultUpload(ada, uuid: uuid, file: files[uuid] ?? []).status == .created)
            }

            // The database may not grow: the next new page fails as a full disk.
            let pages = try await repository.database.read { try await $0.one("PRAGMA page_count") }
            try await sqlite.setWriter("PRAGMA max_page_count = \(try #require(pages?.int("page_count")))")
            var refused: [String] = []
            for index in 3..<8 {
                let uuid = UUID().uuidString.lowercased()
                files[uuid] = FaultCalls.run(start, index)
                let reply = try await client.faultUpload(ada, uuid: uuid, file: files[uuid] ?? [])
                #expect(reply.status == .created || reply.status.code == 507, "\(reply.status) \(reply.text)")
                if reply.status.code == 507 {
                    refused.append(uuid)
                    Self.expectStorageFull(reply)
                }
            }
            #expect(refused.count >= 4, "at most one upload fits in a free page")
            // Reads: a pack's token marks its pack seen (a write) once a minute; that is skipped.
            harness.clock.advance(seconds: 120)
            for (uri, token) in [
                ("/v1/runs", ada), ("/v1/groups/\(group)/progress", ada), ("/v1/groups", pack),
                ("/v1/groups/\(group)/baton", pack),
            ] {
                let reply = try await client.faultCall(.get, uri, token: token)
                #expect(reply.status == .ok, "\(uri): \(reply.status) \(reply.text)")
            }
            let page = try await client.faultCall(.get, "/groups/\(group)", headers: [.cookie: cookie])
            #expect(page.status == .ok && page.text.contains("Relay club"), "\(page.status)")

            // Room again: the refused uploads go through, and every total is exact.
            try await sqlite.setWriter("PRAGMA max_page_count = 1000000000")
            for uuid in refused {
                #expect(try await client.faultUpload(ada, uuid: uuid, file: files[uuid] ?? []).status == .created)
            }
            #expect(try await client.faultCall(.get, "/v1/groups", token: pack).status == .ok)
            let progress = try await client.faultCall(.get, "/v1/groups/\(group)/progress", token: ada)
            let total = try progress.decode(ProgressView.self).group.totalM
            let expected = try files.values.reduce(Int64(0)) { $0 + (try RunFiles.distanceMM($1)) }
            #expect(Int64((total * 1000).rounded()) == expected)
            try await checkTotals(repository)
        }
    }

    @Test("A page that hits a full disk or a database that is down says so in HTML, with the API's status and words")
    func faultPages() async throws {
        let full = PageRouter.fault(.storageFull)
        #expect(full.status.code == 507 && full.headers[.contentType]?.hasPrefix("text/html") == true)
        let page = try await Self.text(full)
        #expect(page.contains("<h1>The store&#39;s disk is full</h1>"))
        #expect(page.contains("The store&#39;s disk is full, so nothing was saved. Reading still works"))
        let down = PageRouter.fault(.databaseUnavailable)
        #expect(down.status == .serviceUnavailable && down.headers[.retryAfter] == "2")
        #expect(try await Self.text(down).contains("cannot reach its database"))
    }

    /// A response's body, as the server would write it.
    static func text(_ response: Response) async throws -> String {
        final class Collected: @unchecked Sendable { var buffer = ByteBuffer() }
        struct Writer: ResponseBodyWriter {
            let collected: Collected
            mutating func write(_ buffer: ByteBuffer) async throws { collected.buffer.writeImmutableBuffer(buffer) }
            consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
        }
        let collected = Collected()
        try await response.body.write(Writer(collected: collected))
        return String(buffer: collected.buffer)
    }

    static func expectStorageFull(_ reply: Reply, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status.code == 507, "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.errorCode == "storage_full", sourceLocation: sourceLocation)
        #expect(
            reply.errorMessage
                == "The store's disk is full, so nothing was saved. Reading still works; try again later. The operator must free space in the data directory.",
            sourceLocation: sourceLocation)
    }
}
