import Foundation
import Logging
import NIOCore
import PostgresNIO

/// PostgreSQL through PostgresNIO's pooled client: the store at scale, several instances over one
/// database. Transactions run on one leased connection; READ COMMITTED for writes (the
/// repository's conditional UPDATEs and ON CONFLICT make contended operations safe there) and
/// REPEATABLE READ READ ONLY for reads (one consistent snapshot).
///
/// The client's `run()` must be running for queries to go through; `init` starts it in a task of
/// its own and `shutdown()` ends it.
public final class PostgresDatabase: SQLDatabase {
    public let dialect = SQLDialect.postgres
    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>
    let endpoint: String

    public init(url: String, logger: Logger) throws {
        let parsed = try Self.parse(url)
        client = PostgresClient(configuration: parsed.configuration, backgroundLogger: logger)
        self.logger = logger
        endpoint = parsed.endpoint
        let client = client
        runner = Task { await client.run() }
    }

    public func shutdown() async {
        runner.cancel()
        _ = await runner.value
    }

    struct Parsed {
        let configuration: PostgresClient.Configuration
        let endpoint: String
        let database: String
    }

    /// `postgres://USER:PASSWORD@HOST:PORT/NAME` (or `postgresql://`); loopback and private
    /// networks without TLS for now.
    static func parse(_ url: String) throws -> Parsed {
        let example = "postgres://handoff:PASSWORD@127.0.0.1:5432/handoff"
        guard let components = URLComponents(string: url),
            let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme.lowercased())
        else { throw SQLError.failed("the database URL must look like \(example)") }
        guard let host = components.host, !host.isEmpty else {
            throw SQLError.failed("the database URL has no host: write it as \(example)")
        }
        guard let user = components.user, !user.isEmpty else {
            throw SQLError.failed("the database URL has no user: write it as \(example)")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else {
            throw SQLError.failed("the database URL names no database: write it as \(example)")
        }
        for item in components.queryItems ?? [] where item.name == "sslmode" {
            guard ["disable", "prefer", "allow"].contains(item.value ?? "") else {
                throw SQLError.failed("sslmode=\(item.value ?? "") is not supported yet: use sslmode=disable")
            }
        }
        let port = components.port ?? 5432
        let configuration = PostgresClient.Configuration(
            host: host, port: port, username: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 },
            database: database.removingPercentEncoding ?? database, tls: .disable)
        return Parsed(configuration: configuration, endpoint: "\(host):\(port)/\(database)", database: database)
    }

    /// The URL without its password, for logs.
    public static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "(unparsable URL)" }
        if components.password != nil { components.password = "***" }
        return components.string ?? "(unparsable URL)"
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
        let endpoint = endpoint
        let logger = logger
        do {
            return try await client.withConnection { connection in
                let session = PostgresSession(connection: connection, logger: logger)
                try await session.query(begin, [])
                do {
                    let value = try await body(session)
                    try await session.query("COMMIT", [])
                    return value
                } catch {
                    _ = try? await session.query("ROLLBACK", [])
                    throw error
                }
            }
        } catch let error as PSQLError where error.serverInfo == nil && error.code != .server {
            throw SQLError.failed(
                "the PostgreSQL database at \(endpoint) cannot be reached (\(error.code)): check --database and that the server runs"
            )
        }
    }

    /// Creates a database (for tests: one per test).
    public static func createDatabase(adminURL: String, name: String, logger: Logger) async throws {
        try await admin(adminURL, "CREATE DATABASE \(try safeName(name))", logger: logger)
    }

    public static func dropDatabase(adminURL: String, name: String, logger: Logger) async throws {
        try await admin(adminURL, "DROP DATABASE IF EXISTS \(try safeName(name)) WITH (FORCE)", logger: logger)
    }

    private static func safeName(_ name: String) throws -> String {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }) else {
            throw SQLError.failed("a database name is lower-case letters, digits and underscores, not \(name)")
        }
        return name
    }

    private static func admin(_ url: String, _ sql: String, logger: Logger) async throws {
        let database = try PostgresDatabase(url: url, logger: logger)
        do {
            _ = try await database.client.withConnection { connection in
                try await PostgresSession(connection: connection, logger: logger).query(sql, [])
            }
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()
    }
}

/// Statements on one connection inside a transaction.
struct PostgresSession: SQLSession {
    let connection: PostgresConnection
    let logger: Logger

    @discardableResult
    func query(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .integer(let v): bindings.append(v)
            case .real(let v): bindings.append(v)
            case .text(let v): bindings.append(v)
            case .blob(let v): bindings.append(ByteBuffer(bytes: v))
            case .null: bindings.appendNull()
            }
        }
        let query = PostgresQuery(unsafeSQL: Self.numbered(sql), binds: bindings)
        do {
            let rows = try await connection.query(query, logger: logger).collect()
            return try rows.map(Self.row)
        } catch let error as PSQLError where error.serverInfo != nil {
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "\(error.code)"
            if state == "23505" { throw SQLError.uniqueViolation(message) }
            throw SQLError.failed("\(message) (SQLSTATE \(state)) in: \(sql.prefix(120))")
        }
    }

    /// `?` placeholders (outside quoted strings) become `$1`, `$2`, …
    static func numbered(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var n = 0
        var quoted = false
        for c in sql {
            if c == "'" { quoted.toggle() }
            if c == "?", !quoted {
                n += 1
                out += "$\(n)"
            } else {
                out.append(c)
            }
        }
        return out
    }

    static func row(_ row: PostgresRow) throws -> SQLRow {
        var columns: [String: Int] = [:]
        var values: [SQLValue] = []
        for cell in row {
            columns[cell.columnName] = values.count
            guard cell.bytes != nil else {
                values.append(.null)
                continue
            }
            switch cell.dataType {
            case .int2, .int4, .int8: values.append(.integer(try cell.decode(Int64.self)))
            case .float4, .float8: values.append(.real(try cell.decode(Double.self)))
            case .numeric:
                // sum() of BIGINT is NUMERIC in PostgreSQL: whole numbers come back as integers.
                let decimal = try cell.decode(Decimal.self)
                let number = NSDecimalNumber(decimal: decimal)
                if decimal == Decimal(number.int64Value) {
                    values.append(.integer(number.int64Value))
                } else {
                    values.append(.real(number.doubleValue))
                }
            case .bool: values.append(.integer(try cell.decode(Bool.self) ? 1 : 0))
            case .bytea: values.append(.blob(Array(buffer: try cell.decode(ByteBuffer.self))))
            default: values.append(.text(try cell.decode(String.self)))
            }
        }
        return SQLRow(columns: columns, values: values)
    }
}
