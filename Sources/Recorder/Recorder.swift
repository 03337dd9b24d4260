import HandoffModel
import SensorCodecs

/// The session state machine: pure and deterministic. The same inputs, in the same order, give
/// the same outputs, byte for byte, whatever the pace they arrive at.
///
/// Record points lie on a one-second grid from the start. The point at a grid moment fuses the
/// latest value of each sensor received *before* that moment; it is emitted as soon as any input
/// at or after that moment arrives (a reading, a command, or `advance(to:)` from a clock tick).
/// Ticks therefore change when points appear, never what they contain.
public struct Recorder: Sendable {
    public let configuration: RecorderConfiguration
    public private(set) var state: SessionState = .idle
    public private(set) var start: SessionStart?

    /// The one-second grid points lie on, and the latest input time.
    var grid = PointGrid()
    var tracks: [SensorTrack] = []
    var selected: [SensorKind: SensorID] = [:]
    var timeline = TimerTimeline()
    /// The session's distance, statistics and kilometre splits.
    var totals = SessionTotals()
    var lap = LapState()
    /// Steps counted in this session.
    var stepCount = StepCount()

    /// Whether the system clock is synchronised. When it is not, the session's wall times come
    /// from GPS time: the owner sets this from the kernel's clock status (or a capture's).
    public var wallClockSynchronized = true
    /// The pedometer's steps taken while no run was recording, since this recorder began (a
    /// running total: the owner credits its increments to the day they fall on).
    public var stepsOutsideRuns: Int { stepCount.outsideRuns }
    /// Whether a pedometer (or the footpod's cadence) has counted steps since this recorder began.
    public var countsSteps: Bool { stepCount.hasSource }
    /// Whether a fix has told the recorder GPS time (a run started now would take its time from it
    /// if the system clock is not synchronised).
    public var knowsGPSTime: Bool { gpsTimeOffset != nil }
    /// The wall time at `time` by GPS, once a fix has told it.
    public func gpsWall(at time: MonotonicInstant) -> WallInstant? {
        gpsTimeOffset.map { WallInstant(nanosecondsSinceEpoch: time.nanoseconds &+ $0) }
    }
    /// GPS time minus the monotonic clock: the best estimate from the fixes with a date so far.
    var gpsTimeOffset: Int64?

    public init(configuration: RecorderConfiguration = RecorderConfiguration()) {
        self.configuration = configuration
    }

    /// Makes a sensor known before it sends anything, so that status can list it.
    public mutating func register(_ sensor: SensorDescriptor) {
        _ = trackIndex(for: sensor.id, kind: sensor.kind)
    }

    // MARK: Inputs

    /// Applies a session command at `time`; a start records `sport`.
    public mutating func handle(
        _ command: SessionCommand, at time: MonotonicInstant, wall: WallInstant? = nil, sport: RunSport = .run
    ) throws(RecorderError) -> [RecorderOutput] {
        let time = clamp(time)
        switch (command, state) {
        case (.start, .idle), (.start, .finished): return begin(at: time, wall: wall, sport: sport)
        case (.start, _): throw .alreadyRecording
        case (_, .idle): throw .notStarted
        case (_, .finished): throw .notRecording
        case (.pause, .paused): throw .alreadyPaused
        case (.resume, .recording): throw .notPaused
        default: break
        }
        var out = emitPoints(through: time)
        let offset = time.nanoseconds - start!.monotonic.nanoseconds
        switch command {
        case .pause:
            state = .paused
            totals.distance.pause(at: time)
            timeline.pause(atOffset: offset)
            out.append(.event(SessionEvent(offsetNanoseconds: offset, kind: .pause)))
        case .resume:
            state = .recording
            totals.distance.resume(at: time)
            timeline.resume(atOffset: offset)
            out.append(.event(SessionEvent(offsetNanoseconds: offset, kind: .resume)))
        case .lap:
            guard lap.pointCount > 0, let last = grid.lastPoint else { throw .emptyLap }
            out.append(.event(SessionEvent(offsetNanoseconds: offset, kind: .lap)))
            out.append(.lap(closeLap(trigger: .manual, at: last)))
        case .stop:
            out.append(contentsOf: finish(at: time, offset: offset))
        case .start:
            break
        }
        return out
    }

