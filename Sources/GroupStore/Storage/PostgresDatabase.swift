import Foundation
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// PostgreSQL through PostgresNIO's pooled client: the store at scale, several instances over one
/// database. Transactions run on one leased connection; READ COMMITTED for writes (the
/// repository's conditional UPDATEs and ON CONFLICT make contended operations safe there) and
/// REPEATABLE READ READ ONLY for reads (one consistent snapshot).
///
/// The pool works while its `run()` does, and PostgresNIO allows one call only. The database is a
/// `Service` whose `run()` is the pool's: `handoff-store` runs it in the application's
/// ServiceGroup, which starts it before the server and, on SIGTERM, stops it after the server has
/// finished its requests. Callers without a ServiceGroup (tests) use `whileRunning(_:)`.
///
/// Connection failures: the pool retries an unreachable server for a minute before it fails a
/// request, and then without saying why. So until a first connection has succeeded, each
/// transaction first opens one connection of its own, which fails at once and with the reason
/// (refused, wrong password, no such database), in words that name `--database`.
public final class PostgresDatabase: SQLDatabase {
    public let dialect = SQLDialect.postgres
    let client: PostgresClient
    let logger: Logger
    /// `host:port/database`, for messages: never the password.
    let endpoint: String
    private let probe: PostgresConnection.Configuration
    private let reached = Mutex<Bool>(false)
    private let statements = PlaceholderCache()

    /// `url` is `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (or `postgresql://`), user and
    /// password percent-encoded, port 5432 by default, `?sslmode=disable` accepted. No TLS yet:
    /// a server on loopback or a private network.
    public init(url: String, logger: Logger) throws {
        let parsed = try Self.parse(url)
        let client = PostgresClient(configuration: parsed.client, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        endpoint = parsed.endpoint
        probe = parsed.connection
        if !parsed.loopback {
            logger.warning(
                "PostgreSQL over the network without TLS: keep the server on a private network",
                metadata: ["database": "\(parsed.endpoint)"])
        }
    }

    /// Runs `body` with the pool running, then stops the pool and waits for its connections to
    /// close. Like `run()`, once only.
    public func whileRunning<T>(_ body: () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.client.run() }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    struct Parsed {
        let client: PostgresClient.Configuration
        let connection: PostgresConnection.Configuration
        let endpoint: String
        let loopback: Bool
    }

    static func parse(_ url: String) throws -> Parsed {
        let example = "postgres://handoff:PASSWORD@127.0.0.1:5432/handoff?sslmode=disable"
        func wrong(_ what: String) -> SQLError {
            .failed(
                "the database URL \(what): write it as \(example) (percent-encode @ : / % in the user and password)")
        }
        guard let components = URLComponents(string: url) else { throw wrong("cannot be read") }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw wrong("must start with postgres:// or postgresql://")
        }
        // URLComponents hands out host, user, password and path percent-decoded already.
        guard var host = components.host, !host.isEmpty else { throw wrong("has no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let user = components.user, !user.isEmpty else { throw wrong("has no user") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw wrong("names no database (the path after the port)")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw wrong("has the port \(port), not one from 1 to 65535") }
        for item in components.queryItems ?? [] {
            switch (item.name, item.value ?? "") {
            // libpq's allow and prefer connect without TLS when the server offers none: so do we.
            case ("sslmode", "disable"), ("sslmode", "allow"), ("sslmode", "prefer"): continue
            case ("sslmode", let mode):
                throw SQLError.failed(
                    "the database URL asks for sslmode=\(mode), but the store has no TLS to PostgreSQL yet: use sslmode=disable, with the server on loopback or a private network"
                )
            default: throw wrong("has the parameter \(item.name), which the store does not know (only sslmode=disable)")
            }
        }
        let password = components.password
        let client = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable)
        let connection = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable)
        let shown = host.contains(":") ? "[\(host)]" : host
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1"
        return Parsed(
            client: client, connection: connection, endpoint: "\(shown):\(port)/\(database)", loopback: loopback)
    }

    /// Reads `url` as `init(url:)` does, without connecting: the same sentence when it is not
    /// a PostgreSQL URL the store can use (handoff-store checks before it starts anything).
    public static func check(url: String) throws { _ = try parse(url) }

