import GRDB
import HandoffModel
import Logging
import Recorder

/// A session that a crash or power cut left open, as recovery finished it.
public struct RecoveredSession: Hashable, Sendable {
    public var id: SessionID
    public var uuid: String
    public var pointCount: Int
    /// Elapsed seconds of the last point that had been committed.
    public var lastElapsedSeconds: Int
    public var distanceMeters: Double
}

extension PackDatabase {
    /// Finishes every session left open by a crash or power cut, from what was committed: its
    /// points, events and laps. Each is marked recovered, gets a `recovered` event at its last
    /// point, and enters the outbox. Nothing committed is dropped.
    public func recoverOpenSessions(now: WallInstant) throws -> [RecoveredSession] {
        let recovered = try writer.write { db -> [RecoveredSession] in
            let open = try Row.fetchAll(
                db, sql: "SELECT id, uuid FROM session WHERE state IN ('recording', 'paused') ORDER BY id")
            var result: [RecoveredSession] = []
            for row in open {
                let id: Int64 = row["id"]
                let sessionID = SessionID(id)
                let points = try self.points(of: sessionID, in: db)
                let events = try self.events(of: sessionID, in: db)
                let laps = try self.laps(of: sessionID, in: db)
                let finished = RunRecovery.finish(points: points, events: events, laps: laps)
                let statements = try JournalStatements(lending: db)
                if let lap = finished.finalLap { try self.insert(lap, session: id, with: statements) }
                let last = points.last?.elapsedSeconds ?? 0
                try self.insert(
                    SessionEvent(
                        offsetNanoseconds: Int64(last) * nanosecondsPerSecond, kind: .recovered,
                        detail: "left open by a crash or power cut; finished at its last saved point"),
                    session: id, with: statements)
                try self.finishSession(id, summary: finished.summary, wall: now, recovered: true, with: statements)
                result.append(
                    RecoveredSession(
                        id: sessionID, uuid: row["uuid"], pointCount: points.count, lastElapsedSeconds: last,
                        distanceMeters: finished.summary.statistics.distanceMeters))
            }
            return result
        }
        for session in recovered {
            logger.info(
                "Finished a run left open in the journal",
                metadata: [
                    "session.id": "\(session.id)", "session.uuid": "\(session.uuid)",
                    "points": "\(session.pointCount)", "last_point_s": "\(session.lastElapsedSeconds)",
                    "distance_m": "\(Int(session.distanceMeters))",
                ])
        }
        return recovered
    }
}