    /// Takes a decoded reading.
    public mutating func receive(_ reading: SensorReading) -> [RecorderOutput] {
        let time = clamp(reading.time)
        var out = emitPoints(through: time)
        let index = trackIndex(for: reading.sensor, kind: kind(of: reading.value))
        if tracks[index].kind == .unknown, case let kind = kind(of: reading.value), kind != .unknown {
            tracks[index].kind = kind
        }
        if case .link(let state, let reason) = reading.value {
            tracks[index].link = state
            if isActive {
                out.append(
                    .event(
                        SessionEvent(
                            offsetNanoseconds: offset(of: time), kind: state == .connected ? .connected : .disconnected,
                            sensor: reading.sensor, detail: reason)))
            }
            return out
        }
        if case .battery(let percent) = reading.value {
            // A battery level says the sensor is there, not that it measures: no freshness, no gap end.
            tracks[index].batteryPercent = percent
            return out
        }
        if tracks[index].link == .disconnected { tracks[index].link = .connected }
        tracks[index].lastDataTime = time
        if tracks[index].inGap {
            tracks[index].inGap = false
            if isActive {
                out.append(
                    .event(SessionEvent(offsetNanoseconds: offset(of: time), kind: .gapEnd, sensor: reading.sensor)))
            }
        }
        switch reading.value {
        case .heartRate(let hrm):
            tracks[index].heartRate = hrm
            if state == .recording, !hrm.rrIntervals1024ths.isEmpty {
                out.append(
                    .rrIntervals(
                        RRIntervalBatch(
                            sensor: reading.sensor, offsetNanoseconds: offset(of: time),
                            intervals1024ths: hrm.rrIntervals1024ths)))
            }
        case .runningSpeedCadence(let rsc):
            receiveFootpod(rsc, at: time, track: index)
        case .gnss(let fix):
            tracks[index].gps.fix = fix
            learnGPSTime(fix, at: time, into: &out)
            receiveGPSEpoch(
                EpochFix(
                    time: time, hasFix: fix.hasPosition, latitude: fix.latitude ?? 0, longitude: fix.longitude ?? 0,
                    speed: fix.speedMetersPerSecond, hdop: fix.hdop), track: index)
        case .steps(let count):
            receiveSteps(count, track: index)
        case .cyclingSpeedCadence(let csc):
            receiveBike(csc, at: time, track: index)
        case .battery, .link:
            break
        }
        return out
    }

    /// Lets time pass with no input: emits the grid points up to `time` (a clock tick).
    public mutating func advance(to time: MonotonicInstant) -> [RecorderOutput] {
        emitPoints(through: clamp(time))
    }

    // MARK: GPS time

    /// Learns GPS time from a fix with a date and a position (a receiver's clock before its first
    /// fix is a guess); moves the session's start to GPS time when the system clock is not
    /// synchronised.
    ///
    /// A fix reaches us some time after the second it states (the receiver's output, gpsd, an epoch
    /// only known complete when the next begins), and that delay only ever makes GPS time minus the
    /// monotonic clock smaller. So the largest difference seen is the best estimate: a start set
    /// from a late first fix is moved again when a prompter fix improves it by more than
    /// `gpsTimeRefinementNanoseconds`. A difference that falls by more than two seconds means GPS time
    /// itself stepped (a receiver reset), and is taken afresh.
    mutating func learnGPSTime(_ fix: GNSSFix, at time: MonotonicInstant, into out: inout [RecorderOutput]) {
        guard fix.hasPosition, let utc = fix.utc else { return }
        let observed = utc.nanosecondsSinceEpoch &- time.nanoseconds
        if let best = gpsTimeOffset, observed <= best + Self.gpsTimeRefinementNanoseconds,
            observed >= best - 2_000_000_000
        {
            gpsTimeOffset = max(best, observed)
            return
        }
        gpsTimeOffset = observed
        guard !wallClockSynchronized, isActive, var begun = start else { return }
        begun.wall = WallInstant(nanosecondsSinceEpoch: begun.monotonic.nanoseconds &+ observed)
        begun.wallFromGPS = true
        start = begun
        out.append(.wallClockCorrected(begun.wall!))
    }

    /// How much better a later fix must place GPS time before a session's start is moved again.
    static let gpsTimeRefinementNanoseconds: Int64 = 50_000_000

    /// When the next record point falls due (while recording or paused): a clock that ticks then
    /// commits each second as soon as it ends, instead of up to a second later.
    public var nextPointTime: MonotonicInstant? {
        guard isActive, let start else { return nil }
        return start.monotonic.advanced(byNanoseconds: Int64(grid.nextElapsed) * nanosecondsPerSecond)
    }

    // MARK: Helpers

    var isActive: Bool { state == .recording || state == .paused }

    func offset(of time: MonotonicInstant) -> Int64 {
        guard let start else { return 0 }
        return max(0, time.nanoseconds - start.monotonic.nanoseconds)
    }

    /// Inputs may arrive a little out of order from concurrent sources; time never runs back.
    mutating func clamp(_ time: MonotonicInstant) -> MonotonicInstant {
        if time > grid.lastInputTime { grid.lastInputTime = time }
        return grid.lastInputTime
    }