    /// The URL without its password, for logs.
    public static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "(unreadable URL)" }
        if components.password != nil { components.password = "***" }
        return components.string ?? "(unreadable URL)"
    }

    /// `url` pointing at another database on the same server.
    public static func url(_ url: String, database: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.path = "/" + database
        return components.string ?? url
    }

    public func write<T: Sendable>(_ body: @Sendable (any SQLSession) async throws -> T) async throws -> T {
        try await transaction("BEGIN", body)
    }

    public func read<T: Sendable>(_ body: @Sendable (any SQLSession) async throws -> T) async throws -> T {
        try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    private func transaction<T: Sendable>(
        _ begin: String, _ body: @Sendable (any SQLSession) async throws -> T
    )
        async throws -> T
    {
        try await withSession { session in
            try await session.query(begin, [])
            do {
                let value = try await body(session)
                try await session.query("COMMIT", [])
                return value
            } catch {
                do {
                    try await session.query("ROLLBACK", [])
                } catch {
                    // Never hand the pool a connection still inside a transaction.
                    try? await session.connection.close()
                }
                throw error
            }
        }
    }

    /// Leases a connection for `body`, with failures to connect in words.
    private func withSession<T: Sendable>(_ body: (PostgresSession) async throws -> T) async throws -> T {
        try await reach()
        let session = { (connection: PostgresConnection) in
            PostgresSession(connection: connection, logger: self.logger, statements: self.statements)
        }
        var leased = false
        do {
            return try await client.withConnection { connection in
                leased = true
                return try await body(session(connection))
            }
        } catch let error where !leased {
            throw leaseFailure(error)
        }
    }

    /// Until one connection has succeeded: open one directly, for the reason when it fails.
    private func reach() async throws {
        if reached.withLock({ $0 }) { return }
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: probe, id: 0, logger: logger)
        } catch {
            throw Self.connectFailure(error, endpoint)
        }
        try? await connection.close()
        reached.withLock { $0 = true }
    }

    private static func connectFailure(_ error: any Error, _ endpoint: String) -> any Error {
        if error is CancellationError { return error }
        if let error = error as? PSQLError, let info = error.serverInfo {
            // The server's words (its messages name the user or database, never the password).
            let message = info[.message] ?? "refused"
            return SQLError.failed(
                "the PostgreSQL server at \(endpoint) refused the connection: \(message) (SQLSTATE \(info[.sqlState] ?? "?")): check the user, password and database in --database"
            )
        }
        var reason = "\(error)"
        if let error = error as? PSQLError {
            // Its description is a fixed placeholder: the cause is in `underlying`.
            reason = error.underlying.map { "\($0)" } ?? "\(error.code)"
        }
        return SQLError.failed(
            "the PostgreSQL database at \(endpoint) could not be reached (\(reason.prefix(200))): check --database and that the server runs"
        )
    }

    /// The pool's own errors (its module is not imported here, hence by name).
    private func leaseFailure(_ error: any Error) -> any Error {
        if error is CancellationError || error is SQLError { return error }
        let name = String(describing: error)
        if name.contains("requestCancelled") { return CancellationError() }
        if name.contains("poolShutdown") || name.contains("poolClosed") {
            return SQLError.failed("the connections to the PostgreSQL database at \(endpoint) are closed (shut down)")
        }
        if name.contains("CircuitBreaker") {
            return SQLError.failed(
                "the PostgreSQL database at \(endpoint) could not be reached for a minute: check --database and that the server runs"
            )
        }
        return Self.connectFailure(error, endpoint)
    }

    /// Creates a database (for tests: one per test). `name` is lower-case letters, digits, `_`.
    public static func createDatabase(adminURL: String, name: String, logger: Logger) async throws {
        try await admin(adminURL, "CREATE DATABASE \"\(try safeName(name))\"", logger: logger)
    }

    public static func dropDatabase(adminURL: String, name: String, logger: Logger) async throws {
        try await admin(adminURL, "DROP DATABASE IF EXISTS \"\(try safeName(name))\" WITH (FORCE)", logger: logger)
    }

    private static func safeName(_ name: String) throws -> String {
        let letters = UInt8(ascii: "a")...UInt8(ascii: "z")
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard !name.isEmpty, name.utf8.count <= 63,
            name.utf8.allSatisfy({ letters.contains($0) || digits.contains($0) || $0 == UInt8(ascii: "_") })
        else {
            throw SQLError.failed("a database name is up to 63 lower-case letters, digits and underscores, not \(name)")
        }
        return name
    }

    /// One statement outside a transaction (CREATE and DROP DATABASE refuse to run in one), on a
    /// connection of its own: no pool for one statement.
    private static func admin(_ url: String, _ sql: String, logger: Logger) async throws {
        let parsed = try parse(url)
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: parsed.connection, id: 0, logger: logger)
        } catch {
            throw connectFailure(error, parsed.endpoint)
        }
        do {
            try await PostgresSession(connection: connection, logger: logger, statements: PlaceholderCache())
                .query(sql, [])
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }
}

/// Statements on one connection inside a transaction.
struct PostgresSession: SQLSession {
    let connection: PostgresConnection
    let logger: Logger
    let statements: PlaceholderCache

    @discardableResult
    func query(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        try SQLValue.checkText(arguments)
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
        do {
            return try Self.rows(try await connection.query(query, logger: logger).collect())
        } catch let error as PSQLError {
            throw Self.failure(error, sql)
        } catch let error as PostgresDecodingError {
            throw SQLError.failed(
                "cannot read the column \(error.columnName) (PostgreSQL type \(error.postgresType)) of: \(sql.prefix(120))"
            )
        }
    }

    static func failure(_ error: PSQLError, _ sql: String) -> any Error {
        if let info = error.serverInfo {
            // The message only: the detail can quote the failing row (a password hash, say).
            let message = info[.message] ?? "the server refused the statement"
            let state = info[.sqlState] ?? "?"
            if state == "23505" { return SQLError.uniqueViolation(message) }
            return SQLError.failed("\(message) (SQLSTATE \(state)) in: \(sql.prefix(120))")
        }
        switch error.code {
        case .queryCancelled: return CancellationError()
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed:
            return SQLError.failed(
                "lost the connection to PostgreSQL (\(error.code)) during: \(sql.prefix(120)): check that the server runs"
            )
        default:
            return SQLError.failed("the PostgreSQL driver failed (\(error.code)) in: \(sql.prefix(120))")
        }
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

    /// PostgresNIO asks for every result column in binary format.
    static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard let bytes = cell.bytes else { return .null }
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

extension PostgresDatabase: Service {
    /// The connection pool's life: until the task is cancelled or the ServiceGroup shuts down
    /// gracefully. Queries wait while it has not started.
    public func run() async {
        await client.run()
    }
}
