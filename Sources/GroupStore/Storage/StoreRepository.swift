import HandoffModel

/// The store's data, over either engine (`SQLiteDatabase`, the embedded default, or
/// `PostgresDatabase`). Every query is written once, in SQL both speak; each operation is one
/// transaction, so a run and the totals it changes commit together or not at all.
public struct StoreRepository: Sendable {
    public let database: any SQLDatabase
    /// Who waits for each group's next event in this process (Live/GroupEvents.swift).
    let events = EventHub()

    /// Opens the repository, bringing the schema up to date.
    public init(_ database: any SQLDatabase) async throws {
        self.init(unmigrated: database)
        try await migrate()
    }

    /// The repository over a database whose schema `migrate()` brings up to date later (before
    /// the server starts, once the engine's service runs).
    init(unmigrated database: any SQLDatabase) {
        self.database = database
    }

    func migrate() async throws {
        try await Schema.migrate(database)
    }

    @discardableResult
    func write<T: Sendable>(_ body: @Sendable (any SQLSession) async throws -> T) async throws -> T {
        do {
            // The groups it recorded events for hear of them once it has committed.
            let touched = TouchedGroups()
            let result = try await Self.$touched.withValue(touched) { try await database.write(body) }
            events.changed(touched.all)
            return result
        } catch SQLError.uniqueViolation(let message) {
            // Two writers raced for the same unique row (PostgreSQL, read committed): the loser
            // sees the winner's row as a conflict.
            throw StoreError(.conflict, "conflict", "someone else changed this at the same moment: \(message)")
        } catch SQLError.nulInText {
            throw Self.nulInText
        } catch SQLError.unavailable {
            throw StoreError.databaseUnavailable
        } catch SQLError.storageFull {
            throw StoreError.storageFull
        }
    }

    func read<T: Sendable>(_ body: @Sendable (any SQLSession) async throws -> T) async throws -> T {
        try await reading { try await database.read(body) }
    }

    /// The first row of one read-only statement on its own (no transaction round trips).
    func readOne(_ sql: String, _ arguments: any SQLBindable...) async throws -> SQLRow? {
        let values = arguments.map(\.sqlValue)
        return try await reading { try await database.readStatement(sql, values).first }
    }

    private func reading<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch SQLError.nulInText {
            throw Self.nulInText
        } catch SQLError.unavailable {
            throw StoreError.databaseUnavailable
        } catch SQLError.storageFull {
            // A read that needed disk (a temporary file for a sort): the same answer as a write.
            throw StoreError.storageFull
        }
    }

    /// Text from a request that holds NUL, which names the field no better than this.
    static let nulInText = StoreError(
        .badRequest, "invalid_text", "the request holds a NUL character (U+0000), which no name or code contains")
}
