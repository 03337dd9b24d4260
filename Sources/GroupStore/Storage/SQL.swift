import Foundation

/// A value bound to, or read from, SQL. The store's schema uses only these four types (plus
/// NULL), which both engines hold exactly: integers are 64-bit, distances integer millimetres.
public enum SQLValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
}

/// Conversions into `SQLValue` for the types the repositories bind.
public protocol SQLBindable { var sqlValue: SQLValue { get } }
extension Int64: SQLBindable { public var sqlValue: SQLValue { .integer(self) } }
extension Int: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension Double: SQLBindable { public var sqlValue: SQLValue { .real(self) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension [UInt8]: SQLBindable { public var sqlValue: SQLValue { .blob(self) } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

/// One result row, read by column name. Every accessor throws (`SQLError.unreadable`) rather
/// than guess: on a column the result does not have, on a value of another type, and, for the
/// non-optional ones, on NULL. A query and the code reading it that disagree fail that request
/// with a 500 that the log explains; they neither trap the server nor read NULL as 0 or "".
public struct SQLRow: Sendable {
    let columns: [String: Int]
    let values: [SQLValue]

    init(columns: [String: Int], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of a column, NULL included.
    public func value(_ name: String) throws(SQLError) -> SQLValue {
        guard let index = columns[name] else {
            throw .unreadable(
                "the result has no column \(name) (it has \(columns.keys.sorted().joined(separator: ", ")))")
        }
        return values[index]
    }

    public func int(_ name: String) throws(SQLError) -> Int64 {
        guard let value = try intOrNil(name) else { throw Self.null(name, "an integer") }
        return value
    }

    /// An integer column that may be NULL.
    public func intOrNil(_ name: String) throws(SQLError) -> Int64? {
        switch try value(name) {
        case .integer(let v): v
        case .null: nil
        case let other: throw Self.wrongType(name, other, "an integer")
        }
    }

    public func text(_ name: String) throws(SQLError) -> String {
        guard let value = try textOrNil(name) else { throw Self.null(name, "text") }
        return value
    }

    /// A text column that may be NULL.
    public func textOrNil(_ name: String) throws(SQLError) -> String? {
        switch try value(name) {
        case .text(let v): v
        case .null: nil
        case let other: throw Self.wrongType(name, other, "text")
        }
    }

    public func blob(_ name: String) throws(SQLError) -> [UInt8] {
        switch try value(name) {
        case .blob(let v): return v
        case .null: throw Self.null(name, "bytes")
        case let other: throw Self.wrongType(name, other, "bytes")
        }
    }

    static func null(_ name: String, _ expected: String) -> SQLError {
        .unreadable("the column \(name) is NULL where \(expected) was expected")
    }

    static func wrongType(_ name: String, _ value: SQLValue, _ expected: String) -> SQLError {
        let found =
            switch value {
            case .integer: "an integer"
            case .real: "a real number"
            case .text: "text"
            case .blob: "bytes"
            case .null: "NULL"
            }
        return .unreadable("the column \(name) holds \(found) where \(expected) was expected")
    }
}

/// Statements inside one transaction. SQL is written once for both engines with `?`
/// placeholders; the PostgreSQL driver numbers them.
public protocol SQLSession {
    @discardableResult
    func query(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow]
}

extension SQLSession {
    @discardableResult
    public func query(_ sql: String, _ arguments: any SQLBindable...) async throws -> [SQLRow] {
        try await query(sql, arguments.map(\.sqlValue))
    }

    public func one(_ sql: String, _ arguments: any SQLBindable...) async throws -> SQLRow? {
        try await query(sql, arguments.map(\.sqlValue)).first
    }
}

extension SQLValue {
    /// Refuses text arguments holding NUL, before either engine sees them.
    static func checkText(_ arguments: [SQLValue]) throws(SQLError) {
        for case .text(let text) in arguments where text.utf8.contains(0) { throw .nulInText }
    }
}

/// What differs between the engines where one SQL text cannot serve both.
public enum SQLDialect: Sendable {
    case sqlite
    case postgres
}

/// A database engine: transactions of statements. `write` runs its body in one read-write
/// transaction, committed when it returns and rolled back when it throws.
public protocol SQLDatabase: Sendable {
    var dialect: SQLDialect { get }
    @discardableResult
    func write<T: Sendable>(_ body: @Sendable (any SQLSession) async throws -> T) async throws -> T
    /// A read-only transaction: one consistent snapshot.
    func read<T: Sendable>(_ body: @Sendable (any SQLSession) async throws -> T) async throws -> T
    /// One read-only statement on its own (consistent by itself): on PostgreSQL without the
    /// transaction around it.
    func readStatement(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow]
}

/// A failure the engine reports in terms the repository can act on.
public enum SQLError: Error, CustomStringConvertible {
    /// A UNIQUE or PRIMARY KEY constraint refused the row (a concurrent writer got there first).
    case uniqueViolation(String)
    /// A text argument holds NUL (U+0000): PostgreSQL cannot store it and SQLite's C strings end
    /// at it, so neither engine is given one.
    case nulInText
    /// A result column is missing, NULL or of another type than the code reading it expects.
    case unreadable(String)
    /// The database cannot be reached now (stopped, restarting, refusing connections, or every
    /// connection busy): the request may succeed later, so the API answers 503 with Retry-After.
    case unavailable(String)
    /// The disk under the database is full: nothing was written, and reads still work.
    case storageFull(String)
    case failed(String)

    public var description: String {
        switch self {
        case .uniqueViolation(let message): "unique constraint: \(message)"
        case .nulInText: "a text value holds NUL (U+0000)"
        case .unreadable(let message): message
        case .unavailable(let message): message
        case .storageFull(let message): message
        case .failed(let message): message
        }
    }
}
