import GRDB
import GRDBSQLite

/// The recorder's own SQLite connection: the batch of every recorded second is written here, with
/// statements prepared once, in a transaction of its own, without GRDB's queue or an async hop.
///
/// It is opened on the file GRDB has migrated, beside GRDB's connections (WAL lets them share the
/// file; SQLite's locks order their writes, and `BEGIN IMMEDIATE` waits for the other writer under
/// the busy timeout instead of failing half-way). Not thread-safe: `PackDatabase` keeps it under a
/// lock.
final class RecordingJournal {
    let connection: OpaquePointer
    let statements: JournalStatements

    /// How long a commit waits for the other writer (GRDB's connection) before it fails, in ms.
    static let busyTimeoutMilliseconds: CInt = 5000

    /// Opens the journal at `path`, which must exist and be migrated.
    init(path: String, pageCacheKibibytes: Int) throws {
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message)
        }
        connection = opened
        statements = JournalStatements(connection: opened, persistent: true)
        sqlite3_extended_result_codes(opened, 1)
        sqlite3_busy_timeout(opened, Self.busyTimeoutMilliseconds)
        do {
            // Per connection, so set here too: a commit is on the card when it returns, rows
            // keep their references, and the page cache stays small.
            try execute("PRAGMA synchronous = FULL")
            try execute("PRAGMA foreign_keys = ON")
            try execute("PRAGMA cache_size = -\(pageCacheKibibytes)")
            let settings = try ["journal_mode", "synchronous", "foreign_keys"].map { try answer("PRAGMA \($0)") }
            guard settings == ["wal", "2", "1"] else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "the journal's connection did not take its settings (journal_mode, synchronous, "
                        + "foreign_keys: \(settings.map { $0 ?? "none" }.joined(separator: ", ")))")
            }
        } catch {
            statements.finalize()
            sqlite3_close_v2(opened)
            throw error
        }
    }

    deinit {
        statements.finalize()
        sqlite3_close_v2(connection)
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: all of it is committed, or none of it.
    func transaction(_ body: (JournalStatements) throws -> Void) throws {
        var begin = try statements(.begin)
        try begin.step()
        do {
            try body(statements)
            var commit = try statements(.commit)
            try commit.step()
        } catch {
            statements.resetAll()
            if sqlite3_get_autocommit(connection) == 0 {
                var rollback = try statements(.rollback)
                try? rollback.step()
            }
            throw error
        }
    }

    /// Runs SQL once (the settings at open).
    private func execute(_ sql: String) throws {
        let code = sqlite3_exec(connection, sql, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
    }

    /// The first column of a pragma's answer, as text.
    func answer(_ sql: String) throws -> String? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw DatabaseError(
                resultCode: .SQLITE_ERROR, message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }
}
