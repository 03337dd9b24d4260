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

/// One result row, read by column name.
public struct SQLRow: Sendable {
    let columns: [String: Int]
    let values: [SQLValue]

    init(columns: [String: Int], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    public subscript(_ name: String) -> SQLValue {
        guard let index = columns[name] else { preconditionFailure("no column \(name) in the result") }
        return values[index]
    }

    public func int(_ name: String) -> Int64 {
        switch self[name] {
        case .integer(let v): v
        case .real(let v): Int64(v)
        case .text(let v): Int64(v) ?? 0
        case .blob, .null: 0
        }
    }

    public func optionalInt(_ name: String) -> Int64? {
        if case .null = self[name] { return nil }
        return int(name)
    }

    public func text(_ name: String) -> String {
        switch self[name] {
        case .text(let v): v
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .blob(let v): String(decoding: v, as: UTF8.self)
        case .null: ""
        }
    }

    public func optionalText(_ name: String) -> String? {
        if case .null = self[name] { return nil }
        return text(name)
    }

    public func blob(_ name: String) -> [UInt8] {
        switch self[name] {
        case .blob(let v): v
        case .text(let v): Array(v.utf8)
        default: []
        }
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
}

/// A failure the engine reports in terms the repository can act on.
public enum SQLError: Error, CustomStringConvertible {
    /// A UNIQUE or PRIMARY KEY constraint refused the row (a concurrent writer got there first).
    case uniqueViolation(String)
    /// A text argument holds NUL (U+0000): PostgreSQL cannot store it and SQLite's C strings end
    /// at it, so neither engine is given one.
    case nulInText
    case failed(String)

    public var description: String {
        switch self {
        case .uniqueViolation(let message): "unique constraint: \(message)"
        case .nulInText: "a text value holds NUL (U+0000)"
        case .failed(let message): message
        }
    }
}
