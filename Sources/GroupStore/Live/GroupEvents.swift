import Foundation
import HandoffAPI
import HandoffModel
import Synchronization

/// Who waits for a group's next event, in this process (issue 35). A subscriber gets a signal,
/// never the event itself: it reads what it has not sent from `team_event`, so a signal may be
/// coalesced with the next, or lost to a full buffer, without any event being lost. Each
/// subscriber's buffer holds one signal (`bufferingNewest(1)`): a slow or vanished subscriber
/// costs the publisher one replaced value, never a wait.
final class EventHub: Sendable {
    enum Signal: Sendable, Equatable {
        /// The group has an event the subscriber may not have read.
        case changed
        /// Time for the subscriber to show it is alive (and to read again: an event written by
        /// another store instance arrives at the latest with it).
        case heartbeat
    }

    private let subscribers = Mutex<[Int64: [Int: AsyncStream<Signal>.Continuation]]>([:])
    private let counter = Atomic<Int>(0)

    /// A new subscriber to the group's signals; it is removed when its stream ends.
    func subscribe(team: Int64) -> (AsyncStream<Signal>, AsyncStream<Signal>.Continuation) {
        let (stream, continuation) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .bufferingNewest(1))
        let id = counter.add(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[team, default: [:]][id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { all in
                all[team]?[id] = nil
                if all[team]?.isEmpty == true { all[team] = nil }
            }
        }
        return (stream, continuation)
    }

    /// Tells each subscriber of these groups that something happened.
    func changed(_ teams: Set<Int64>) {
        guard !teams.isEmpty else { return }
        let waiting = subscribers.withLock { all in teams.flatMap { all[$0].map { Array($0.values) } ?? [] } }
        for continuation in waiting { continuation.yield(.changed) }
    }

    /// Tells every subscriber: after the events of other instances may have been missed.
    func changedAll() {
        let waiting = subscribers.withLock { all in all.values.flatMap(\.values) }
        for continuation in waiting { continuation.yield(.changed) }
    }

    /// How many subscribers the group has in this process.
    func count(team: Int64) -> Int { subscribers.withLock { $0[team]?.count ?? 0 } }
}

/// The groups a write transaction recorded events for, so that its subscribers are told once it
/// commits (`StoreRepository.write`).
final class TouchedGroups: Sendable {
    private let teams = Mutex<Set<Int64>>([])
    func add(_ team: Int64) { teams.withLock { _ = $0.insert(team) } }
    var all: Set<Int64> { teams.withLock { $0 } }
}

extension StoreRepository {
    @TaskLocal static var touched: TouchedGroups?

    /// Records an event in the group's sequence, in the caller's transaction. `from`: whoever held
    /// the baton before; the holder after is read from the baton as it now is.
    static func recordEvent(
        _ db: any SQLSession, team: Int64, kind: String, now: WallInstant, from: Int64? = nil,
        runner: Int64? = nil, distanceMM: Int64? = nil, totalMM: Int64? = nil
    ) async throws {
        // The next number, and the baton row held until commit: the group's events commit in order.
        guard
            let seq = try await db.one(
                "UPDATE baton SET event_seq = event_seq + 1 WHERE team_id = ? RETURNING event_seq", team)?.int(
                    "event_seq")
        else { return }
        func name(_ id: Int64?) async throws -> String? {
            guard let id else { return nil }
            return try await db.one("SELECT username FROM account WHERE id = ?", id)?.text("username")
        }
        let holder = try await baton(db, team, now: now)
        let view = GroupEventView(
            id: seq, kind: kind, at: iso(now), holder: holder.holderName,
            from: try await name(from), runner: try await name(runner), distanceM: distanceMM.map(metres),
            totalM: totalMM.map(metres))
        try await db.query(
            "INSERT INTO team_event (team_id, seq, kind, event, created_ns) VALUES (?, ?, ?, ?, ?)", team, seq, kind,
            String(decoding: try StoreJSON.encoder.encode(view), as: UTF8.self), now.nanosecondsSinceEpoch)
        touched?.add(team)
        try await notifyOfEvent(db, team: team, kind: kind, holder: holder.holderID, from: from, now: now)
        // Each group keeps its newest `keptEvents`: every hundredth event trims what is older.
        if seq % 100 == 0 {
            try await db.query("DELETE FROM team_event WHERE team_id = ? AND seq <= ?", team, seq - keptEvents)
        }
        // Every store instance over this database hears of it when (and only if) this commits.
        if db is PostgresSession {
            try await db.query(
                "SELECT count(*) AS n FROM (SELECT pg_notify(?, ?)) AS notified", EventListener.channel, String(team))
        }
    }

    /// How many of a group's newest events are kept: a page or client that has been away for
    /// more than that reloads (a page drawn now starts from the newest number anyway).
    static let keptEvents: Int64 = 1000

    /// Whether the group's total has just reached its goal, the first time for this goal: the
    /// goal is marked (`team.goal_reached_mm`) in the caller's transaction, so of two uploads that
    /// cross it together only one announces it, and a goal the owner raises can be reached again.
    static func goalJustReached(_ db: any SQLSession, team: Int64, totalMM: Int64) async throws -> Bool {
        try await db.one(
            """
            UPDATE team SET goal_reached_mm = goal_mm WHERE id = ? AND goal_mm > 0 AND goal_mm <= ?
            AND (goal_reached_mm IS NULL OR goal_reached_mm <> goal_mm) RETURNING id
            """, team, totalMM) != nil
    }

    /// How many groups a page follows at most: a browser opens at most six connections to one
    /// site over HTTP/1.1, and each followed group holds one open.
    static let followedMost = 4

    /// The person's groups a page follows (at most `followedMost`), each with the address of its
    /// events after the newest now: read before the page's content, so that nothing that happens
    /// after the page was drawn is missed.
    func followed(account: Int64) async throws -> [FollowedGroup] {
        try await read { db in
            try await db.query(
                """
                SELECT team.id, team.name, baton.event_seq FROM member JOIN team ON team.id = member.team_id
                JOIN baton ON baton.team_id = team.id WHERE member.account_id = ? ORDER BY team.id LIMIT ?
                """, account, Int64(Self.followedMost)
            ).map { row in
                let id = try row.int("id")
                return FollowedGroup(
                    id: id, name: try row.text("name"),
                    events: "/v1/groups/\(id)/events?after=\(try row.int("event_seq"))")
            }
        }
    }

    /// The group's events after `after`, oldest first, at most `limit`, and its newest number.
    func groupEvents(team: Int64, after: Int64, limit: Int) async throws -> GroupEventList {
        try await read { db in
            let events = try await db.query(
                "SELECT event FROM team_event WHERE team_id = ? AND seq > ? ORDER BY seq LIMIT ?", team, after,
                Int64(limit)
            ).map { try StoreJSON.decoder.decode(GroupEventView.self, from: Data(try $0.text("event").utf8)) }
            let last = try await db.one("SELECT event_seq FROM baton WHERE team_id = ?", team)?.int("event_seq") ?? 0
            return GroupEventList(events: events, lastID: last)
        }
    }
}

/// A group a page follows: its events' address, from the newest when the page was drawn.
struct FollowedGroup: Sendable, Equatable {
    var id: Int64
    var name: String
    var events: String
}
