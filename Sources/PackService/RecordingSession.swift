import Foundation
import HandoffModel
import PackStorage
import Recorder

/// The pure core of the engine: the recorder and the run being recorded. It takes events and
/// turns what the recorder produces into actions for the journal, the telemetry and the log; it
/// reads no clock and writes nothing (the engine does both), so it is tested without I/O.
///
/// Runs are named by their UUID here: the journal's row number is the journal's to give
/// (`JournalWriter`), and a run whose row could not be created yet still records.
struct RecordingSession: Sendable {
    /// The run being recorded.
    struct Run: Hashable, Sendable {
        var uuid: String
        var startWall: WallInstant
        var startMonotonic: MonotonicInstant
        var clockSource: ClockSource
        var sport: RunSport = .run
    }

    /// What a run's journal batch gains.
    enum Entry: Sendable {
        case point(RecordPoint)
        case rrIntervals(RRIntervalBatch)
        case event(SessionEvent)
        case lap(Lap)
        /// The run's start as GPS time told it (the system clock was not synchronised).
        case correctedStart(WallInstant)
        case finish(SessionBatch.Finish)
    }

    enum Action: Sendable {
        /// A run began: the journal creates its row.
        case begin(Run)
        /// The run named by its UUID gains `Entry` in its pending batch.
        case record(Entry, run: String)
        /// The run's times now come from GPS (`first`), or a prompter fix refined its start.
        case clockCorrected(Run, first: Bool)
        /// The run finished and is kept: its summary is in its batch.
        case finished(Run, RunSummary)
        /// The run finished worth nothing and is not kept: its batches and rows go.
        case discard(Run, RunSummary)
        /// The latest point's grid moment (for the commit latency).
        case pointBoundary(MonotonicInstant)
        /// What is pending must be on the card before the next event is taken.
        case commit
    }

    private(set) var pipeline: RunPipeline
    private(set) var sensors: [SensorID: SensorDescriptor] = [:]
    private(set) var run: Run?
    /// The latest time the recorder has been taken to, by an event or a tick.
    private(set) var processedUpTo: MonotonicInstant?
    /// The latest event's times, which are "now" during a replay.
    private(set) var lastMonotonic: MonotonicInstant?
    private(set) var lastWall: WallInstant?
    /// `[recording] discard_shorter_than_s`: a stopped run shorter than this with no distance is
    /// not kept (0 keeps every run).
    let discardShorterThanSeconds: Double
    /// Names a new run (a random UUID; a test's own sequence).
    let newUUID: @Sendable () -> String
    /// The pedometer's steps outside runs, by day, not yet in the journal.
    private(set) var stepDays: StepDays

    init(
        recorder: RecorderConfiguration, sensors: [SensorDescriptor], discardShorterThanSeconds: Double,
        zone: TimeZone = .current, newUUID: @escaping @Sendable () -> String
    ) {
        stepDays = StepDays(zone: zone)
        pipeline = RunPipeline(configuration: recorder, sensors: sensors)
        for sensor in sensors { self.sensors[sensor.id] = sensor }
        self.discardShorterThanSeconds = discardShorterThanSeconds
        self.newUUID = newUUID
    }

    var state: SessionState { pipeline.recorder.state }
    var isRecording: Bool { state == .recording || state == .paused }

    /// Makes a sensor known (a newly paired one, or a replayed capture's).
    mutating func register(_ sensor: SensorDescriptor) {
        sensors[sensor.id] = sensor
        pipeline.register(sensor)
    }

    /// Takes one event through the codecs and the recorder. Returns the event as taken (its time
    /// never before the latest taken: see `PackEngine.take`) with the recorder's step.
    mutating func take(_ event: CaptureEvent) -> (event: CaptureEvent, step: RunPipeline.Step) {
        var event = event
        if let floor = processedUpTo, event.monotonic < floor { event.monotonic = floor }
        processedUpTo = event.monotonic
        lastMonotonic = event.monotonic
        if let wall = event.wall { lastWall = wall }
        let step = pipeline.process(event)
        // Steps go on the date a trusted clock says: the system's once synchronised, else GPS
        // time. A Pi without a real-time clock starts in 1970 (or at its last saved time): until
        // NTP or a fix tells the date, the steps wait.
        let recorder = pipeline.recorder
        stepDays.credit(
            total: recorder.stepsOutsideRuns,
            at: recorder.wallClockSynchronized ? lastWall : recorder.gpsWall(at: event.monotonic))
        return (event, step)
    }

