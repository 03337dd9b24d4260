import Foundation
import GRDB
import HandoffModel
import Recorder
import TestSupport
import Testing

@testable import PackStorage

/// Issue 29 in the journal: where the store counted a run (kept with the acknowledgement, from a
/// journal of the previous schema too), deleting a run, and the order runs are listed in.
@Suite("Pack journal: where a run counted, deleting, listing by start")
struct Issue29JournalTests {
    static let wall = CivilTime(year: 2026, month: 6, day: 14, hour: 7).instant

    static func summary(_ distance: Double) -> RunSummary {
        RunSummary(
            elapsedSeconds: 600,
            statistics: RunStatistics(distanceMeters: distance, timerSeconds: 600, movingSeconds: 600, pointCount: 2),
            splits: [])
    }

    static func importRun(_ db: PackDatabase, start: WallInstant, distance: Double = 1000) throws -> SessionID {
        try db.importRun(
            uuid: UUID().uuidString.lowercased(), source: "test", startWall: start,
            points: [
                RecordPoint(elapsedSeconds: 0, distanceMeters: 0),
                RecordPoint(elapsedSeconds: 600, distanceMeters: distance),
            ], rrIntervals: [], events: [], laps: [], summary: summary(distance), now: start)
    }

    @Test("A journal at schema v6 with a synced run migrates: the run keeps its state and can take the store's answer")
    func migrationFromV6() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/handoff.sqlite"
        do {
            let queue = try DatabaseQueue(path: path)
            try PackDatabase.migrator.migrate(queue, upTo: "v6: the baton a run was started with")
            try queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO session (id, uuid, state, source, start_wall_ns, start_mono_ns, distance_m, elapsed_s)
                        VALUES (1, 'old', 'finished', 'live', 1, 1, 100, 60), (2, 'waiting', 'finished', 'live', 2, 2, 50, 60);
                        INSERT INTO outbox (session_id, enqueued_wall_ns, synced_wall_ns, store_status) VALUES (1, 1, 5, 201);
                        INSERT INTO outbox (session_id, enqueued_wall_ns) VALUES (2, 2);
                        """)
            }
        }
        let db = try PackDatabase(path: path)
        #expect(try db.counted(SessionID(1)) == nil, "synced before the store said where it counted")
        #expect(try db.isSynced(SessionID(1)) && !db.isSynced(SessionID(2)))
        let answer = #"{"counted_in":["Danube relay"],"not_counted":[]}"#
        try db.markSynced(SessionID(2), at: Self.wall, status: 201, counted: answer)
        #expect(try db.counted(SessionID(2)) == answer)
        #expect(try db.outboxCount() == 0)
    }

    @Test("Deleting a run takes its points and its place in the outbox; other runs stay")
    func deleteRun() throws {
        let db = try PackDatabase.inMemory()
        let gone = try Self.importRun(db, start: Self.wall)
        let kept = try Self.importRun(db, start: Self.wall.advanced(byNanoseconds: 3_600_000_000_000))
        #expect(try db.outboxCount() == 2)
        #expect(try db.deleteRun(gone))
        #expect(try db.run(gone) == nil && db.points(of: gone).isEmpty)
        #expect(try db.outboxCount() == 1 && db.run(kept) != nil)
        #expect(try !db.deleteRun(gone), "a second delete finds nothing")
    }

    @Test("Runs are listed by start time, newest first, whatever order they were stored in")
    func runsByStart() throws {
        let db = try PackDatabase.inMemory()
        let monday = try Self.importRun(db, start: Self.wall)
        // Imported later, run earlier (an old watch's file).
        let older = try Self.importRun(db, start: Self.wall.advanced(byNanoseconds: -86_400_000_000_000))
        let newest = try Self.importRun(db, start: Self.wall.advanced(byNanoseconds: 86_400_000_000_000))
        // Recorded with an unsynchronised clock, its start corrected back by GPS time afterwards.
        let corrected = try db.beginSession(
            uuid: "corrected", startMonotonic: MonotonicInstant(nanoseconds: 1),
            startWall: Self.wall.advanced(byNanoseconds: 7 * 86_400_000_000_000),
            source: "live", clockSource: .unsynchronized)
        var batch = SessionBatch(session: corrected)
        batch.correctedStartWall = Self.wall.advanced(byNanoseconds: -2 * 86_400_000_000_000)
        try db.commit(batch)
        #expect(try db.runs().map(\.id) == [newest, monday, older, corrected])
        #expect(try db.runs(limit: 2).map(\.id) == [newest, monday])
    }
}
