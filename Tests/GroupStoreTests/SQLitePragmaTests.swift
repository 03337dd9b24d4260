import Foundation
import GroupStore
import Synchronization
import TestSupport
import Testing

/// SQLite's memory settings (SQLiteDatabase.Options), read back from every connection.
@Suite("SQLite's pragmas")
struct SQLitePragmaTests {
    /// One pragma's value on the writer and on each of `readers` connections: the reads are held
    /// open together, so each takes a connection of its own.
    static func values(_ pragma: String, _ database: SQLiteDatabase, readers: Int) async throws -> [Int64] {
        let writer = try await database.write { db in try await db.one("PRAGMA \(pragma)")?.int(pragma) }
        let inside = Arrivals()
        let read = try await withThrowingTaskGroup(of: Int64?.self) { group in
            for _ in 0..<readers {
                group.addTask {
                    try await database.read { db in
                        inside.count.withLock { $0 += 1 }
                        // Wait (without blocking a thread) until every read holds a connection.
                        while inside.count.withLock({ $0 }) < readers { try await Task.sleep(for: .milliseconds(1)) }
                        return try await db.one("PRAGMA \(pragma)")?.int(pragma)
                    }
                }
            }
            return try await group.reduce(into: [Int64?]()) { $0.append($1) }
        }
        return ([writer] + read).map { $0 ?? -1 }
    }

    final class Arrivals: Sendable { let count = Mutex(0) }

    @Test("Every connection has the configured page cache and memory map, and temporary data in memory")
    func configured() async throws {
        let directory = try TemporaryDirectory()
        for options in [SQLiteDatabase.Options(), .init(cacheMiB: 2, mmapMiB: 0), .init(cacheMiB: 128, mmapMiB: 256)] {
            let path = directory.file("store-\(options.cacheMiB)-\(options.mmapMiB).sqlite").path
            let database = try SQLiteDatabase(path: path, readers: 3, options: options)
            // mmap applies to a database file that exists: give it a page.
            _ = try await database.write { db in try await db.query("CREATE TABLE t (x INTEGER)", []) }
            let cache = try await Self.values("cache_size", database, readers: 3)
            #expect(cache == Array(repeating: Int64(-options.cacheMiB * 1024), count: 4), "\(options)")
            let mmap = try await Self.values("mmap_size", database, readers: 3)
            #expect(mmap == Array(repeating: Int64(options.mmapMiB) << 20, count: 4), "\(options)")
            let temp = try await Self.values("temp_store", database, readers: 3)
            #expect(temp == Array(repeating: 2, count: 4), "2 is MEMORY")
            let limit = try await database.write { db in
                try await db.one("PRAGMA journal_size_limit")?.int("journal_size_limit")
            }
            #expect(limit == 64 << 20)
        }
    }

    @Test("The defaults are 32 MiB of cache per connection and a 1 GiB map, unless the environment says otherwise")
    func environment() throws {
        #expect(SQLiteDatabase.Options() == .init(cacheMiB: 32, mmapMiB: 1024))
        #expect(try SQLiteDatabase.Options.environment([:]) == SQLiteDatabase.Options())
        let set = try SQLiteDatabase.Options.environment([
            "HANDOFF_STORE_SQLITE_CACHE_MB": "128", "HANDOFF_STORE_SQLITE_MMAP_MB": "0",
        ])
        #expect(set == .init(cacheMiB: 128, mmapMiB: 0))
        let empty = try SQLiteDatabase.Options.environment(["HANDOFF_STORE_SQLITE_MMAP_MB": ""])
        #expect(empty == SQLiteDatabase.Options(), "empty is unset")
        for bad in ["-1", "lots", "1.5", "65537"] {
            #expect {
                _ = try SQLiteDatabase.Options.environment(["HANDOFF_STORE_SQLITE_CACHE_MB": bad])
            } throws: { error in
                let text = "\(error)"
                return text.contains("HANDOFF_STORE_SQLITE_CACHE_MB is \"\(bad)\"") && text.contains("whole number")
            }
        }
    }
}
