import Foundation
import GRDB
import HandoffModel

/// A finished run on its way to the group store.
public struct OutboxEntry: Hashable, Sendable {
    public var session: SessionID
    public var uuid: String
    public var startWall: WallInstant
    public var distanceMeters: Double
    public var enqueued: WallInstant
    /// Its attempts so far: how many, the last one and why it failed, the next one.
    public var history: AttemptHistory
    /// The store refused the run (4xx): it waits for a person, not for a timer.
    public var held: Bool
    /// When the store acknowledged it; `nil` while it waits.
    public var synced: WallInstant?
    /// The size of the file made for the upload, once made.
    public var payloadBytes: Int?

    /// A run's upload attempts.
    public struct AttemptHistory: Hashable, Sendable {
        public var count: Int
        public var last: WallInstant?
        /// Why the last attempt failed, in words, and the short code behind it.
        public var lastError: String?
        public var errorCode: String?
        /// When the sync worker tries again (`nil`: as soon as the pack is home).
        public var next: WallInstant?
    }

    public var attempts: Int { history.count }
    public var lastAttempt: WallInstant? { history.last }
    public var lastError: String? { history.lastError }
    public var errorCode: String? { history.errorCode }
    public var nextAttempt: WallInstant? { history.next }
}

/// What the outbox holds, in numbers.
public struct OutboxTotals: Hashable, Sendable {
    public var waiting: Int
    public var held: Int
    public var synced: Int
    public var lastSynced: WallInstant?
}

extension PackDatabase {
    /// Runs not yet acknowledged by the store, oldest first.
    public func outboxWaiting() throws -> [OutboxEntry] {
        try writer.read { db in
            try Row.fetchAll(db, sql: Self.outboxSelect + " WHERE o.synced_wall_ns IS NULL ORDER BY o.session_id")
                .map(Self.outboxEntry)
        }
    }

