import GRDB
import GRDBSQLite

/// Every statement the recorder's commit runs, and recovery and import with it: one text each, so
/// the paths that write a run cannot drift apart.
enum JournalSQL: Int, CaseIterable {
    case begin, commit, rollback
    case point, rrInterval, event, lap, startWall, state
    case finish, deleteSplits, split, outbox
    case sensorSelect, sensorInsert

    var text: String {
        switch self {
        case .begin: "BEGIN IMMEDIATE"
        case .commit: "COMMIT"
        case .rollback: "ROLLBACK"
        case .point:
            """
            INSERT OR REPLACE INTO point (session_id, elapsed_s, lat, lon, alt_m, fix, hdop, speed_mps,
                distance_m, hr_bpm, cadence_spm, moving, hr_sensor, footpod_sensor, gps_sensor, steps,
                cadence_rpm, bike_sensor)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        case .rrInterval:
            "INSERT OR REPLACE INTO rr_interval (session_id, sensor_id, offset_ns, seq, rr_1024) VALUES (?, ?, ?, ?, ?)"
        case .event: "INSERT INTO event (session_id, offset_ns, kind, sensor_id, detail) VALUES (?, ?, ?, ?, ?)"
        case .lap:
            """
            INSERT OR REPLACE INTO lap (session_id, lap_index, trigger, start_elapsed_s, end_elapsed_s, distance_m,
                timer_s, moving_s, avg_hr_bpm, max_hr_bpm, avg_cadence_spm, max_speed_mps, point_count,
                avg_cadence_rpm)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        case .startWall: "UPDATE session SET start_wall_ns = ?, clock_source = 'gps' WHERE id = ?"
        case .state: "UPDATE session SET state = ? WHERE id = ?"
        case .finish:
            """
            UPDATE session SET state = 'finished', recovered = ?, elapsed_s = ?, timer_s = ?, moving_s = ?,
                distance_m = ?, avg_hr_bpm = ?, max_hr_bpm = ?, avg_cadence_spm = ?, max_speed_mps = ?,
                point_count = ?, steps = ?, avg_cadence_rpm = ?
            WHERE id = ?
            """
        case .deleteSplits: "DELETE FROM split WHERE session_id = ?"
        case .split: "INSERT INTO split (session_id, km, distance_m, seconds, avg_hr_bpm) VALUES (?, ?, ?, ?, ?)"
        case .outbox: "INSERT OR IGNORE INTO outbox (session_id, enqueued_wall_ns) VALUES (?, ?)"
        case .sensorSelect: "SELECT id FROM sensor WHERE key = ?"
        case .sensorInsert: "INSERT INTO sensor (key, kind) VALUES (?, ?)"
        }
    }
}

/// The journal's statements on one SQLite connection, prepared once each through the C API.
///
/// On the recorder's own connection they are kept for the life of the connection (SQLite
/// prepares a kept statement again by itself when the schema changes); on a connection GRDB lends
/// for one transaction (import, recovery, an in-memory journal) they are finalized before it ends.
final class JournalStatements {
    let connection: OpaquePointer
    private let persistent: Bool
    private var prepared: [OpaquePointer?] = Array(repeating: nil, count: JournalSQL.allCases.count)

    init(connection: OpaquePointer, persistent: Bool) {
        self.connection = connection
        self.persistent = persistent
    }

    /// GRDB's connection, for the statements of one transaction.
    convenience init(lending db: Database) throws {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the journal's connection is closed")
        }
        self.init(connection: connection, persistent: false)
    }

    deinit { finalize() }

    /// The statement, ready to bind from its first value.
    func callAsFunction(_ sql: JournalSQL) throws -> JournalStatement {
        if let statement = prepared[sql.rawValue] {
            return JournalStatement(statement, sql: sql, connection: connection)
        }
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sqlite3_prepare_v3(connection, sql.text, -1, flags, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)),
                sql: sql.text)
        }
        prepared[sql.rawValue] = statement
        return JournalStatement(statement, sql: sql, connection: connection)
    }

    /// Finalizes every statement (they are prepared again when next used).
    func finalize() {
        for index in prepared.indices {
            sqlite3_finalize(prepared[index])
            prepared[index] = nil
        }
    }

    /// Resets every statement, so that none holds a read of a finished transaction.
    func resetAll() {
        for statement in prepared where statement != nil { sqlite3_reset(statement) }
    }
}

/// Binds and steps one of the journal's statements through the SQLite C API. Binding through
/// GRDB's `StatementArguments` boxes every value into an existential and cost more instructions
/// than SQLite's own work (BENCHMARKS.md).
struct JournalStatement {
    private let handle: OpaquePointer
    private let sql: JournalSQL
    private let connection: OpaquePointer
    private var index: CInt = 0

    init(_ handle: OpaquePointer, sql: JournalSQL, connection: OpaquePointer) {
        self.handle = handle
        self.sql = sql
        self.connection = connection
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    mutating func bind(_ value: Int64?) {
        index += 1
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    mutating func bind(_ value: Int?) { bind(value.map(Int64.init)) }

    mutating func bind(_ value: Bool) { bind(Int64(value ? 1 : 0)) }

    mutating func bind(_ value: Double?) {
        index += 1
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    mutating func bind(_ value: String?) {
        index += 1
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        // SQLITE_TRANSIENT: SQLite copies the text before the call returns.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        var text = value
        text.withUTF8 { bytes in
            _ = sqlite3_bind_text(handle, index, bytes.baseAddress, CInt(bytes.count), transient)
        }
    }

    /// Runs the statement with the values bound, then readies it for the next row.
    mutating func step() throws {
        _ = try run(row: false)
    }

    /// Runs a query and returns its first row's first column as an integer, or `nil` with no row.
    mutating func firstInteger() throws -> Int64? {
        try run(row: true)
    }

    private mutating func run(row: Bool) throws -> Int64? {
        precondition(
            index == sqlite3_bind_parameter_count(handle),
            "bound \(index) of \(sqlite3_bind_parameter_count(handle)) values")
        defer {
            sqlite3_reset(handle)
            index = 0
        }
        let code = sqlite3_step(handle)
        if row && code == SQLITE_ROW { return sqlite3_column_int64(handle, 0) }
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)),
                sql: sql.text)
        }
        return nil
    }
}
