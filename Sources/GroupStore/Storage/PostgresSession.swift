import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Statements on one connection inside a transaction: those with arguments as named statements
/// prepared once per connection (`PreparedStatements`), the rest (BEGIN, COMMIT) unnamed.
struct PostgresSession: SQLSession {
    let connection: PostgresConnection
    let logger: Logger
    let statements: PlaceholderCache
    /// nil: every statement unnamed (a connection for one statement).
    let prepared: PreparedStatements?

    @discardableResult
    func query(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        try SQLValue.checkText(arguments)
        do {
            if let prepared, !arguments.isEmpty {
                let text = statements.typed(sql, arguments)
                if let query = try await statement(text, prepared) {
                    return try Self.rows(try await execute(query, arguments, prepared))
                }
            }
            var bindings = PostgresBindings(capacity: arguments.count)
            for argument in arguments {
                switch argument {
                case .integer(let v): bindings.append(v)  // int8
                case .real(let v): bindings.append(v)  // float8
                case .text(let v): bindings.append(v)  // text
                case .blob(let v): bindings.append(ByteBuffer(bytes: v))  // bytea
                // Type OID 0: the server infers the parameter's type from where it stands.
                case .null: bindings.appendNull()
                }
            }
            let query = PostgresQuery(unsafeSQL: statements.numbered(sql), binds: bindings)
            return try Self.rows(try await Self.send(query, on: connection, logger: logger).rows)
        } catch let error as PSQLError {
            throw Self.failure(error, sql)
        } catch let error as PostgresError {
            throw Self.failure(error, sql)
        } catch let error as PostgresDecodingError {
            throw SQLError.failed(
                "cannot read the column \(error.columnName) (PostgreSQL type \(error.postgresType)) of: \(sql.prefix(120))"
            )
        } catch let error as SQLError {
            throw error
        } catch  where connection.isClosed {
            // The legacy API hands a broken connection's error on as NIO's own.
            throw SQLError.unavailable(
                "lost the connection to PostgreSQL (\(error)) during: \(sql.prefix(120)): check that the server runs")
        }
    }

    /// The connection's prepared statement for `text`, prepared now when it is due; nil: run it
    /// unnamed.
    private func statement(_ text: String, _ prepared: PreparedStatements) async throws -> PreparedQuery? {
        if let query = prepared.lookup(connection, text) { return query }
        guard prepared.shouldPrepare(text, on: connection) else { return nil }
        let connection = connection
        let query = try await Self.onLoop(connection) { connection.prepare(query: text) }
        prepared.store(query, text, on: connection)
        return query
    }

    /// Executes a prepared statement from the connection's event loop, as `send` does.
    private func execute(
        _ query: PreparedQuery, _ arguments: [SQLValue], _ prepared: PreparedStatements
    ) async throws -> [PostgresRow] {
        let connection = connection
        let binds = arguments.map(\.postgresData)
        do {
            return try await Self.onLoop(connection) { query.execute(binds) }
        } catch PostgresError.server(let info) where ["26000", "0A000"].contains(info.fields[.sqlState] ?? "") {
            // The statement is gone (the server's DISCARD ALL) or no longer fits its tables (a
            // migration by another instance, "cached plan must not change result type"): the
            // connection prepares its statements again from the next transaction on.
            prepared.forget(connection)
            throw PostgresError.server(info)
        }
    }

    static let closedBeforeSending = SQLError.unavailable(
        "the connection to PostgreSQL had closed before the statement was sent: check that the server runs")

    /// Sends the statement from the connection's own event loop, after checking there that the
    /// connection is still open.
    ///
    /// PostgresNIO 1.33 writes a statement to its channel without a promise for the write. When
    /// the server has just ended the session (a FATAL 57P01 from a stopping server) the channel is
    /// closed and its handlers are being removed, and a statement written then is dropped: its
    /// result never comes, not even as an error, and the request would wait forever. On the event
    /// loop, an open channel still has its handlers, so the statement reaches PostgresNIO's state
    /// machine, which answers it or fails it when the connection closes.
    static func send(
        _ query: PostgresQuery, on connection: PostgresConnection, logger: Logger
    ) async throws -> PostgresQueryResult {
        try await onLoop(connection) { connection.query(query, logger: logger) }
    }