    mutating func trackIndex(for id: SensorID, kind: SensorKind) -> Int {
        // Registered sensors keep the kind they were registered with.
        if let index = tracks.firstIndex(where: { $0.id == id }) { return index }
        let index = tracks.firstIndex(where: { $0.id > id }) ?? tracks.count
        tracks.insert(SensorTrack(id: id, kind: kind), at: index)
        return index
    }

    func kind(of value: SensorReading.Value) -> SensorKind {
        switch value {
        case .heartRate: .heartRate
        case .runningSpeedCadence: .footpod
        case .gnss: .gps
        case .steps: .pedometer
        case .cyclingSpeedCadence: .bike
        case .link, .battery: .unknown
        }
    }

    /// What the session records (a run until one starts).
    public var sport: RunSport { start?.sport ?? .run }

    private mutating func begin(at time: MonotonicInstant, wall: WallInstant?, sport: RunSport) -> [RecorderOutput] {
        // A new session keeps what is known of the sensors and starts everything else afresh.
        let known = tracks.map { track in
            var t = track
            t.inGap = false
            return t
        }
        let synchronized = wallClockSynchronized
        let gpsOffset = gpsTimeOffset
        let outsideRuns = stepCount.outsideRuns
        self = Recorder(configuration: configuration)
        tracks = known
        stepCount.outsideRuns = outsideRuns
        wallClockSynchronized = synchronized
        gpsTimeOffset = gpsOffset
        grid.lastInputTime = time
        var begun = SessionStart(monotonic: time, wall: wall, sport: sport)
        if !wallClockSynchronized, let gpsOffset {
            begun.wall = WallInstant(nanosecondsSinceEpoch: time.nanoseconds &+ gpsOffset)
            begun.wallFromGPS = true
        }
        start = begun
        state = .recording
        totals.distance.start(at: time)
        lap.nextAutoDistance = configuration.autoLapMeters.flatMap { $0 > 0 ? $0 : nil }
        var out: [RecorderOutput] = [.started(begun), .event(SessionEvent(offsetNanoseconds: 0, kind: .start))]
        out.append(contentsOf: emitPoints(through: time))
        return out
    }

    private mutating func finish(at time: MonotonicInstant, offset: Int64) -> [RecorderOutput] {
        var out: [RecorderOutput] = [.event(SessionEvent(offsetNanoseconds: offset, kind: .stop))]
        let timer = timeline.timerSeconds(atOffset: offset)
        if lap.pointCount > 0 {
            out.append(
                .lap(
                    Lap(
                        index: lap.index, trigger: .sessionEnd, startElapsedSeconds: lap.startElapsed,
                        endElapsedSeconds: grid.lastPoint?.elapsedSeconds ?? 0,
                        statistics: lap.statistics.statistics(
                            distanceMeters: totals.distance.totalMeters - lap.startDistance,
                            timerSeconds: timer - lap.startTimer
                        ))))
        }
        let summary = RunSummary(
            elapsedSeconds: Double(offset) / 1e9, steps: stepCount.hasSource ? Int(stepCount.count) : nil,
            statistics: totals.statistics.statistics(distanceMeters: totals.distance.totalMeters, timerSeconds: timer),
            splits: totals.splits.finished(distanceMeters: totals.distance.totalMeters, timerSeconds: timer))
        state = .finished
        out.append(.finished(summary))
        return out
    }
}

/// Where the next record point falls, the point before it, and the latest input's time (inputs
/// from concurrent sources may arrive a little out of order; time never runs back).
struct PointGrid: Sendable {
    /// Elapsed second of the next grid point.
    var nextElapsed = 0
    var lastPoint: RecordPoint?
    var lastInputTime = MonotonicInstant(nanoseconds: .min)
}

/// The session's distance, its statistics and its kilometre splits.
struct SessionTotals: Sendable {
    var distance = DistanceTracker()
    var statistics = StatisticsAccumulator()
    var splits = SplitTracker()
}

/// The lap in progress: where it began and what it holds; where the next automatic lap falls.
struct LapState: Sendable {
    var statistics = StatisticsAccumulator()
    var index = 1
    var startElapsed = 0
    var startDistance = 0.0
    var startTimer = 0.0
    var pointCount = 0
    var nextAutoDistance: Double?
}

/// Steps counted in this session, with the fraction footpod cadence integration leaves, and
/// whether any source counts them.
struct StepCount: Sendable {
    var count = 0.0
    var hasSource = false
    /// The pedometer's steps while no run was recording (idle, paused or finished), since the
    /// recorder began: kept across sessions, for the pack's count of a day's steps outside runs.
    var outsideRuns = 0
}
