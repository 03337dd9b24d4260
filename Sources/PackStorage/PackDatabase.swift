import GRDB
import HandoffModel
import Logging
import Synchronization

/// The pack's SQLite journal: sensors, sessions, record points, RR intervals, laps, splits,
/// events and the upload outbox. It owns the database connection(s); its methods are named for
/// what they do.
///
/// On disk it is a WAL database with `synchronous = FULL`: a commit is on the card when it
/// returns, so a power cut loses at most the points not yet committed (the recorder commits
/// every second).
public final class PackDatabase: Sendable {
    let writer: any DatabaseWriter
    let logger: Logger
    /// The page cache of each connection, in KiB.
    static let pageCacheKibibytes = 256
    /// Sensor keys to their row ids, so that points need no lookup.
    let sensorRows = Mutex<[SensorID: Int64]>([:])
    /// The database file, `nil` in memory.
    let path: String?
    /// The recorder's own connection to `path`, opened at the first commit (and again after a
    /// failed open).
    let journal = Mutex<RecordingJournal?>(nil)

    /// Opens (creating if needed) the database at `path` and migrates it.
    public convenience init(path: String, logger: Logger = Logger(label: "handoff.storage")) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Recording appends: a small page cache serves it. SQLite's default (2 MB per
            // connection) would fill over a long run, and the pack's budget is 30 MB in all.
            try db.execute(sql: "PRAGMA cache_size = -\(Self.pageCacheKibibytes)")
        }
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: path, configuration: configuration)
        // GRDB turns WAL on after `prepareDatabase` and sets `synchronous = NORMAL` with it, which
        // leaves commits in the WAL until a checkpoint: set FULL again on the connection that writes.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try self.init(writer: pool, logger: logger, path: path)
    }

    /// Opens the database at `path` read-only, as it is (no migration): for `handoffd --doctor`
    /// beside a journal that another process may own.
    public convenience init(path: String, readOnly: Bool, logger: Logger = Logger(label: "handoff.storage")) throws {
        guard readOnly else {
            try self.init(path: path, logger: logger)
            return
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        try self.init(
            writer: DatabaseQueue(path: path, configuration: configuration), logger: logger, path: nil, migrate: false)
    }

    /// An in-memory database, for tests.
    public static func inMemory(logger: Logger = Logger(label: "handoff.storage")) throws -> PackDatabase {
        try PackDatabase(writer: DatabaseQueue(), logger: logger)
    }

    init(writer: any DatabaseWriter, logger: Logger, path: String? = nil, migrate: Bool = true) throws {
        self.writer = writer
        self.logger = logger
        self.path = path
        if migrate { try Self.migrator.migrate(writer) }
    }

    /// The result of SQLite's `PRAGMA integrity_check`: `ok` when the file is sound.
    public func integrityCheck() throws -> String {
        try writer.read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
        }
    }

    /// The journal mode in effect (`wal` on disk).
    public func journalMode() throws -> String {
        try writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }

    /// The writing connection's `synchronous` setting (2 is FULL: every commit is synced).
    public func writerSynchronous() throws -> Int {
        try writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// Writes the WAL back into the database file (on a clean shutdown).
    public func checkpoint() throws {
        guard writer is DatabasePool else { return }
        try writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    /// Records what is known of sensors (names, addresses), keeping their rows.
    public func registerSensors(_ sensors: [SensorDescriptor]) throws {
        try writer.write { db in
            for sensor in sensors {
                try db.execute(
                    sql: """
                        INSERT INTO sensor (key, kind, name, address, transport) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (key) DO UPDATE SET kind = excluded.kind,
                            name = coalesce(excluded.name, name), address = coalesce(excluded.address, address),
                            transport = coalesce(excluded.transport, transport)
                        """,
                    arguments: [
                        sensor.id.rawValue, sensor.kind.rawValue, sensor.name, sensor.address,
                        sensor.transport?.rawValue,
                    ])
            }
        }
    }
}

/// A session's row id.
public struct SessionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { String(rawValue) }
}
