import HandoffModel
import Logging
import PackStorage

/// Writes what the recording session records into the journal: a row per run, then a batch per
/// commit. A write the journal refuses (a full or failing card) is kept in memory with all that
/// follows and retried at the next commit (every recorded second), so a recording outlives a
/// failing card for as long as memory does.
///
/// Owned by the engine's actor and used only from it. A commit runs on the recorder's own SQLite
/// connection without suspending (`PackDatabase.commit`).
final class JournalWriter {
    let database: PackDatabase
    let logger: Logger
    /// The journal's row of each run it has one for, by UUID.
    private var rows: [String: SessionID] = [:]
    /// Runs whose row the journal refused to create, in the order they began: their rows are
    /// created, in that order, at the next commit that succeeds.
    private var unsaved: [(run: RecordingSession.Run, sensors: [SensorDescriptor], source: String)] = []
    /// What is not yet on the card, oldest first, one batch per run in a row.
    private var pending: [(run: String, batch: SessionBatch)] = []
    /// Consecutive failed writes.
    private(set) var failedCommits = 0
    /// Called when a finished run is committed (and so in the outbox): wakes the sync worker.
    var runFinished: (@Sendable () -> Void)?

    /// A batch's key while its run has no row.
    private static let unsavedKey = SessionID(-1)

    init(database: PackDatabase, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// The run's row, once the journal has it.
    func row(of run: String) -> SessionID? { rows[run] }

    /// Nothing is waiting to be written.
    var isIdle: Bool { pending.isEmpty }

    /// Points recorded but not on the card.
    var pointsWaiting: Int { pending.reduce(0) { $0 + $1.batch.points.count } }

    /// Creates the run's row (or keeps the run to create it at the next commit).
    func begin(_ run: RecordingSession.Run, sensors: [SensorDescriptor], source: String) {
        if let id = createRow(run, sensors: sensors, source: source) {
            rows[run.uuid] = id
        } else {
            unsaved.append((run, sensors, source))
        }
    }

    /// Adds to the run's pending batch.
    func record(_ entry: RecordingSession.Entry, run: String) {
        if let last = pending.indices.last, pending[last].run == run {
            pending[last].batch.add(entry)
        } else {
            var batch = SessionBatch(session: rows[run] ?? Self.unsavedKey)
            batch.add(entry)
            pending.append((run, batch))
        }
    }

    /// Drops the run: its pending batches and its rows, so it never reaches the outbox. Returns
    /// its row number and the baton it was started with.
    func discard(_ run: String) -> (id: SessionID?, baton: BatonMode?) {
        pending.removeAll { $0.run == run }
        unsaved.removeAll { $0.run.uuid == run }
        guard let id = rows.removeValue(forKey: run) else { return (nil, nil) }
        let baton = (try? database.baton(of: id))?.mode
        do { _ = try database.deleteRun(id) } catch {
            logger.error("Could not discard run \(id) from the journal: \(error)", metadata: ["session.id": "\(id)"])
        }
        return (id, baton)
    }

    /// Writes the pending batches, oldest first. A batch that fails stays, with everything after
    /// it, for the next attempt.
    func commit() {
        while let saved = unsaved.first,
            let id = createRow(saved.run, sensors: saved.sensors, source: saved.source)
        {
            unsaved.removeFirst()
            rows[saved.run.uuid] = id
        }
        for i in pending.indices where pending[i].batch.session == Self.unsavedKey {
            if let id = rows[pending[i].run] { pending[i].batch.session = id }
        }
        let ready = pending.filter { !$0.batch.isEmpty && $0.batch.session != Self.unsavedKey }
        guard !ready.isEmpty else { return }
        pending.removeAll { !$0.batch.isEmpty && $0.batch.session != Self.unsavedKey }
        for (index, item) in ready.enumerated() {
            do {
                try database.commit(item.batch)
                if item.batch.finish != nil {
                    rows[item.run] = nil
                    runFinished?()
                }
            } catch {
                failedCommits += 1
                if failedCommits == 1 || failedCommits % 60 == 0 {
                    logger.error(
                        "Could not commit to the journal (\(failedCommits) attempts); the recording is kept in memory and retried every second",
                        metadata: ["error": "\(error)", "points_waiting": "\(item.batch.points.count)"])
                }
                // The failed batches go back in front of whatever arrived meanwhile, merged per run.
                var queue = Array(ready[index...])
                for newer in pending {
                    if let last = queue.indices.last, queue[last].run == newer.run {
                        queue[last].batch.append(newer.batch)
                    } else {
                        queue.append(newer)
                    }
                }
                pending = queue
                return
            }
        }
        if failedCommits > 0 {
            logger.notice("The journal accepts writes again after \(failedCommits) failed commits; nothing was lost")
            failedCommits = 0
        }
    }

    /// Creates the run's row; `nil` when the journal refuses (the run is then kept in memory and
    /// the row created at the next commit that succeeds).
    private func createRow(_ run: RecordingSession.Run, sensors: [SensorDescriptor], source: String) -> SessionID? {
        do {
            try database.registerSensors(sensors)
            return try database.beginSession(
                uuid: run.uuid, startMonotonic: run.startMonotonic, startWall: run.startWall, source: source,
                clockSource: run.clockSource, sport: run.sport)
        } catch {
            failedCommits += 1
            if failedCommits == 1 || failedCommits % 60 == 0 {
                logger.error(
                    "Could not create the run in the journal (\(failedCommits) attempts); keeping it in memory and retrying every second: \(error)"
                )
            }
            return nil
        }
    }
}
