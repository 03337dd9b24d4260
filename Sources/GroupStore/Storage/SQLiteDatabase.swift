import Foundation
import GRDBSQLite

/// SQLite through its C API (the system library, as GRDB links it): one writer connection and a
/// few readers, in WAL mode so readers never wait for the writer. Transactions are async so the
/// repository code is the same as on PostgreSQL; each statement runs on the calling thread and
/// is short.
public final class SQLiteDatabase: SQLDatabase {
    public let dialect = SQLDialect.sqlite
    private let writer: ConnectionLease
    private let readers: ConnectionLease

    /// `options` nil: the defaults, or the benchmark's environment knobs (`Options.environment`).
    public init(path: String, readers count: Int = 4, options: Options? = nil) throws {
        let options = try options ?? Options.environment(ProcessInfo.processInfo.environment)
        let first = try SQLiteConnection(path: path, options: options)
        try first.run("PRAGMA journal_mode = WAL")
        // The WAL file shrinks back to this after a checkpoint, instead of keeping its peak size.
        try first.run("PRAGMA journal_size_limit = \(64 << 20)")
        writer = ConnectionLease([first])
        readers = ConnectionLease(try (0..<count).map { _ in try SQLiteConnection(path: path, options: options) })
    }

    /// Memory for reading: a page cache per connection, and the database file mapped into memory,
    /// whose pages every connection shares (SQLite maps at most 2 GiB, its build's limit). The
    /// defaults come from the sweep in BENCHMARKS.md ("SQLite's memory").
    public struct Options: Sendable, Equatable {
        /// Each connection's page cache, in MiB (SQLite's own default is 2).
        public var cacheMiB: Int
        /// How much of the database file is read through a memory map, in MiB (0: none).
        public var mmapMiB: Int

        public init(cacheMiB: Int = 32, mmapMiB: Int = 1024) {
            self.cacheMiB = cacheMiB
            self.mmapMiB = mmapMiB
        }

        /// The defaults, with HANDOFF_STORE_SQLITE_CACHE_MB and HANDOFF_STORE_SQLITE_MMAP_MB where
        /// set: knobs for benchmarks, so a sweep needs no rebuild.
        public static func environment(_ environment: [String: String]) throws -> Options {
            func mebibytes(_ name: String, _ fallback: Int) throws -> Int {
                guard let text = environment[name], !text.isEmpty else { return fallback }
                guard let value = Int(text), (0...65_536).contains(value) else {
                    throw SQLError.failed(
                        "\(name) is \"\(text)\": give a whole number of MiB from 0 to 65536, or unset it")
                }
                return value
            }
            let standard = Options()
            return Options(
                cacheMiB: try mebibytes("HANDOFF_STORE_SQLITE_CACHE_MB", standard.cacheMiB),
                mmapMiB: try mebibytes("HANDOFF_STORE_SQLITE_MMAP_MB", standard.mmapMiB))
        }

        /// Set on every connection. Temporary tables and sorts stay in memory.
        var pragmas: String {
            "PRAGMA cache_size = -\(cacheMiB * 1024); PRAGMA mmap_size = \(mmapMiB << 20); PRAGMA temp_store = MEMORY"
        }
    }

    public func write<T: Sendable>(_ body: @Sendable (any SQLSession) async throws -> T) async throws -> T {
        try await writer.with { connection in
            try connection.run("BEGIN IMMEDIATE")
            do {
                let value = try await body(connection)
                try connection.run("COMMIT")
                return value
            } catch {
                try? connection.run("ROLLBACK")
                throw error
            }
        }
    }

    public func readStatement(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        try await read { try await $0.query(sql, arguments) }
    }

    public func read<T: Sendable>(_ body: @Sendable (any SQLSession) async throws -> T) async throws -> T {
        try await readers.with { connection in
            try connection.run("BEGIN")
            defer { try? connection.run("COMMIT") }
            return try await body(connection)
        }
    }

    /// Runs a PRAGMA (or other setting) on the writer connection, between transactions: tests
    /// cap `max_page_count` to fill the disk without filling one.
    func setWriter(_ sql: String) async throws {
        try await writer.with { connection in try connection.run(sql) }
    }
}

/// Connections lent one task at a time; a task waits (in order) when all are out.
actor ConnectionLease {
    private var free: [SQLiteConnection]
    private var waiting: [CheckedContinuation<SQLiteConnection, Never>] = []

    init(_ connections: [SQLiteConnection]) { free = connections }

    func with<T: Sendable>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        let connection = await take()
        defer { give(connection) }
        return try await body(connection)
    }

    private func take() async -> SQLiteConnection {
        if let connection = free.popLast() { return connection }
        return await withCheckedContinuation { waiting.append($0) }
    }

    private func give(_ connection: SQLiteConnection) {
        if waiting.isEmpty { free.append(connection) } else { waiting.removeFirst().resume(returning: connection) }
    }
}

