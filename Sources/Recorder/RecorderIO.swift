import HandoffModel
import SensorCodecs

/// A decoded reading from one sensor at one moment.
public struct SensorReading: Hashable, Sendable {
    public var time: MonotonicInstant
    public var sensor: SensorID
    public var value: Value

    public enum Value: Hashable, Sendable {
        case heartRate(HeartRateMeasurement)
        case runningSpeedCadence(RSCMeasurement)
        /// A bike sensor's counts: a ride's speed, distance and crank cadence.
        case cyclingSpeedCadence(CSCMeasurement)
        /// A sensor's battery, in percent.
        case battery(UInt8)
        /// One receiver epoch's fix (assembled from NMEA sentences, or a gpsd TPV report).
        case gnss(GNSSFix)
        /// A pedometer's running step count (it may restart from zero when the device resets).
        case steps(Int)
        case link(LinkState, reason: String?)
    }

    public init(time: MonotonicInstant, sensor: SensorID, value: Value) {
        self.time = time
        self.sensor = sensor
        self.value = value
    }
}

/// What the recorder asks its owner to keep, in the order it happened.
public enum RecorderOutput: Hashable, Sendable {
    /// A session began.
    case started(SessionStart)
    case point(RecordPoint)
    case rrIntervals(RRIntervalBatch)
    case event(SessionEvent)
    case lap(Lap)
    /// The session's start in UTC, learnt from GPS time because the system clock was not
    /// synchronised: every wall time of the session derives from it, points already kept included.
    case wallClockCorrected(WallInstant)
    /// The session ended; nothing follows.
    case finished(RunSummary)
}

/// When a session began.
public struct SessionStart: Hashable, Sendable {
    public var monotonic: MonotonicInstant
    /// The wall-clock time at the start, when the pack knew it.
    public var wall: WallInstant?
    /// `wall` came from GPS time (the system clock was not synchronised).
    public var wallFromGPS = false
    /// What the session records: a ride takes its speed and distance from the bike's wheel.
    public var sport: RunSport = .run
}

/// A command that does not apply in the recorder's state, with a sentence for the runner.
public enum RecorderError: Error, Hashable, Sendable, CustomStringConvertible {
    case notRecording
    case alreadyRecording
    case alreadyPaused
    case notPaused
    case notStarted
    case emptyLap

    public var description: String {
        switch self {
        case .notRecording: "no run is being recorded: start one with `handoff start`"
        case .alreadyRecording: "a run is already being recorded"
        case .alreadyPaused: "the run is already paused: `handoff resume` continues it"
        case .notPaused: "the run is not paused"
        case .notStarted: "no run has started: start one with `handoff start`"
        case .emptyLap: "a lap was just marked; this one would have no recorded second in it"
        }
    }
}
