import Foundation
import HandoffModel
import Logging
import PackControl
import PackSensors
import PackStorage
import Recorder
import SensorCodecs

/// The pack's heart: every sensor event and command goes through here, in one order, into the
/// recorder, and what the recorder produces into the journal.
///
/// Live, events are stamped with the monotonic clock as they arrive; replayed, they keep the
/// capture's times and the replay's latest event is "now". Either way the order in which this
/// actor takes events is the order written to `--capture`, so any run can be replayed exactly.
public actor PackEngine {
    enum Mode: Sendable {
        case live
        case replay
    }

    let database: PackDatabase
    let logger: Logger
    let mode: Mode
    var pipeline: RunPipeline
    var sensors: [SensorID: SensorDescriptor] = [:]
    var session: ActiveSession?
    /// What the recorder produced and the journal has not yet taken, one batch per run.
    var batches: [SessionBatch] = []
    var capture: CaptureFileWriter?
    var replay: ReplayReport?
    /// How long `handoff start` waits for a GPS fix (reported in `status`; the CLI waits).
    let startWaitSeconds: Double
    /// `[display] units`: the units of the engine's messages and of `status`'s `units`.
    let units: Units
    let recoveredRuns: [Int64]
    /// The latest time the recorder has been taken to, by an event or a tick.
    var processedUpTo: MonotonicInstant?
    /// The latest event's times, which are "now" during a replay.
    var lastMonotonic: MonotonicInstant?
    var lastWall: WallInstant?
    var decodeErrorsLogged = 0
    /// The system clock's synchronisation as last seen (live only).
    var clockSynchronized: Bool?
    /// Consecutive failed commits (the journal refusing writes: a full or failing card).
    var failedCommits = 0
    /// The paired Bluetooth sensors' ids.
    var pairedSensors: Set<SensorID> = []
    /// When measurement notifications arrived that no committed point includes yet (live only).
    var arrivals: [(arrived: MonotonicInstant, taken: MonotonicInstant)] = []
    /// The latest point's grid moment, and how long notifications took to reach a committed point.
    var latestPointBoundary: MonotonicInstant?
    var commitLatency = LatencyStatistics()
    /// How long after its second ended each point was on the card.
    var pointCommitDelay = LatencyStatistics()
    var lastDelayBoundary: MonotonicInstant?
    /// Called when a finished run is committed (and so in the outbox): wakes the sync worker.
    var runFinished: (@Sendable () -> Void)?
    /// `[recording] discard_shorter_than_s`: a stopped run shorter than this with no distance is
    /// not kept (0 keeps every run).
    let discardShorterThanSeconds: Double
    /// Set by `handoff stop` (without `--keep`) for the stop being taken: the run finishing now is
    /// discarded if it is worth nothing. Shutdown and recovery keep every run.
    var discardIfEmpty = false
    /// The run the latest stop discarded: its number, length and baton.
    var discarded: (run: Int64?, seconds: Double, baton: BatonMode?)?

    struct ActiveSession: CustomStringConvertible {
        /// The run's row, once the journal has it.
        var id: SessionID?
        var uuid: String
        var startWall: WallInstant
        var startMonotonic: MonotonicInstant
        var clockSource: ClockSource

        /// The batch key of a run whose row could not be created yet.
        static let unsaved = SessionID(-1)
        var batchKey: SessionID { id ?? Self.unsaved }
        var description: String { id.map { "\($0)" } ?? "(not yet in the journal)" }
    }

    init(
        database: PackDatabase, configuration: PackConfiguration, mode: Mode, sensors: [SensorDescriptor],
        recoveredRuns: [Int64], logger: Logger
    ) {
        self.database = database
        self.logger = logger
        self.mode = mode
        self.recoveredRuns = recoveredRuns
        startWaitSeconds = configuration.gpsStartWaitSeconds
        discardShorterThanSeconds = configuration.discardShorterThanSeconds
        units = configuration.displayUnits
        pipeline = RunPipeline(configuration: configuration.recorder, sensors: sensors)
        for sensor in sensors {
            self.sensors[sensor.id] = sensor
            if sensor.transport == .ble { pairedSensors.insert(sensor.id) }
        }
    }

    // MARK: Inputs

    /// Makes a newly paired sensor known (status lists it; the journal names it in points).
    func registerPaired(_ sensor: PairedSensor) {
        pairedSensors.insert(sensor.id)
        let descriptor = sensor.descriptor
        sensors[descriptor.id] = descriptor
        pipeline.register(descriptor)
    }

    /// Notes, for `handoff sensors`, when a paired sensor was last heard and its battery: written
    /// when its link changes and when its battery reports, not for every reading.
    private func notePaired(_ event: CaptureEvent) {
        let sensor: SensorID
        var battery: Int?
        switch event.body {
        case .link(let id, _, _): sensor = id
        case .payload(let id, .batteryLevel, .bytes(let bytes)):
            sensor = id
            battery = (try? BatteryLevel(decoding: bytes)).map { Int($0.percent) }
        default: return
        }
        guard pairedSensors.contains(sensor) else { return }
        do {
            try database.updatePairedSensor(
                address: sensor.rawValue, lastSeenWall: (event.wall ?? PackClock.wall()).nanosecondsSinceEpoch,
                batteryPercent: battery)
        } catch {
            logger.warning(
                "Could not note the sensor's state in the journal: \(error)", metadata: ["sensor.id": "\(sensor)"])
        }
    }

    /// Takes an event from a replay (with its own times) or a live source (already stamped).
    public func ingest(_ event: CaptureEvent) async {
        if mode == .live { notePaired(event) }
        let step = take(event)
        if mode == .live, pipeline.recorder.state == .recording, case .payload(_, let kind, _) = event.body,
            kind == .heartRateMeasurement || kind == .rscMeasurement || kind == .cscMeasurement,
            let taken = processedUpTo
        {
            // When it came off the socket, and when the recorder took it (later, when it reached the
            // engine after a tick): the latter decides which point holds it.
            if arrivals.count >= 256 { arrivals.removeFirst() }
            arrivals.append((arrived: event.monotonic, taken: taken))
        }
        if let reason = step.decodeError, case .payload(let sensor, let kind, let payload) = event.body {
            // Counted per sensor (status shows them); the bytes go to the debug log, never into a run.
            decodeErrorsLogged += 1
            if decodeErrorsLogged <= 200 || decodeErrorsLogged % 1000 == 0 {
                logger.debug(
                    "Rejected a reading",
                    metadata: [
                        "sensor.id": "\(sensor)", "kind": "\(kind)", "reason": "\(reason)",
                        "payload": "\(payload.loggable)",
                    ])
            }
        }
        if let error = step.commandError, case .command(let command) = event.body {
            logger.notice("Command \(command.rawValue) does not apply: \(error)")
        }
        await handle(step.outputs)
    }

    /// A session command from the CLI or the button, stamped now. A stop discards a run that is
    /// worth nothing (see `worthKeeping`) unless `keep`; the reply's distance in `units` (the
    /// configured ones when `nil`).
    func command(
        _ command: SessionCommand, keep: Bool = false, units: Units? = nil
    ) async throws(ControlError) -> CommandReport {
        let (monotonic, wall) = now()
        let runBefore = session?.id?.rawValue
        discarded = nil
        discardIfEmpty = command == .stop && !keep
        let step = take(CaptureEvent(monotonic: monotonic, wall: wall, body: .command(command)))
        await handle(step.outputs)
        discardIfEmpty = false
        if let error = step.commandError {
            throw ControlError(code: Self.code(for: error), message: error.description)
        }
        return commandReport(command, runBefore: runBefore, units: units)
    }

    /// Whether a stopped run is kept: it lasted at least `discard_shorter_than_s`, or it has
    /// distance (a short run that went somewhere is a run).
    static func worthKeeping(_ summary: RunSummary, shorterThan threshold: Double) -> Bool {
        threshold <= 0 || summary.elapsedSeconds >= threshold || summary.statistics.distanceMeters > 0
    }

    /// Drops the run being finished: its pending batches and its rows, so it never reaches the
    /// outbox. The baton it was started with stays as it is (see docs/design-notes.md, issue 29).
    private func discard(_ run: ActiveSession, summary: RunSummary) {
        batches.removeAll { $0.session == run.batchKey }
        var baton: BatonMode?
        if let id = run.id {
            baton = (try? database.baton(of: id))?.mode
            do { try database.deleteRun(id) } catch {
                logger.error("Could not discard run \(id) from the journal: \(error)", metadata: sessionMetadata)
            }
        }
        discarded = (run.id?.rawValue, summary.elapsedSeconds, baton)
        logger.notice(
            "Run \(run.description) discarded: \(Format.duration(summary.elapsedSeconds)) and no distance",
            metadata: ["session.id": "\(run.description)"])
    }

    /// Every event goes through here: it becomes "now" (for a replay), goes to the capture being
    /// written, then through the codecs and the recorder.
    private func take(_ event: CaptureEvent) -> RunPipeline.Step {
        // Sources stamp events on their own threads: one stamped just before a tick may reach
        // the engine just after it. The recorder then takes it at the tick's time (time never runs
        // back), and the capture must say so too, or a replay (which has no ticks) would put it
        // one second earlier than the live run did.
        var event = event
        if let floor = processedUpTo, event.monotonic < floor { event.monotonic = floor }
        processedUpTo = event.monotonic
        lastMonotonic = event.monotonic
        if let wall = event.wall { lastWall = wall }
        if let capture {
            do { try capture.write(event) } catch {
                logger.error(
                    "Could not write the capture; capturing stops, recording goes on", metadata: ["error": "\(error)"])
                self.capture = nil
            }
        }
        return pipeline.process(event)
    }

    /// A clock tick (live only): emits the points that are due although no sensor spoke.
    /// Returns when the next point falls due, if a run is open.
    @discardableResult
    func tick() async -> MonotonicInstant? {
        guard mode == .live else { return nil }
        await checkClock()
        let now = PackClock.monotonic()
        if processedUpTo.map({ now > $0 }) ?? true { processedUpTo = now }
        await handle(pipeline.advance(to: now))
        return pipeline.recorder.nextPointTime
    }

    /// Live: tells the recorder (and the capture) whenever the system clock's synchronisation
    /// changes, so that runs recorded before NTP or without it take GPS time.
    func checkClock() async {
        let synchronized = PackClock.isSynchronized()
        guard synchronized != clockSynchronized else { return }
        clockSynchronized = synchronized
        if !synchronized {
            logger.notice("The system clock is not synchronised: runs will take their times from GPS")
        }
        await ingest(
            CaptureEvent(
                monotonic: PackClock.monotonic(), wall: PackClock.wall(), body: .clock(synchronized: synchronized))
        )
    }

    /// "Now" for commands and status: the clock live, the replay's latest event otherwise.
    func now() -> (MonotonicInstant, WallInstant?) {
        switch mode {
        case .live: (PackClock.monotonic(), PackClock.wall())
        case .replay: (lastMonotonic ?? MonotonicInstant(nanoseconds: 0), lastWall)
        }
    }

    // MARK: Outputs

    /// Turns recorder outputs into journal writes: every point is committed before the next
    /// event is taken, so at most the second in flight is lost to a crash.
    ///
    /// The outputs are applied without suspending; only the commit at the end awaits. While it
    /// does, other events may be taken (this is an actor): their outputs go to the batch of the
    /// run they belong to, never to another run's.
    func handle(_ outputs: [RecorderOutput]) async {
        guard !outputs.isEmpty else { return }
        var commitNow = false
        for output in outputs {
            switch output {
            case .started(let start):
                startSession(start)
                arrivals.removeAll()
            case .point(let point):
                appendToOpenRun { $0.points.append(point) }
                commitNow = true
                if let start = session?.startMonotonic {
                    latestPointBoundary = start.advanced(
                        byNanoseconds: Int64(point.elapsedSeconds) * nanosecondsPerSecond)
                }
                logger.trace("recorded point \(point.elapsedSeconds)", metadata: sessionMetadata)
            case .rrIntervals(let batch):
                appendToOpenRun { $0.rrIntervals.append(batch) }
            case .event(let event):
                appendToOpenRun { batch in
                    batch.events.append(event)
                    if event.kind == .pause { batch.state = .paused }
                    if event.kind == .resume { batch.state = .recording }
                }
                if event.kind == .pause || event.kind == .resume { commitNow = true }
            case .lap(let lap):
                appendToOpenRun { $0.laps.append(lap) }
            case .wallClockCorrected(let wall):
                let first = session?.clockSource != .gps
                session?.startWall = wall
                session?.clockSource = .gps
                appendToOpenRun { $0.correctedStartWall = wall }
                commitNow = true
                let metadata = sessionMetadata.merging(["start": "\(CivilTime(wall).iso8601())"]) { a, _ in a }
                if first {
                    logger.notice(
                        "The system clock is not synchronised: the run's times now come from GPS time",
                        metadata: metadata)
                } else {
                    logger.debug("A prompter GPS fix refined the run's start", metadata: metadata)
                }
            case .finished(let summary):
                if discardIfEmpty, let run = session,
                    !Self.worthKeeping(summary, shorterThan: discardShorterThanSeconds)
                {
                    discard(run, summary: summary)
                    session = nil
                    continue
                }
                // Without a synchronised clock "now" may be far off; the run's own start is not.
                let wall: WallInstant
                if let run = session, run.clockSource != .system {
                    wall = run.startWall.advanced(byNanoseconds: Int64(summary.elapsedSeconds * 1e9))
                } else {
                    wall = now().1 ?? PackClock.wall()
                }
                appendToOpenRun { $0.finish = SessionBatch.Finish(summary: summary, wall: wall) }
                commitNow = true
                logger.info(
                    "Run \(session?.description ?? "?") finished: \(Format.distance(summary.statistics.distanceMeters, units)) in \(Format.duration(summary.elapsedSeconds))",
                    metadata: sessionMetadata)
                session = nil
            }
        }
        if commitNow {
            await commit()
            noteCommitLatency()
        }
    }

    private var sessionMetadata: Logger.Metadata {
        guard let session else { return [:] }
        return ["session.id": "\(session.description)"]
    }

    /// Applies `change` to the batch of the run being recorded.
    private func appendToOpenRun(_ change: (inout SessionBatch) -> Void) {
        guard let session else { return }
        if let last = batches.indices.last, batches[last].session == session.batchKey {
            change(&batches[last])
        } else {
            var batch = SessionBatch(session: session.batchKey)
            change(&batch)
            batches.append(batch)
        }
    }

    func startSession(_ start: SessionStart) {
        let uuid = UUID().uuidString.lowercased()
        let wall = start.wall ?? PackClock.wall()
        let clock: ClockSource =
            start.wallFromGPS ? .gps : pipeline.recorder.wallClockSynchronized ? .system : .unsynchronized
        var run = ActiveSession(
            id: nil, uuid: uuid, startWall: wall, startMonotonic: start.monotonic, clockSource: clock)
        run.id = createRunRow(run)
        session = run
        logger.info(
            "Run \(run.description) started", metadata: ["session.id": "\(run.description)", "session.uuid": "\(uuid)"])
    }

    /// Creates the run's row; `nil` when the journal refuses (the run is then kept in memory and
    /// the row created at the next commit that succeeds).
    private func createRunRow(_ run: ActiveSession) -> SessionID? {
        do {
            try database.registerSensors(Array(sensors.values).sorted { $0.id < $1.id })
            return try database.beginSession(
                uuid: run.uuid, startMonotonic: run.startMonotonic, startWall: run.startWall,
                source: replay.map { "replay:" + $0.file } ?? "live", clockSource: run.clockSource)
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

    /// Writes the pending batches, oldest first. A batch that fails stays, with everything
    /// after it, for the next attempt (every recorded second).
    func commit() async {
        if var run = session, run.id == nil, let id = createRunRow(run) {
            run.id = id
            session = run
            for i in batches.indices where batches[i].session == ActiveSession.unsaved { batches[i].session = id }
        }
        let ready = batches.filter { !$0.isEmpty && $0.session != ActiveSession.unsaved }
        guard !ready.isEmpty else { return }
        batches.removeAll { !$0.isEmpty && $0.session != ActiveSession.unsaved }
        for (index, batch) in ready.enumerated() {
            do {
                try await database.commit(batch)
                if batch.finish != nil { runFinished?() }
            } catch {
                failedCommits += 1
                if failedCommits == 1 || failedCommits % 60 == 0 {
                    logger.error(
                        "Could not commit to the journal (\(failedCommits) attempts); the recording is kept in memory and retried every second",
                        metadata: ["error": "\(error)", "points_waiting": "\(batch.points.count)"])
                }
                // The failed batches go back in front of whatever arrived meanwhile, merged per run.
                var queue = Array(ready[index...])
                for newer in batches {
                    if let last = queue.indices.last, queue[last].session == newer.session {
                        queue[last].append(newer)
                    } else {
                        queue.append(newer)
                    }
                }
                batches = queue
                return
            }
        }
        if failedCommits > 0 {
            logger.notice("The journal accepts writes again after \(failedCommits) failed commits; nothing was lost")
            failedCommits = 0
        }
    }

    // MARK: Lifecycle

    func setCapture(_ writer: CaptureFileWriter?) { capture = writer }

    /// Notes the baton a run was started with (the upload claims it when it was taken offline).
    func noteBaton(run: Int64, group: Int64?, mode: BatonMode) {
        do { try database.setBaton(SessionID(run), group: group, mode: mode) } catch {
            logger.error("Could not note the run's baton in the journal: \(error)", metadata: ["session.id": "\(run)"])
        }
    }

    func setRunFinishedHandler(_ handler: @escaping @Sendable () -> Void) { runFinished = handler }

    func beginReplay(header: CaptureHeader, file: String, speed: ReplaySpeed) {
        for sensor in header.sensors where sensors[sensor.id] == nil {
            sensors[sensor.id] = sensor
            pipeline.register(sensor)
        }
        replay = ReplayReport(
            file: file, speed: speed.description, events: 0, progress: 0, finished: false,
            simulatedDistanceM: header.simulation.map { Format.rounded($0.routeDistanceMeters, 2) },
            simulatedAvgHrBpm: header.simulation.map { Format.rounded($0.averageHeartRate, 2) })
    }

    func replayProgress(events: Int, progress: Double) {
        replay?.events = events
        replay?.progress = progress
    }

    func endReplay(events: Int, skippedLines: [CaptureLineError]) async {
        replay?.events = events
        replay?.progress = 1
        replay?.finished = true
        await commit()
        if !skippedLines.isEmpty {
            logger.warning(
                "The capture had \(Format.count(skippedLines.count, "unreadable line")); they were skipped",
                metadata: ["first": "\(skippedLines[0])"])
        }
        logger.info("Replay finished", metadata: ["events": "\(events)"])
    }

    /// On shutdown (SIGTERM): a run in progress is finished now, committed, and the journal
    /// checkpointed, so that a pack switched off at the end of a run has that run complete.
    func shutdown() async {
        if pipeline.recorder.state == .recording || pipeline.recorder.state == .paused {
            let (monotonic, wall) = now()
            await handle(take(CaptureEvent(monotonic: monotonic, wall: wall, body: .command(.stop))).outputs)
            logger.notice("Finished the run in progress because handoffd is stopping")
        }
        await commit()
        let left = batches.reduce(0) { $0 + $1.points.count }
        if left > 0 {
            logger.critical("Stopping with \(left) points not committed: the journal refused them")
        }
        do { try database.checkpoint() } catch { logger.warning("Checkpoint failed: \(error)") }
    }

    static func code(for error: RecorderError) -> ControlError.Code {
        switch error {
        case .notRecording: "not_recording"
        case .alreadyRecording: "already_recording"
        case .alreadyPaused: "already_paused"
        case .notPaused: "not_paused"
        case .notStarted: "not_started"
        case .emptyLap: "empty_lap"
        }
    }
}

extension PackEngine {
    /// After a commit: every notification that arrived before the latest committed point's grid
    /// moment is in that point (or was superseded by a later one in it), so it took until now to
    /// be on the card.
    func noteCommitLatency() {
        guard mode == .live, let boundary = latestPointBoundary, batches.isEmpty else { return }
        let now = PackClock.monotonic()
        if boundary != lastDelayBoundary {
            pointCommitDelay.add(nanoseconds: now.nanoseconds - boundary.nanoseconds)
            lastDelayBoundary = boundary
        }
        var kept: [(arrived: MonotonicInstant, taken: MonotonicInstant)] = []
        for arrival in arrivals {
            if arrival.taken < boundary {
                commitLatency.add(nanoseconds: now.nanoseconds - arrival.arrived.nanoseconds)
            } else {
                kept.append(arrival)
            }
        }
        arrivals = kept
    }
}

/// A rolling window of latencies (the last 1024) with their percentiles.
struct LatencyStatistics: Sendable {
    private var samples: [Int64] = []
    private var next = 0
    private(set) var count = 0

    mutating func add(nanoseconds: Int64) {
        count += 1
        if samples.count < 1024 {
            samples.append(nanoseconds)
        } else {
            samples[next] = nanoseconds
            next = (next + 1) % samples.count
        }
    }

    var report: LatencyReport? {
        guard let p50 = milliseconds(at: 0.5), let p95 = milliseconds(at: 0.95), let max = milliseconds(at: 1) else {
            return nil
        }
        return LatencyReport(
            samples: count, p50Ms: Format.rounded(p50, 1), p95Ms: Format.rounded(p95, 1), maxMs: Format.rounded(max, 1))
    }

    /// Milliseconds at the quantile `q` (0–1) of the window.
    func milliseconds(at q: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let index = min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded()))
        return Double(sorted[index]) / 1e6
    }
}
