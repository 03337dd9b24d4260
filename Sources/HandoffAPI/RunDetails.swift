/// `GET /v1/runs/{uuid}/details`: what a run's page draws, as numbers, so that another client can
/// draw it too: the simplified route, the chart series on one time axis, splits, laps and pauses.
/// Metric throughout; a value a step has none of is null.
public struct RunDetails: Codable, Sendable, Hashable {
    public var uuid: String
    /// The route, null when the run has no positions.
    public var track: Track?
    public var series: Series
    /// One per kilometre, the last one partial.
    public var splits: [Split]
    public var laps: [Lap]
    public var pauses: [Pause]

    public init(uuid: String, track: Track?, series: Series, splits: [Split], laps: [Lap], pauses: [Pause]) {
        self.uuid = uuid
        self.track = track
        self.series = series
        self.splits = splits
        self.laps = laps
        self.pauses = pauses
    }

    enum CodingKeys: String, CodingKey { case uuid, track, series, splits, laps, pauses }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uuid, forKey: .uuid)
        try c.encode(track, forKey: .track)
        try c.encode(series, forKey: .series)
        try c.encode(splits, forKey: .splits)
        try c.encode(laps, forKey: .laps)
        try c.encode(pauses, forKey: .pauses)
    }

    /// The track as the page draws it: segments of [latitude, longitude] pairs, broken at pauses
    /// and gaps, simplified so that no recorded position is further than `tolerance_m` from them.
    public struct Track: Codable, Sendable, Hashable {
        public var toleranceM: Double
        public var recordedPoints: Int
        public var segments: [[[Double]]]
        /// Where each kilometre was passed.
        public var marks: [Mark]

        public init(toleranceM: Double, recordedPoints: Int, segments: [[[Double]]], marks: [Mark]) {
            self.toleranceM = toleranceM
            self.recordedPoints = recordedPoints
            self.segments = segments
            self.marks = marks
        }

        enum CodingKeys: String, CodingKey {
            case segments, marks
            case toleranceM = "tolerance_m"
            case recordedPoints = "recorded_points"
        }
    }

    public struct Mark: Codable, Sendable, Hashable {
        public var distanceM: Double
        public var latitude: Double
        public var longitude: Double

        public init(distanceM: Double, latitude: Double, longitude: Double) {
            self.distanceM = distanceM
            self.latitude = latitude
            self.longitude = longitude
        }

        enum CodingKeys: String, CodingKey {
            case latitude, longitude
            case distanceM = "distance_m"
        }
    }

    /// Averages over `count` equal steps of the run's elapsed time, each `step_s` long: step `i`
    /// covers [i·step_s, (i+1)·step_s). A step without values is null.
    public struct Series: Codable, Sendable, Hashable {
        public var elapsedS: Double
        public var stepS: Double
        public var speedMS: [Double?]
        public var heartRateBpm: [Double?]
        public var altitudeM: [Double?]
        /// Steps a minute; all null for a ride.
        public var cadenceSpm: [Double?]
        /// A ride's crank revolutions a minute; absent for every other sport.
        public var cadenceRpm: [Double?]?

        public init(
            elapsedS: Double, stepS: Double, speedMS: [Double?], heartRateBpm: [Double?], altitudeM: [Double?],
            cadenceSpm: [Double?], cadenceRpm: [Double?]? = nil
        ) {
            self.elapsedS = elapsedS
            self.stepS = stepS
            self.speedMS = speedMS
            self.heartRateBpm = heartRateBpm
            self.altitudeM = altitudeM
            self.cadenceSpm = cadenceSpm
            self.cadenceRpm = cadenceRpm
        }

        enum CodingKeys: String, CodingKey {
            case elapsedS = "elapsed_s"
            case stepS = "step_s"
            case speedMS = "speed_m_s"
            case heartRateBpm = "heart_rate_bpm"
            case altitudeM = "altitude_m"
            case cadenceSpm = "cadence_spm"
            case cadenceRpm = "cadence_rpm"
        }
    }

    public struct Split: Codable, Sendable, Hashable {
        public var distanceM: Double
        /// Timer seconds, pauses left out.
        public var timerS: Double
        public var heartRateBpm: Double?
        public var climbM: Double?

        public init(distanceM: Double, timerS: Double, heartRateBpm: Double?, climbM: Double?) {
            self.distanceM = distanceM
            self.timerS = timerS
            self.heartRateBpm = heartRateBpm
            self.climbM = climbM
        }

        enum CodingKeys: String, CodingKey {
            case distanceM = "distance_m"
            case timerS = "timer_s"
            case heartRateBpm = "heart_rate_bpm"
            case climbM = "climb_m"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(distanceM, forKey: .distanceM)
            try c.encode(timerS, forKey: .timerS)
            try c.encode(heartRateBpm, forKey: .heartRateBpm)
            try c.encode(climbM, forKey: .climbM)
        }
    }

    public struct Lap: Codable, Sendable, Hashable {
        /// `manual`, `distance` or `session_end`.
        public var trigger: String
        public var startS: Double
        public var endS: Double
        public var distanceM: Double
        public var timerS: Double
        public var heartRateBpm: Double?

        public init(
            trigger: String, startS: Double, endS: Double, distanceM: Double, timerS: Double, heartRateBpm: Double?
        ) {
            self.trigger = trigger
            self.startS = startS
            self.endS = endS
            self.distanceM = distanceM
            self.timerS = timerS
            self.heartRateBpm = heartRateBpm
        }

        enum CodingKeys: String, CodingKey {
            case trigger
            case startS = "start_s"
            case endS = "end_s"
            case distanceM = "distance_m"
            case timerS = "timer_s"
            case heartRateBpm = "heart_rate_bpm"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(trigger, forKey: .trigger)
            try c.encode(startS, forKey: .startS)
            try c.encode(endS, forKey: .endS)
            try c.encode(distanceM, forKey: .distanceM)
            try c.encode(timerS, forKey: .timerS)
            try c.encode(heartRateBpm, forKey: .heartRateBpm)
        }
    }

    /// Seconds from the start; `end_s` is null for a pause that lasted to the end.
    public struct Pause: Codable, Sendable, Hashable {
        public var startS: Double
        public var endS: Double?

        public init(startS: Double, endS: Double?) {
            self.startS = startS
            self.endS = endS
        }

        enum CodingKeys: String, CodingKey {
            case startS = "start_s"
            case endS = "end_s"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(startS, forKey: .startS)
            try c.encode(endS, forKey: .endS)
        }
    }
}
