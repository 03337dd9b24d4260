import PostgresNIO
import Synchronization

/// The named statements prepared on each pooled connection, by their typed SQL text
/// (`PlaceholderCache.typed`).
///
/// An unnamed statement is parsed and planned on every execution: for the group page that was
/// about 3.5 ms of the server's ~8 ms (the member queries' plans alone 0.5–2 ms each, measured with
/// `log_min_duration_statement = 0` at 10,000 members). A statement prepared once per connection
/// is only bound and executed after that, and with `plan_cache_mode = force_generic_plan` (set for
/// the store's sessions, `PostgresDatabase.parse`) it is not planned again either.
///
/// A statement is prepared the second time a connection runs it: preparing costs a round trip of
/// its own, which a statement run once (a migration's, or any on a connection that is about to
/// go) would not win back. A connection is lent to one transaction at a time, so its statements
/// are never prepared twice at once. At most `most` a connection (the repository has a few
/// hundred); past that, statements run unnamed. Entries of connections that have gone are dropped
/// as new ones come.
final class PreparedStatements: Sendable {
    static let most = 512

    private struct Entry {
        weak var connection: PostgresConnection?
        var queries: [String: PreparedQuery] = [:]
        /// Run once, unnamed.
        var seen: Set<String> = []
    }

    private let entries = Mutex<[PostgresConnection.ID: Entry]>([:])

    func lookup(_ connection: PostgresConnection, _ sql: String) -> PreparedQuery? {
        entries.withLock { $0[connection.id]?.queries[sql] }
    }

    /// Whether to prepare `sql` now: the connection ran it before and has room for another.
    /// Otherwise it is noted as run.
    func shouldPrepare(_ sql: String, on connection: PostgresConnection) -> Bool {
        entries.withLock { entries in
            if entries[connection.id] == nil {
                entries = entries.filter { $0.value.connection.map { !$0.isClosed } ?? false }
                entries[connection.id] = Entry(connection: connection)
            }
            guard entries[connection.id]?.seen.contains(sql) == true else {
                if entries[connection.id]?.seen.count ?? 0 < Self.most { entries[connection.id]?.seen.insert(sql) }
                return false
            }
            return entries[connection.id]?.queries.count ?? 0 < Self.most
        }
    }

    func store(_ query: PreparedQuery, _ sql: String, on connection: PostgresConnection) {
        entries.withLock { $0[connection.id]?.queries[sql] = query }
    }

    /// Forgets a connection's statements: after the server said one of them no longer exists
    /// or no longer fits the tables (a migration by another instance).
    func forget(_ connection: PostgresConnection) {
        _ = entries.withLock { $0.removeValue(forKey: connection.id) }
    }

    /// How many connections have statements, and how many statements in all (for tests).
    var counts: (connections: Int, statements: Int) {
        entries.withLock { entries in (entries.count, entries.values.reduce(0) { $0 + $1.queries.count }) }
    }
}
