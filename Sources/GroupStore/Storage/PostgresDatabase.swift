import Foundation
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle

/// PostgreSQL through a pool of PostgresNIO connections of our own (`PostgresPool`): the store at
/// scale, several instances over one database. Transactions run on one leased connection; READ
/// COMMITTED for writes (the repository's conditional UPDATEs and ON CONFLICT make contended
/// operations safe there) and REPEATABLE READ READ ONLY for reads (one consistent snapshot).
///
/// Faults: a server that is stopped, restarting or refusing connections fails each request at
/// once with `SQLError.unavailable` (503 with Retry-After), and the pool recovers on the first
/// request after the server returns. The first connection error carries the reason (refused,
/// wrong password, no such database), in words that name `--database`.
///
/// As a `Service`, its `run()` waits for the ServiceGroup's graceful shutdown and then closes the
/// connections: `handoff-store` stops it after the server has finished its requests. Tests use
/// `whileRunning(_:)`.
public final class PostgresDatabase: SQLDatabase {
    public let dialect = SQLDialect.postgres
    let pool: PostgresPool
    let logger: Logger
    /// `host:port/database`, for messages: never the password.
    let endpoint: String
    private let statements = PlaceholderCache()
    let prepared = PreparedStatements()
    /// How to open a connection of one's own (the events' `LISTEN`, Live/EventListener.swift).
    let connection: PostgresConnection.Configuration

    /// `url` is `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (or `postgresql://`), user and
    /// password percent-encoded, port 5432 by default, `?sslmode=disable` accepted. No TLS yet:
    /// a server on loopback or a private network.
    public init(url: String, logger: Logger) throws {
        let parsed = try Self.parse(url)
        self.logger = logger
        endpoint = parsed.endpoint
        connection = parsed.connection
        pool = PostgresPool(configuration: parsed.connection, endpoint: parsed.endpoint, logger: logger)
        if !parsed.loopback {
            logger.warning(
                "PostgreSQL over the network without TLS: keep the server on a private network",
                metadata: ["database": "\(parsed.endpoint)"])
        }
    }

    /// Runs `body`, then closes the connections.
    public func whileRunning<T>(_ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            await pool.close()
            return value
        } catch {
            await pool.close()
            throw error
        }
    }

    struct Parsed {
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
        var connection = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable)
        // A server that is stopped, starting or refusing answers a connect at once (the request
        // gets its 503 at once). One that is slow to connect is busy, not down: on a loaded machine
        // connects were seen to take over 3 s, and a short timeout made the pool answer 503 to
        // requests the server would have served.
        connection.options.connectTimeout = .seconds(10)
        // The store's statements are short look-ups by key, prepared once per connection
        // (`PreparedStatements`): planned once (generic plans), and never JIT-compiled. JIT pays
        // off for long analytic queries; here it cost 22 ms to compile a 2 ms query whose generic
        // plan's estimate crossed `jit_above_cost`. (PostgreSQL 12 or later.)
        connection.options.additionalStartupParameters = [("jit", "off"), ("plan_cache_mode", "force_generic_plan")]
        let shown = host.contains(":") ? "[\(host)]" : host
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1"
        return Parsed(
            connection: connection, endpoint: "\(shown):\(port)/\(database)", loopback: loopback)
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

    /// One read-only statement outside a transaction: one round trip where `read` takes three
    /// (a statement sees one snapshot by itself).
    public func readStatement(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        var connection = try await pool.lease()
        var again = true
        while true {
            do {
                let session = session(connection)
                let rows = try await withTaskExecutorPreference(EventLoopExecutor(connection.eventLoop)) {
                    try await session.query(sql, arguments)
                }
                await pool.release(connection)
                return rows
            } catch SQLError.unavailable where again {
                // The connection died while idle: once more on a new one (a read changes nothing).
                await pool.release(connection, reusable: false)
                connection = try await pool.lease(fresh: true)
                again = false
            } catch {
                var lost = false
                if case SQLError.unavailable = error { lost = true }
                await pool.release(connection, reusable: !lost)
                throw error
            }
        }
    }

    private func transaction<T: Sendable>(
        _ begin: String, _ body: @Sendable (any SQLSession) async throws -> T
    )
        async throws -> T
    {
        var connection = try await pool.lease()
        do {
            try await session(connection).query(begin, [])
        } catch SQLError.unavailable {
            // The connection died while idle (the server restarted, or an administrator ended
            // it): nothing has run yet, so once more on a new one.
            await pool.release(connection, reusable: false)
            connection = try await pool.lease(fresh: true)
            do {
                try await session(connection).query(begin, [])
            } catch {
                await pool.release(connection, reusable: false)
                throw error
            }
        } catch {
            await pool.release(connection, reusable: false)
            throw error
        }
        let session = session(connection)
        // The transaction's code runs on its connection's event loop: each answer resumes it
        // there, without waking another thread (`EventLoopExecutor`).
        let outcome: Result<T, any Error> = await withTaskExecutorPreference(EventLoopExecutor(connection.eventLoop)) {
            do {
                let value = try await body(session)
                try await session.query("COMMIT", [])
                return .success(value)
            } catch {
                // Never reuse a connection still inside a transaction. One that was lost is
                // closed without a ROLLBACK (the server has rolled it back).
                if case SQLError.unavailable = error { return .failure(error) }
                return (try? await session.query("ROLLBACK", [])) != nil
                    ? .failure(Rolled(error: error)) : .failure(error)
            }
        }
        switch outcome {
        case .success(let value):
            await pool.release(connection)
            return value
        case .failure(let rolled as Rolled):
            await pool.release(connection)
            throw rolled.error
        case .failure(let error):
            await pool.release(connection, reusable: false)
            throw error
        }
    }

    /// A transaction's error after its ROLLBACK went through: the connection is clean.
    private struct Rolled: Error {
        let error: any Error
    }

    private func session(_ connection: PostgresConnection) -> PostgresSession {
        PostgresSession(connection: connection, logger: logger, statements: statements, prepared: prepared)
    }

    /// A failed connect in words: where, why and what to check. Every such failure is
    /// `unavailable` (a request gets 503); at start the store prints the sentence and exits.
    static func connectFailure(_ error: any Error, _ endpoint: String) -> SQLError {
        if let error = error as? PSQLError, let info = error.serverInfo {
            // The server's words (its messages name the user or database, never the password).
            let message = info[.message] ?? "refused"
            let state = info[.sqlState] ?? "?"
            if ["57P03", "53300", "55000"].contains(state) || state.hasPrefix("08") {
                return .unavailable(
                    "the PostgreSQL server at \(endpoint) does not accept connections at the moment: \(message) (SQLSTATE \(state))"
                )
            }
            return .unavailable(
                "the PostgreSQL server at \(endpoint) refused the connection: \(message) (SQLSTATE \(state)): check the user, password and database in --database"
            )
        }
        var reason = "\(error)"
        if let error = error as? PSQLError {
            // Its description is a fixed placeholder: the cause is in `underlying`.
            reason = error.underlying.map { "\($0)" } ?? "\(error.code)"
        }
        return .unavailable(
            "the PostgreSQL database at \(endpoint) could not be reached (\(reason.prefix(200))): check --database and that the server runs"
        )
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
            try await PostgresSession(
                connection: connection, logger: logger, statements: PlaceholderCache(), prepared: nil
            )
            .query(sql, [])
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }
}

extension PostgresDatabase: Service {
    /// Until the ServiceGroup shuts down gracefully (or the task is cancelled): then the
    /// connections close.
    public func run() async {
        try? await gracefulShutdown()
        await pool.close()
    }
}