    /// The steps outside runs the journal has not got, when they are due at `now` (or `force`d):
    /// taken out, to be written; `restoreSteps` gives them back if the write fails.
    mutating func stepsToSave(at now: MonotonicInstant, force: Bool = false) -> [String: Int]? {
        guard force ? !stepDays.pending.isEmpty : stepDays.due(at: now) else { return nil }
        return stepDays.take(at: now)
    }

    mutating func restoreSteps(_ steps: [String: Int]) { stepDays.restore(steps) }

    /// A clock tick: the points due by `now` although no sensor spoke.
    mutating func advance(to now: MonotonicInstant) -> [RecorderOutput] {
        if processedUpTo.map({ now > $0 }) ?? true { processedUpTo = now }
        return pipeline.advance(to: now)
    }

    /// Whether a stopped run is kept: it lasted at least `discard_shorter_than_s`, or it has
    /// distance (a short run that went somewhere is a run).
    static func worthKeeping(_ summary: RunSummary, shorterThan threshold: Double) -> Bool {
        threshold <= 0 || summary.elapsedSeconds >= threshold || summary.statistics.distanceMeters > 0
    }

    /// The actions for the recorder's outputs, in order. `systemWall` is the system's wall clock
    /// now (a run's start when the recorder knows none), `wall` the engine's "now" (a run's end
    /// on a synchronised clock: the replay's latest event in a replay); `discardIfEmpty` is set
    /// for a person's stop, whose run is dropped when it is worth nothing.
    mutating func actions(
        for outputs: [RecorderOutput], systemWall: WallInstant, wall: WallInstant, discardIfEmpty: Bool = false
    ) -> [Action] {
        var actions: [Action] = []
        var commitNow = false
        for output in outputs {
            switch output {
            case .started(let start):
                let clock: ClockSource =
                    start.wallFromGPS ? .gps : pipeline.recorder.wallClockSynchronized ? .system : .unsynchronized
                let new = Run(
                    uuid: newUUID(), startWall: start.wall ?? systemWall, startMonotonic: start.monotonic,
                    clockSource: clock, sport: start.sport)
                run = new
                actions.append(.begin(new))
            case .point(let point):
                guard let run else { continue }
                actions.append(.record(.point(point), run: run.uuid))
                commitNow = true
                actions.append(
                    .pointBoundary(
                        run.startMonotonic.advanced(byNanoseconds: Int64(point.elapsedSeconds) * nanosecondsPerSecond)))
            case .rrIntervals(let batch):
                if let run { actions.append(.record(.rrIntervals(batch), run: run.uuid)) }
            case .event(let event):
                guard let run else { continue }
                actions.append(.record(.event(event), run: run.uuid))
                if event.kind == .pause || event.kind == .resume { commitNow = true }
            case .lap(let lap):
                if let run { actions.append(.record(.lap(lap), run: run.uuid)) }
            case .wallClockCorrected(let corrected):
                guard var current = run else { continue }
                let first = current.clockSource != .gps
                current.startWall = corrected
                current.clockSource = .gps
                run = current
                actions.append(.record(.correctedStart(corrected), run: current.uuid))
                actions.append(.clockCorrected(current, first: first))
                commitNow = true
            case .finished(let summary):
                guard let finished = run else { continue }
                run = nil
                if discardIfEmpty, !Self.worthKeeping(summary, shorterThan: discardShorterThanSeconds) {
                    actions.append(.discard(finished, summary))
                    continue
                }
                // Without a synchronised clock "now" may be far off; the run's own start is not.
                let end =
                    finished.clockSource != .system
                    ? finished.startWall.advanced(byNanoseconds: Int64(summary.elapsedSeconds * 1e9)) : wall
                actions.append(.record(.finish(SessionBatch.Finish(summary: summary, wall: end)), run: finished.uuid))
                actions.append(.finished(finished, summary))
                commitNow = true
            }
        }
        if commitNow { actions.append(.commit) }
        return actions
    }
}

extension SessionBatch {
    /// Adds one entry; a pause or resume event also sets the run's state.
    mutating func add(_ entry: RecordingSession.Entry) {
        switch entry {
        case .point(let point): points.append(point)
        case .rrIntervals(let batch): rrIntervals.append(batch)
        case .event(let event):
            events.append(event)
            if event.kind == .pause { state = .paused }
            if event.kind == .resume { state = .recording }
        case .lap(let lap): laps.append(lap)
        case .correctedStart(let wall): correctedStartWall = wall
        case .finish(let finish): self.finish = finish
        }
    }
}
