/// Where a recording session is in its life: idle → recording ⇄ paused → finished.
public enum SessionState: String, Hashable, Sendable, Codable {
    case idle
    case recording
    case paused
    case finished
}

/// Something that happened during a session, kept with it: pauses, laps, sensor gaps.
public struct SessionEvent: Hashable, Sendable {
    /// Nanoseconds since the session started.
    public var offsetNanoseconds: Int64
    public var kind: Kind
    public var sensor: SensorID?
    /// A sentence for people, such as the reason a sensor disconnected.
    public var detail: String?

    public init(offsetNanoseconds: Int64, kind: Kind, sensor: SensorID? = nil, detail: String? = nil) {
        self.offsetNanoseconds = offsetNanoseconds
        self.kind = kind
        self.sensor = sensor
        self.detail = detail
    }

    /// An open set of event kinds, stored by name.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let start = Self(rawValue: "start")
        public static let pause = Self(rawValue: "pause")
        public static let resume = Self(rawValue: "resume")
        public static let lap = Self(rawValue: "lap")
        public static let stop = Self(rawValue: "stop")
        /// A sensor's values went stale: no value is recorded for it from `offset` on.
        public static let gapStart = Self(rawValue: "gap_start")
        /// A sensor's values came back after a gap.
        public static let gapEnd = Self(rawValue: "gap_end")
        /// The sensor's transport reported the link lost.
        public static let disconnected = Self(rawValue: "disconnected")
        /// The sensor's transport reported the link (re)established.
        public static let connected = Self(rawValue: "connected")
        /// The session was left open by a crash or power cut and finished at start-up.
        public static let recovered = Self(rawValue: "recovered")
    }
}

/// Why a lap ended.
public enum LapTrigger: String, Hashable, Sendable, Codable {
    /// The runner asked for one (`handoff lap`, the button).
    case manual
    /// The auto-lap distance was reached.
    case distance
    /// The session ended.
    case sessionEnd = "session_end"
}

/// Statistics over a stretch of record points: a lap, or the whole run.
public struct RunStatistics: Hashable, Sendable {
    public var distanceMeters: Double
    /// Time spent recording, pauses excluded, in seconds.
    public var timerSeconds: Double
    /// Recorded seconds in which the runner was moving.
    public var movingSeconds: Int
    public var averageHeartRate: Double?
    public var maximumHeartRate: Int?
    /// Steps per minute, over the seconds with steps.
    public var averageCadence: Double?
    /// Crank revolutions per minute, over the seconds the rider pedalled.
    public var averageCrankCadence: Double?
    public var maximumSpeed: Double?
    public var pointCount: Int

    public init(
        distanceMeters: Double = 0, timerSeconds: Double = 0, movingSeconds: Int = 0,
        averageHeartRate: Double? = nil, maximumHeartRate: Int? = nil, averageCadence: Double? = nil,
        maximumSpeed: Double? = nil, pointCount: Int = 0, averageCrankCadence: Double? = nil
    ) {
        self.averageCrankCadence = averageCrankCadence
        self.distanceMeters = distanceMeters
        self.timerSeconds = timerSeconds
        self.movingSeconds = movingSeconds
        self.averageHeartRate = averageHeartRate
        self.maximumHeartRate = maximumHeartRate
        self.averageCadence = averageCadence
        self.maximumSpeed = maximumSpeed
        self.pointCount = pointCount
    }

    /// Seconds per kilometre over the timer time, when any distance was run.
    public var averagePaceSecondsPerKilometer: Double? {
        distanceMeters >= 1 ? timerSeconds / (distanceMeters / 1000) : nil
    }

    /// Seconds per kilometre over the moving time.
    public var averageMovingPaceSecondsPerKilometer: Double? {
        distanceMeters >= 1 ? Double(movingSeconds) / (distanceMeters / 1000) : nil
    }
}

/// A lap: a stretch of the run ended by the runner, the auto-lap distance, or the finish.
public struct Lap: Hashable, Sendable {
    /// 1-based.
    public var index: Int
    public var trigger: LapTrigger
    /// Elapsed seconds (pauses included) of the lap's first and last point boundaries.
    public var startElapsedSeconds: Int
    public var endElapsedSeconds: Int
    public var statistics: RunStatistics

    public init(
        index: Int, trigger: LapTrigger, startElapsedSeconds: Int, endElapsedSeconds: Int,
        statistics: RunStatistics
    ) {
        self.index = index
        self.trigger = trigger
        self.startElapsedSeconds = startElapsedSeconds
        self.endElapsedSeconds = endElapsedSeconds
        self.statistics = statistics
    }
}

/// The time taken for one kilometre of the run (the last one may be partial).
public struct Split: Hashable, Sendable {
    /// 1-based kilometre number.
    public var kilometer: Int
    /// 1000 m, or less for a final partial kilometre.
    public var distanceMeters: Double
    /// Timer seconds (pauses excluded) taken for it.
    public var seconds: Double
    public var averageHeartRate: Double?

    public init(kilometer: Int, distanceMeters: Double, seconds: Double, averageHeartRate: Double?) {
        self.kilometer = kilometer
        self.distanceMeters = distanceMeters
        self.seconds = seconds
        self.averageHeartRate = averageHeartRate
    }

    public var paceSecondsPerKilometer: Double? {
        distanceMeters >= 1 ? seconds / (distanceMeters / 1000) : nil
    }
}

/// A finished run's summary: what `handoff show` prints.
public struct RunSummary: Hashable, Sendable {
    /// From start to finish, pauses included, in seconds.
    public var elapsedSeconds: Double
    /// Steps counted while recording, when the pack had a step source.
    public var steps: Int?
    public var statistics: RunStatistics
    public var splits: [Split]

    public init(elapsedSeconds: Double, steps: Int? = nil, statistics: RunStatistics, splits: [Split]) {
        self.elapsedSeconds = elapsedSeconds
        self.steps = steps
        self.statistics = statistics
        self.splits = splits
    }
}
