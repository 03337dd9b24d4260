import Foundation
import Testing

@testable import GroupStore

/// Issue 31: PostgreSQL statements are prepared once per connection (planned once, bound and
/// executed after), with each placeholder typed as the unnamed statement typed it.
@Suite("Prepared statements on PostgreSQL")
struct PreparedStatementTests {
    @Test("Placeholders are numbered and cast to their argument's type, NULL left to the server, none inside quotes")
    func typedText() {
        let cache = PlaceholderCache()
        let sql = "SELECT ?, '?', \"a?\", ? WHERE x = ? AND y = ? AND z = ?"
        let arguments: [SQLValue] = [.integer(1), .null, .real(2), .text("t"), .blob([1])]
        #expect(
            cache.typed(sql, arguments)
                == "SELECT $1::int8, '?', \"a?\", $2 WHERE x = $3::float8 AND y = $4::text AND z = $5::bytea")
        #expect(cache.numbered(sql) == "SELECT $1, '?', \"a?\", $2 WHERE x = $3 AND y = $4 AND z = $5")
        // Another set of types is another text (another statement), the same set the same text.
        #expect(cache.typed("SELECT ?", [.null]) == "SELECT $1")
        #expect(cache.typed("SELECT ?", [.text("a")]) == "SELECT $1::text")
        #expect(cache.typed("SELECT ?", [.text("b")]) == "SELECT $1::text")
    }

    static let select = """
        SELECT i, r, s, b, c, flag, i + ? AS plus, coalesce(?, i) AS either, sum(i) OVER () AS total,
            CAST(sum(i) OVER () AS NUMERIC) / 3 AS third
        FROM sample WHERE s >= ? AND b <> ? ORDER BY i
        """

    static func sample(_ db: any SQLSession, _ either: SQLValue) async throws -> [[SQLValue]] {
        let rows = try await db.query(Self.select, [.integer(10), either, .text(""), .blob([0xff])])
        return try rows.map { row in
            try ["i", "r", "s", "b", "c", "flag", "plus", "either", "total", "third"].map { try row.value($0) }
        }
    }

    @Test(
        "A statement run again on a connection is prepared, and reads back what it read unnamed, value for value",
        arguments: Backend.available.filter { $0 == .postgres })
    func preparedReadsTheSame(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.withDatabase { database in
            let postgres = try #require(database as? PostgresDatabase)
            try await database.write { db in
                try await db.query(
                    "CREATE TABLE sample (i BIGINT, r DOUBLE PRECISION, s TEXT, b BYTEA, c INTEGER, flag BOOLEAN)")
                for (i, text) in [(1, "ada"), (2, "bø"), (3, "")] {
                    try await db.query(
                        "INSERT INTO sample VALUES (?, ?, ?, ?, ?, ?)",
                        [
                            .integer(Int64(i)), .real(Double(i) / 4), .text(text), .blob([UInt8(i), 0]), .integer(7),
                            .null,
                        ])
                }
                try await db.query("UPDATE sample SET flag = (i % 2 = 1)")
            }
            #expect(postgres.prepared.counts.statements == 1, "the INSERT, run three times, was prepared")
            let (unnamed, first, second, withNull) = try await database.read { db in
                (
                    try await Self.sample(db, .integer(99)), try await Self.sample(db, .integer(99)),
                    try await Self.sample(db, .integer(99)), try await Self.sample(db, .null)
                )
            }
            #expect(postgres.prepared.counts.statements == 2, "the SELECT too, on its second run")
            #expect(unnamed.count == 3)
            #expect(first == unnamed && second == unnamed)
            #expect(
                unnamed.first
                    == [
                        .integer(1), .real(0.25), .text("ada"), .blob([1, 0]), .integer(7), .integer(1), .integer(11),
                        .integer(99), .integer(6), .integer(2),
                    ])
            #expect(withNull.map { $0[7] } == [.integer(1), .integer(2), .integer(3)], "NULL typed by the server")
        }
    }

    @Test(
        "A statement the server dropped fails the one transaction that finds it gone; the next prepares it again",
        arguments: Backend.available.filter { $0 == .postgres })
    func droppedStatement(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.withDatabase { database in
            let postgres = try #require(database as? PostgresDatabase)
            let query = "SELECT CAST(? AS BIGINT) * 2 AS twice"
            _ = try await database.read { db in
                for _ in 0..<2 { _ = try await db.query(query, [.integer(21)]) }
                // What a pooler's reset (DISCARD ALL) does to the session.
                try await db.query("DEALLOCATE ALL", [])
            }
            #expect(postgres.prepared.counts.statements == 1)
            await #expect(throws: SQLError.self) {
                _ = try await database.read { db in try await db.query(query, [.integer(21)]) }
            }
            #expect(postgres.prepared.counts.statements == 0, "the connection's statements are forgotten")
            let again = try await database.read { db in
                var values: [Int64?] = []
                for _ in 0..<3 { values.append(try await db.one(query, 21)?.int("twice")) }
                return values
            }
            #expect(again == [42, 42, 42])
            #expect(postgres.prepared.counts.statements == 1)
        }
    }
}
