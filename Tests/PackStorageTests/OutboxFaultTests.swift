import Foundation
import GRDB
import HandoffModel
import PackStorage
import Recorder
import TestSupport
import Testing

/// The outbox's promises, each tested so that breaking it fails here (issue 28: both faults
/// passed the whole suite before): pruning touches only runs the store acknowledged long
/// enough ago, and a held run waits for a person.
@Suite("Outbox: pruning and holding")
struct OutboxFaultTests {
    static let wall = CivilTime(year: 2026, month: 6, day: 14, hour: 7).instant
    static let day: Int64 = 86_400 * 1_000_000_000

    /// A finished run with RR intervals, queued, its upload stored.
    static func finishedRun(_ db: PackDatabase, _ uuid: String) throws -> SessionID {
        let id = try db.beginSession(
            uuid: uuid, startMonotonic: MonotonicInstant(nanoseconds: 1), startWall: wall, source: "live")
        var batch = SessionBatch(session: id)
        batch.points = (0..<10).map { RecordPoint(elapsedSeconds: $0, distanceMeters: Double($0) * 3) }
        batch.rrIntervals = [
            RRIntervalBatch(sensor: "hr0", offsetNanoseconds: 1_000_000_000, intervals1024ths: [800, 810])
        ]
        batch.finish = SessionBatch.Finish(
            summary: RunSummary(
                elapsedSeconds: 9, statistics: RunStatistics(distanceMeters: 27, timerSeconds: 9, pointCount: 10),
                splits: []),
            wall: wall)
        try db.commit(batch)
        _ = try db.outboxPayload(id) { ([1, 2, 3], "sha") }
        return id
    }

    @Test("Pruning deletes RR intervals and the stored upload of runs synced long ago, and nothing of any other run")
    func pruneOnlyOldSyncedRuns() throws {
        let db = try PackDatabase.inMemory()
        let old = try Self.finishedRun(db, "old-synced")
        let recent = try Self.finishedRun(db, "recent-synced")
        let waiting = try Self.finishedRun(db, "not-synced")
        let held = try Self.finishedRun(db, "held")
        let now = Self.wall.advanced(byNanoseconds: 40 * Self.day)
        try db.markSynced(old, at: Self.wall.advanced(byNanoseconds: Self.day), status: 201)
        try db.markSynced(recent, at: now.advanced(byNanoseconds: -Self.day), status: 201)
        try db.recordOutboxFailure(
            held, at: Self.wall, code: "refused", message: "refused", status: 422, nextAttempt: nil, held: true)

        let pruned = try db.pruneRawData(syncedBefore: now.advanced(byNanoseconds: -30 * Self.day), now: now)
        #expect(pruned == 1)
        #expect(try db.rrIntervals(of: old).isEmpty)
        #expect(try db.outboxEntry(old)?.payloadBytes == nil)
        for kept in [recent, waiting, held] {
            #expect(try db.rrIntervals(of: kept).flatMap(\.intervals1024ths) == [800, 810], "run \(kept.rawValue)")
            #expect(try db.outboxEntry(kept)?.payloadBytes == 3, "run \(kept.rawValue)")
            #expect(try db.outboxPayload(kept) { ([9], "other") }.bytes == [1, 2, 3], "the stored upload is resent")
        }
        // The pruned run stays in the history.
        #expect(try db.points(of: old).count == 10 && db.run(old)?.summary?.statistics.distanceMeters == 27)
        #expect(try db.pruneRawData(syncedBefore: now, now: now) == 1, "the recent one, once old enough; never twice")
    }

    @Test("A held run is not due on any pass, however late, until a person releases it")
    func heldIsNotDue() throws {
        let db = try PackDatabase.inMemory()
        let held = try Self.finishedRun(db, "held")
        let retry = try Self.finishedRun(db, "retry")
        try db.recordOutboxFailure(
            held, at: Self.wall, code: "refused", message: "the store refused the file", status: 422,
            nextAttempt: nil, held: true)
        try db.recordOutboxFailure(
            retry, at: Self.wall, code: "unavailable", message: "503", status: 503,
            nextAttempt: Self.wall.advanced(byNanoseconds: 60_000_000_000), held: false)
        let muchLater = Self.wall.advanced(byNanoseconds: 365 * Self.day)
        #expect(try db.outboxDue(now: muchLater).map(\.session) == [retry])
        #expect(try db.outboxDue(now: Self.wall).isEmpty, "the other waits for its retry time")
        #expect(try db.outboxNextAttempt() == Self.wall.advanced(byNanoseconds: 60_000_000_000))
        #expect(try db.outboxWaiting().map(\.session) == [held, retry], "both still wait")
        #expect(try db.releaseOutbox() == 2)
        #expect(try db.outboxDue(now: Self.wall).map(\.session) == [held, retry])
    }
}