/// One SQLite connection with a cache of prepared statements. Used by one task at a time (the
/// lease guarantees it), hence `@unchecked Sendable`.
final class SQLiteConnection: SQLSession, @unchecked Sendable {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    init(path: String, options: SQLiteDatabase.Options) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw SQLError.failed("cannot open \(path): \(message)")
        }
        handle = db
        sqlite3_busy_timeout(db, 10_000)
        try run("PRAGMA foreign_keys = ON")
        try run("PRAGMA synchronous = FULL")
        try run(options.pragmas)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without results (several statements allowed).
    func run(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    @discardableResult
    func query(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] { try rows(sql, arguments) }

    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        try SQLValue.checkText(arguments)
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, value) in arguments.enumerated() {
            let index = CInt(offset + 1)
            switch value {
            case .integer(let v): sqlite3_bind_int64(statement, index, v)
            case .real(let v): sqlite3_bind_double(statement, index, v)
            case .text(let v):
                // With its UTF-8 length: SQLite would stop at a NUL if asked to find the end.
                // An empty string is bound as "" (a nil pointer would bind NULL).
                var text = v
                text.withUTF8 { bytes in
                    guard let base = bytes.baseAddress, !bytes.isEmpty else {
                        _ = sqlite3_bind_text(statement, index, "", 0, SQLITE_TRANSIENT)
                        return
                    }
                    base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        _ = sqlite3_bind_text(statement, index, $0, CInt(bytes.count), SQLITE_TRANSIENT)
                    }
                }
            case .blob(let v):
                v.withUnsafeBytes { bytes in
                    _ = sqlite3_bind_blob(statement, index, bytes.baseAddress, CInt(bytes.count), SQLITE_TRANSIENT)
                }
            case .null: sqlite3_bind_null(statement, index)
            }
        }
        let count = sqlite3_column_count(statement)
        var columns: [String: Int] = [:]
        for i in 0..<count { columns[String(cString: sqlite3_column_name(statement, i))] = Int(i) }
        var result: [SQLRow] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw error(sql) }
            var values: [SQLValue] = []
            values.reserveCapacity(Int(count))
            for i in 0..<count {
                switch sqlite3_column_type(statement, i) {
                case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(statement, i)))
                case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(statement, i)))
                case SQLITE_TEXT:
                    // By its byte length, not up to the first NUL (text first, then its length).
                    let base = UnsafeRawPointer(sqlite3_column_text(statement, i))
                    let bytes = UnsafeRawBufferPointer(start: base, count: Int(sqlite3_column_bytes(statement, i)))
                    values.append(.text(String(decoding: bytes, as: UTF8.self)))
                case SQLITE_BLOB:
                    let length = Int(sqlite3_column_bytes(statement, i))
                    if let base = sqlite3_column_blob(statement, i), length > 0 {
                        values.append(.blob(Array(UnsafeRawBufferPointer(start: base, count: length))))
                    } else {
                        values.append(.blob([]))
                    }
                default: values.append(.null)
                }
            }
            result.append(SQLRow(columns: columns, values: values))
        }
        return result
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
            let statement
        else { throw error(sql) }
        statements[sql] = statement
        return statement
    }

    private func error(_ sql: String) -> SQLError {
        let message = String(cString: sqlite3_errmsg(handle))
        let code = sqlite3_extended_errcode(handle)
        // SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY (macros Swift does not import).
        if code == SQLITE_CONSTRAINT | (8 << 8) || code == SQLITE_CONSTRAINT | (6 << 8) {
            return .uniqueViolation(message)
        }
        // A full disk (or quota). SQLite may have rolled the transaction back already; the
        // caller's ROLLBACK ends it either way, so the connection stays usable.
        let system = sqlite3_system_errno(handle)
        if code & 0xff == SQLITE_FULL || (code & 0xff == SQLITE_IOERR && (system == ENOSPC || system == EDQUOT)) {
            return .storageFull("\(message) (SQLite \(code), errno \(system)) in: \(sql.prefix(120))")
        }
        return .failed("\(message) (SQLite \(code)) in: \(sql.prefix(120))")
    }
}

/// SQLite copies bound text and blobs (the Swift values do not outlive the call).
private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