    /// `start` on the connection's event loop once it is still open there: at once when the task
    /// runs on that loop already (a transaction's does), else submitted to it.
    static func onLoop<T: Sendable>(
        _ connection: PostgresConnection, _ start: @escaping @Sendable () -> EventLoopFuture<T>
    ) async throws -> T {
        let loop = connection.eventLoop
        let guarded: @Sendable () -> EventLoopFuture<T> = {
            connection.isClosed ? loop.makeFailedFuture(closedBeforeSending) : start()
        }
        return try await (loop.inEventLoop ? guarded() : loop.flatSubmit(guarded)).get()
    }

    static func failure(_ error: PSQLError, _ sql: String) -> any Error {
        if let info = error.serverInfo { return failure(state: info[.sqlState], message: info[.message], sql) }
        switch error.code {
        case .queryCancelled: return CancellationError()
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed:
            return SQLError.unavailable(
                "lost the connection to PostgreSQL (\(error.code)) during: \(sql.prefix(120)): check that the server runs"
            )
        default:
            return SQLError.failed("the PostgreSQL driver failed (\(error.code)) in: \(sql.prefix(120))")
        }
    }

    /// The legacy error of a prepared statement (PostgresNIO turns its `PSQLError` into one).
    static func failure(_ error: PostgresError, _ sql: String) -> any Error {
        switch error {
        case .server(let info): failure(state: info.fields[.sqlState], message: info.fields[.message], sql)
        case .connectionClosed:
            SQLError.unavailable(
                "lost the connection to PostgreSQL during: \(sql.prefix(120)): check that the server runs")
        case .protocol(let message):
            SQLError.failed("the PostgreSQL driver failed (\(message.prefix(200))) in: \(sql.prefix(120))")
        }
    }

    /// A server's error: the message only (the detail can quote the failing row, a password hash
    /// say) and its SQLSTATE.
    static func failure(state: String?, message: String?, _ sql: String) -> any Error {
        let message = message ?? "the server refused the statement"
        let state = state ?? "?"
        if state == "23505" { return SQLError.uniqueViolation(message) }
        // disk_full: nothing was written.
        if state == "53100" { return SQLError.storageFull("\(message) (SQLSTATE \(state))") }
        // The server shutting down or restarting, too many connections, a connection failure.
        if ["57P01", "57P02", "57P03", "53300"].contains(state) || state.hasPrefix("08") {
            return SQLError.unavailable("\(message) (SQLSTATE \(state)) during: \(sql.prefix(120))")
        }
        return SQLError.failed("\(message) (SQLSTATE \(state)) in: \(sql.prefix(120))")
    }

    /// Column names come with each row (from the statement's row description, the same for all).
    static func rows(_ rows: [PostgresRow]) throws -> [SQLRow] {
        guard let first = rows.first else { return [] }
        var columns: [String: Int] = [:]
        // A name twice (SELECT * over a join): the last wins, as in SQLiteDatabase.
        for cell in first { columns[cell.columnName] = cell.columnIndex }
        return try rows.map { row in
            var values: [SQLValue] = []
            values.reserveCapacity(columns.count)
            for cell in row { values.append(try value(cell)) }
            return SQLRow(columns: columns, values: values)
        }
    }

    /// PostgresNIO asks for every result column in binary format. (A prepared statement's rows
    /// say text: the legacy API keeps the formats of the statement's description, while its Bind
    /// asks for binary like every other.)
    static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard let bytes = cell.bytes else { return .null }
        var cell = cell
        cell.format = .binary
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .numeric:
            // sum() of BIGINT is NUMERIC in PostgreSQL: whole numbers come back as integers.
            let decimal = try cell.decode(Decimal.self)
            let number = NSDecimalNumber(decimal: decimal)
            if decimal == Decimal(number.int64Value) { return .integer(number.int64Value) }
            return .real(number.doubleValue)
        case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea: return .blob(Array(buffer: bytes))
        case .oid:
            var copy = bytes
            guard let oid = copy.readInteger(as: UInt32.self) else { return .null }
            return .integer(Int64(oid))
        case .timestamp, .timestamptz, .date:
            return .text(ISO8601DateFormatter().string(from: try cell.decode(Date.self)))
        default:
            // text, varchar, name, bpchar, unknown, json, jsonb, uuid; void as "". PostgresNIO
            // reads any other type's bytes as UTF-8.
            return .text(try cell.decode(String.self))
        }
    }
}

extension SQLValue {
    /// The value as the legacy API binds it (prepared statements), in the type `postgresCast`
    /// names.
    var postgresData: PostgresData {
        switch self {
        case .integer(let v): PostgresData(int64: v)
        case .real(let v): PostgresData(double: v)
        case .text(let v): PostgresData(string: v)
        case .blob(let v): PostgresData(bytes: v)
        case .null: PostgresData.null
        }
    }
}
