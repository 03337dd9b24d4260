import Foundation
import HandoffModel
import Logging
import PackControl
import PackSensors
import PackStorage
import PackSync
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

    /// The engine's fixed settings, from the configuration.
    struct Settings: Sendable {
        /// How long `handoff start` waits for a GPS fix (reported in `status`; the CLI waits).
        var startWaitSeconds: Double
        /// `[display] units`: the units of the engine's messages and of `status`'s `units`.
        var units: Units
        /// `[recording] sport`: what a start that names none records.
        var sport: RunSport
        /// Live tracking's queue (`[live]`), when the pack syncs: offered each recorded second.
        var live: LiveFeed?
    }

    let database: PackDatabase
    let logger: Logger
    let mode: Mode
    let clock: PackClock
    let settings: Settings
    let recoveredRuns: [Int64]
    /// The recorder and the run being recorded (pure).
    var recording: RecordingSession
    /// The journal's side: rows, pending batches, failed writes and their retry.
    let journal: JournalWriter
    var telemetry = EngineTelemetry()
    var capture: CaptureFileWriter?
    /// Set by `handoff stop` (without `--keep`) for the stop being taken: the run finishing now is
    /// discarded if it is worth nothing. Shutdown and recovery keep every run.
    var discardIfEmpty = false
    /// The run the latest stop discarded: its number, length and baton.
    var discarded: (run: Int64?, seconds: Double, baton: BatonMode?)?

    /// The run being recorded, with its row once the journal has it (for reports).
    struct ActiveSession: CustomStringConvertible {
        var id: SessionID?
        var uuid: String
        var startWall: WallInstant
        var startMonotonic: MonotonicInstant
        var clockSource: ClockSource
        var description: String { id.map { "\($0)" } ?? "(not yet in the journal)" }
    }

    init(
        database: PackDatabase, configuration: PackConfiguration, mode: Mode, sensors: [SensorDescriptor],
        recoveredRuns: [Int64], logger: Logger, clock: PackClock = .system, live: LiveFeed? = nil,
        newUUID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.database = database
        self.logger = logger
        self.mode = mode
        self.clock = clock
        self.recoveredRuns = recoveredRuns
        settings = Settings(
            startWaitSeconds: configuration.gps.startWaitSeconds, units: configuration.display.units,
            sport: configuration.recording.sport, live: live)
        recording = RecordingSession(
            recorder: configuration.recorder, sensors: sensors,
            discardShorterThanSeconds: configuration.recording.discardShorterThanSeconds, newUUID: newUUID)
        journal = JournalWriter(database: database, logger: logger)
        telemetry.pairedSensors = Set(sensors.filter { $0.transport == .ble }.map(\.id))
    }

    // What the reports read, by the names they had.
    var pipeline: RunPipeline { recording.pipeline }
    var sensors: [SensorID: SensorDescriptor] { recording.sensors }
    var session: ActiveSession? {
        recording.run.map {
            ActiveSession(
                id: journal.row(of: $0.uuid), uuid: $0.uuid, startWall: $0.startWall, startMonotonic: $0.startMonotonic,
                clockSource: $0.clockSource)
        }
    }
    var startWaitSeconds: Double { settings.startWaitSeconds }
    var units: Units { settings.units }
    var discardShorterThanSeconds: Double { recording.discardShorterThanSeconds }
    var replay: ReplayReport? { telemetry.replay }
    var commitLatency: LatencyStatistics { telemetry.commitLatency }
    var pointCommitDelay: LatencyStatistics { telemetry.pointCommitDelay }
    var failedCommits: Int { journal.failedCommits }

    // MARK: Inputs

    /// Makes a newly paired sensor known (status lists it; the journal names it in points).
    func registerPaired(_ sensor: PairedSensor) {
        telemetry.pairedSensors.insert(sensor.id)
        recording.register(sensor.descriptor)
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
        guard telemetry.pairedSensors.contains(sensor) else { return }
        do {
            try database.updatePairedSensor(
                address: sensor.rawValue, lastSeenWall: (event.wall ?? clock.wall()).nanosecondsSinceEpoch,
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
        if mode == .live, recording.state == .recording, case .payload(_, let kind, _) = event.body,
            kind == .heartRateMeasurement || kind == .rscMeasurement || kind == .cscMeasurement,
            let taken = recording.processedUpTo
        {
            // When it came off the socket, and when the recorder took it (later, when it reached the
            // engine after a tick): the latter decides which point holds it.
            telemetry.noteArrival(arrived: event.monotonic, taken: taken)
        }
        if let reason = step.decodeError, case .payload(let sensor, let kind, let payload) = event.body,
            telemetry.shouldLogDecodeError()
        {
            // Counted per sensor (status shows them); the bytes go to the debug log, never into a run.
            logger.debug(
                "Rejected a reading",
                metadata: [
                    "sensor.id": "\(sensor)", "kind": "\(kind)", "reason": "\(reason)",
                    "payload": "\(payload.loggable)",
                ])
        }
        if let error = step.commandError, case .command(let command, _) = event.body {
            logger.notice("Command \(command.rawValue) does not apply: \(error)")
        }
        await handle(step.outputs)
        saveSteps()
    }

    /// Writes the steps outside runs the journal has not got: once a minute while they come,
    /// and at once when `force`d (shutdown, `handoff steps`). A failed write keeps them for the next.
    func saveSteps(force: Bool = false) {
        guard let steps = recording.stepsToSave(at: recording.lastMonotonic ?? clock.monotonic(), force: force)
        else { return }
        do { try database.addSteps(steps) } catch {
            recording.restoreSteps(steps)
            logger.warning("Could not write the day's steps to the journal; they are kept for the next try: \(error)")
        }
    }

    /// A session command from the CLI or the button, stamped now. A stop discards a run that is
    /// worth nothing (see `RecordingSession.worthKeeping`) unless `keep`; the reply's distance in `units` (the
    /// configured ones when `nil`). A start records `sport`, or the configured one.
    func command(
        _ command: SessionCommand, keep: Bool = false, units: Units? = nil, sport: RunSport? = nil
    ) async throws(ControlError) -> CommandReport {
        let (monotonic, wall) = now()
        let runBefore = session?.id?.rawValue
        discarded = nil
        discardIfEmpty = command == .stop && !keep
        // A run is written without its sport, so that captures of runs stay as they were.
        let named = command == .start ? sport ?? settings.sport : nil
        let step = take(
            CaptureEvent(monotonic: monotonic, wall: wall, body: .command(command, sport: named == .run ? nil : named)))
        await handle(step.outputs)
        discardIfEmpty = false
        if let error = step.commandError {
            throw ControlError(code: Self.code(for: error), message: error.description)
        }
        return commandReport(command, runBefore: runBefore, units: units)
    }

    /// Every event goes through here: it becomes "now" (for a replay), goes to the capture being
    /// written, then through the codecs and the recorder.
    ///
    /// Sources stamp events on their own threads: one stamped just before a tick may reach the
    /// engine just after it. The recorder then takes it at the tick's time (time never runs back),
    /// and the capture says so too, or a replay (which has no ticks) would put it one second
    /// earlier than the live run did.
    private func take(_ event: CaptureEvent) -> RunPipeline.Step {
        let (taken, step) = recording.take(event)
        if let capture {
            do { try capture.write(taken) } catch {
                logger.error(
                    "Could not write the capture; capturing stops, recording goes on", metadata: ["error": "\(error)"])
                self.capture = nil
            }
        }
        return step
    }

    /// A clock tick (live only): emits the points that are due although no sensor spoke.
    /// Returns when the next point falls due, if a run is open.
    @discardableResult
    func tick() async -> MonotonicInstant? {
        guard mode == .live else { return nil }
        await checkClock()
        await handle(recording.advance(to: clock.monotonic()))
        return recording.pipeline.recorder.nextPointTime
    }

    /// Live: tells the recorder (and the capture) whenever the system clock's synchronisation
    /// changes, so that runs recorded before NTP or without it take GPS time.
    func checkClock() async {
        let synchronized = clock.isSynchronized()
        guard synchronized != telemetry.clockSynchronized else { return }
        telemetry.clockSynchronized = synchronized
        if !synchronized {
            logger.notice("The system clock is not synchronised: runs will take their times from GPS")
        }
        await ingest(clock.stamp(.clock(synchronized: synchronized)))
    }

    /// "Now" for commands and status: the clock live, the replay's latest event otherwise.
    func now() -> (MonotonicInstant, WallInstant?) {
        switch mode {
        case .live: (clock.monotonic(), clock.wall())
        case .replay: (recording.lastMonotonic ?? MonotonicInstant(nanoseconds: 0), recording.lastWall)
        }
    }

    // MARK: Outputs

    /// Turns recorder outputs into journal writes: every point is committed before the next
    /// event is taken, so at most the second in flight is lost to a crash.
    ///
    /// The actions and the commit at the end run without suspending: the next event is taken
    /// only once this one's points are on the card. Entries go to the batch of the run they
    /// belong to, never to another run's.
    func handle(_ outputs: [RecorderOutput]) async {
        guard !outputs.isEmpty else { return }
        let systemWall = clock.wall()
        let wall = now().1 ?? systemWall
        var commitNow = false
        for action in recording.actions(
            for: outputs, systemWall: systemWall, wall: wall, discardIfEmpty: discardIfEmpty)
        {
            switch action {
            case .begin(let run):
                journal.begin(
                    run, sensors: recording.sensors.values.sorted { $0.id < $1.id },
                    source: telemetry.replay.map { "replay:" + $0.file } ?? "live")
                telemetry.runStarted()
                settings.live?.begin(LiveFeed.Run(uuid: run.uuid, startWall: run.startWall, sport: run.sport))
                let name = journal.row(of: run.uuid).map { "\($0)" } ?? "(not yet in the journal)"
                logger.info("Run \(name) started", metadata: ["session.id": "\(name)", "session.uuid": "\(run.uuid)"])
            case .record(let entry, let run):
                journal.record(entry, run: run)
                if case .point(let point) = entry {
                    // Never waits: a lock and a comparison (the sender does the rest, elsewhere).
                    settings.live?.offer(point, run: run)
                    logger.trace("recorded point \(point.elapsedSeconds)", metadata: metadata(run))
                }
            case .pointBoundary(let boundary):
                telemetry.latestPointBoundary = boundary
            case .clockCorrected(let run, let first):
                settings.live?.correctStart(run.startWall, run: run.uuid)
                let metadata = metadata(run.uuid).merging(["start": "\(CivilTime(run.startWall).iso8601())"]) { a, _ in
                    a
                }
                if first {
                    logger.notice(
                        "The system clock is not synchronised: the run's times now come from GPS time",
                        metadata: metadata)
                } else {
                    logger.debug("A prompter GPS fix refined the run's start", metadata: metadata)
                }
            case .finished(let run, let summary):
                settings.live?.end(run: run.uuid)
                logger.info(
                    "Run \(name(run.uuid)) finished: \(Format.distance(summary.statistics.distanceMeters, units)) in \(Format.duration(summary.elapsedSeconds))",
                    metadata: metadata(run.uuid))
            case .discard(let run, let summary):
                settings.live?.end(run: run.uuid)
                let name = name(run.uuid)
                let (id, baton) = journal.discard(run.uuid)
                discarded = (id?.rawValue, summary.elapsedSeconds, baton)
                logger.notice(
                    "Run \(name) discarded: \(Format.duration(summary.elapsedSeconds)) and no distance",
                    metadata: ["session.id": "\(name)"])
            case .commit:
                commitNow = true
            }
        }
        if commitNow { commit() }
    }

    /// How a run is named in the log: its row number, once the journal has it.
    private func name(_ run: String) -> String {
        journal.row(of: run).map { "\($0)" } ?? "(not yet in the journal)"
    }

    private func metadata(_ run: String) -> Logger.Metadata { ["session.id": "\(name(run))"] }

    /// Writes what is pending; then, live, notes how long it took readings to reach the card.
    func commit() {
        journal.commit()
        if mode == .live, journal.isIdle { telemetry.noteCommit(now: clock.monotonic()) }
    }

    // MARK: Lifecycle

    func setCapture(_ writer: CaptureFileWriter?) { capture = writer }

    /// Notes the baton a run was started with (the upload claims it when it was taken offline).
    func noteBaton(run: Int64, group: Int64?, mode: BatonMode) {
        do { try database.setBaton(SessionID(run), group: group, mode: mode) } catch {
            logger.error("Could not note the run's baton in the journal: \(error)", metadata: ["session.id": "\(run)"])
        }
    }

    func setRunFinishedHandler(_ handler: @escaping @Sendable () -> Void) { journal.runFinished = handler }

    func beginReplay(header: CaptureHeader, file: String, speed: ReplaySpeed) {
        for sensor in header.sensors where recording.sensors[sensor.id] == nil { recording.register(sensor) }
        telemetry.replay = ReplayReport(
            file: file, speed: speed.description, events: 0, progress: 0, finished: false,
            simulatedDistanceM: header.simulation.map { Format.rounded($0.routeDistanceMeters, 2) },
            simulatedAvgHrBpm: header.simulation.map { Format.rounded($0.averageHeartRate, 2) })
    }

    func replayProgress(events: Int, progress: Double) {
        telemetry.replay?.events = events
        telemetry.replay?.progress = progress
    }

    func endReplay(events: Int, skippedLines: [CaptureLineError]) async {
        telemetry.replay?.events = events
        telemetry.replay?.progress = 1
        telemetry.replay?.finished = true
        commit()
        saveSteps(force: true)
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
        if recording.isRecording {
            let (monotonic, wall) = now()
            await handle(take(CaptureEvent(monotonic: monotonic, wall: wall, body: .command(.stop))).outputs)
            logger.notice("Finished the run in progress because handoffd is stopping")
        }
        commit()
        saveSteps(force: true)
        let left = journal.pointsWaiting
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