    /// Runs the worker may try at `now`: waiting, not held, their retry time come.
    public func outboxDue(now: WallInstant) throws -> [OutboxEntry] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: Self.outboxSelect
                    + """
                     WHERE o.synced_wall_ns IS NULL AND o.held = 0
                        AND (o.next_attempt_wall_ns IS NULL OR o.next_attempt_wall_ns <= ?)
                    ORDER BY o.session_id
                    """, arguments: [now.nanosecondsSinceEpoch]
            ).map(Self.outboxEntry)
        }
    }

    /// One run's place in the outbox.
    public func outboxEntry(_ session: SessionID) throws -> OutboxEntry? {
        try writer.read { db in
            try Row.fetchOne(db, sql: Self.outboxSelect + " WHERE o.session_id = ?", arguments: [session.rawValue])
                .map(Self.outboxEntry)
        }
    }

    /// The earliest time a waiting run (not held) is due again.
    public func outboxNextAttempt() throws -> WallInstant? {
        try writer.read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT min(coalesce(next_attempt_wall_ns, 0)) FROM outbox
                    WHERE synced_wall_ns IS NULL AND held = 0
                    """
            ).map(WallInstant.init(nanosecondsSinceEpoch:))
        }
    }

    public func outboxTotals() throws -> OutboxTotals {
        try writer.read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT count(*) FILTER (WHERE synced_wall_ns IS NULL AND held = 0),
                        count(*) FILTER (WHERE synced_wall_ns IS NULL AND held = 1),
                        count(synced_wall_ns), max(synced_wall_ns) FROM outbox
                    """)!
            let last: Int64? = row[3]
            return OutboxTotals(
                waiting: row[0], held: row[1], synced: row[2],
                lastSynced: last.map(WallInstant.init(nanosecondsSinceEpoch:)))
        }
    }

    /// The upload's bytes for a run: the ones stored at its first attempt, or `make()`'s, stored
    /// now. Whatever changes later (privacy zones, the writer), a retry sends what the store may
    /// already have.
    public func outboxPayload(
        _ session: SessionID, make: () throws -> (bytes: [UInt8], sha256: String)
    ) throws -> (bytes: [UInt8], sha256: String) {
        if let existing = try writer.read({ db in
            try Row.fetchOne(
                db, sql: "SELECT payload, payload_sha256 FROM outbox WHERE session_id = ? AND payload IS NOT NULL",
                arguments: [session.rawValue])
        }) {
            let data: [UInt8] = [UInt8](existing["payload"] as Data)
            return (data, existing["payload_sha256"])
        }
        let made = try make()
        try writer.write { db in
            try db.execute(
                sql: "UPDATE outbox SET payload = ?, payload_sha256 = ? WHERE session_id = ? AND payload IS NULL",
                arguments: [Data(made.bytes), made.sha256, session.rawValue])
        }
        return made
    }

    /// Notes an attempt that failed: why, and when to try again (`held` waits for a person).
    public func recordOutboxFailure(
        _ session: SessionID, at now: WallInstant, code: String, message: String, status: Int?,
        nextAttempt: WallInstant?, held: Bool
    ) throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    UPDATE outbox SET attempts = attempts + 1, last_attempt_wall_ns = ?, last_error = ?, error_code = ?,
                        store_status = ?, next_attempt_wall_ns = ?, held = ?
                    WHERE session_id = ? AND synced_wall_ns IS NULL
                    """,
                arguments: [
                    now.nanosecondsSinceEpoch, message, code, status, nextAttempt?.nanosecondsSinceEpoch, held,
                    session.rawValue,
                ])
        }
    }

    /// The store acknowledged the run: it stays on the pack, marked synced, with where the store
    /// said it counted (`counted`, JSON) when it said.
    public func markSynced(_ session: SessionID, at now: WallInstant, status: Int, counted: String? = nil) throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    UPDATE outbox SET attempts = attempts + 1, last_attempt_wall_ns = ?, synced_wall_ns = ?,
                        store_status = ?, last_error = NULL, error_code = NULL, next_attempt_wall_ns = NULL, held = 0,
                        counted = ?
                    WHERE session_id = ? AND synced_wall_ns IS NULL
                    """,
                arguments: [now.nanosecondsSinceEpoch, now.nanosecondsSinceEpoch, status, counted, session.rawValue])
        }
    }

    /// Where the store said the run counted (the JSON kept by `markSynced`), if it said.
    public func counted(_ session: SessionID) throws -> String? {
        try writer.read { db in
            try String.fetchOne(
                db, sql: "SELECT counted FROM outbox WHERE session_id = ?", arguments: [session.rawValue])
        }
    }

    /// A person asked to try again now: held runs are released and retry times cleared.
    /// Returns how many runs wait.
    @discardableResult
    public func releaseOutbox() throws -> Int {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE outbox SET held = 0, next_attempt_wall_ns = NULL WHERE synced_wall_ns IS NULL")
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE synced_wall_ns IS NULL") ?? 0
        }
    }

    /// Deletes the raw data of runs the store acknowledged before `syncedBefore`: the RR intervals
    /// (most of a run's rows) and the uploaded file. Points, events, laps, splits and the summary
    /// stay, so the run is still in the history and can be exported. A run not yet synced is never touched.
    /// Returns how many runs were pruned.
    @discardableResult
    public func pruneRawData(syncedBefore: WallInstant, now: WallInstant) throws -> Int {
        try writer.write { db in
            let sessions = try Int64.fetchAll(
                db,
                sql: """
                    SELECT session_id FROM outbox WHERE synced_wall_ns IS NOT NULL AND synced_wall_ns < ?
                        AND raw_pruned_wall_ns IS NULL
                    """, arguments: [syncedBefore.nanosecondsSinceEpoch])
            for session in sessions {
                try db.execute(sql: "DELETE FROM rr_interval WHERE session_id = ?", arguments: [session])
                try db.execute(
                    sql: "UPDATE outbox SET payload = NULL, raw_pruned_wall_ns = ? WHERE session_id = ?",
                    arguments: [now.nanosecondsSinceEpoch, session])
            }
            return sessions.count
        }
    }

    static let outboxSelect = """
        SELECT o.*, s.uuid, s.start_wall_ns, coalesce(s.distance_m, 0) AS distance_m, length(o.payload) AS payload_bytes
        FROM outbox o JOIN session s ON s.id = o.session_id
        """

    static func outboxEntry(_ row: Row) -> OutboxEntry {
        func instant(_ column: String) -> WallInstant? {
            (row[column] as Int64?).map(WallInstant.init(nanosecondsSinceEpoch:))
        }
        return OutboxEntry(
            session: SessionID(row["session_id"]), uuid: row["uuid"],
            startWall: WallInstant(nanosecondsSinceEpoch: row["start_wall_ns"]), distanceMeters: row["distance_m"],
            enqueued: WallInstant(nanosecondsSinceEpoch: row["enqueued_wall_ns"]),
            history: OutboxEntry.AttemptHistory(
                count: row["attempts"], last: instant("last_attempt_wall_ns"), lastError: row["last_error"],
                errorCode: row["error_code"], next: instant("next_attempt_wall_ns")),
            held: row["held"], synced: instant("synced_wall_ns"),
            payloadBytes: row["payload_bytes"])
    }

    /// Notes the baton a run was started with.
    public func setBaton(_ session: SessionID, group: Int64?, mode: BatonMode) throws {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE session SET baton_group = ?, baton_mode = ? WHERE id = ?",
                arguments: [group, mode.rawValue, session.rawValue])
        }
    }

    /// The baton a run was started with: its group and `held`, `offline` or `solo`.
    public func baton(of session: SessionID) throws -> (group: Int64?, mode: BatonMode)? {
        try writer.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT baton_group, baton_mode FROM session WHERE id = ?", arguments: [session.rawValue]),
                let name: String = row["baton_mode"], let mode = BatonMode(rawValue: name)
            else { return nil }
            return (row["baton_group"], mode)
        }
    }
}

extension PackDatabase {
    /// SQLite's `PRAGMA quick_check`: the problems it finds, none when the file is sound.
    public func quickCheck() throws -> [String] {
        try writer.read { db in
            try String.fetchAll(db, sql: "PRAGMA quick_check").filter { $0 != "ok" }
        }
    }
}

/// How a run was started with regard to its group's baton (`session.baton_mode`).
public enum BatonMode: String, Hashable, Sendable {
    /// Taken on the store.
    case held
    /// Claimed offline: the upload claims it.
    case offline
    /// Without it.
    case solo
}
