import GRDB
import GRDBSQLite

/// Binds and steps a prepared GRDB statement through the SQLite C API, as GRDB's documentation
/// allows for "raw SQLite pointers". Used for the two inserts made every recorded second (points
/// and RR intervals): binding through `StatementArguments` boxes every value into an existential
/// and cost more instructions than SQLite's own work (BENCHMARKS.md).
struct RawInsert {
    private let statement: Statement
    private let handle: SQLiteStatement
    private var index: CInt = 0

    init(_ statement: Statement) {
        self.statement = statement
        handle = statement.sqliteStatement
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

    /// Runs the statement with the values bound, then readies it for the next row.
    mutating func step(_ db: Database) throws {
        precondition(
            index == sqlite3_bind_parameter_count(handle),
            "bound \(index) of \(sqlite3_bind_parameter_count(handle)) values")
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        index = 0
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
        }
    }
}
