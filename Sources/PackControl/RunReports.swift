import HandoffModel

/// A run in `runs` and `show`. On the socket it is one flat object (docs/control-api.md); here
/// what it is stays on the report, and its numbers are grouped: `totals`, `rates` and, `show`
/// only, `detail`.
public struct RunReport: Codable, Hashable, Sendable {
    public var id: Int64
    public var uuid: String
    public var state: SessionState
    public var source: String
    public var startTime: String
    public var recovered: Bool
    public var queuedForUpload: Bool
    /// Where the start time came from.
    public var clock: RunClock?
    /// run, bike or walk.
    public var sport: RunSport = .run
    /// Finished runs: how far, how long, how many points and steps.
    public var totals = RunTotalsReport()
    /// Finished runs: heart rate, cadence, pace and speed.
    public var rates = RunRatesReport()
    /// `show` only: splits, laps, events and where the store counted the run.
    public var detail = RunDetailReport()

    enum CodingKeys: String, CodingKey {
        case id, uuid, state, source, recovered, clock, sport
        case startTime = "start_time", queuedForUpload = "queued_for_upload"
    }

    public init(
        id: Int64, uuid: String, state: SessionState, source: String, startTime: String, recovered: Bool,
        queuedForUpload: Bool
    ) {
        self.id = id
        self.uuid = uuid
        self.state = state
        self.source = source
        self.startTime = startTime
        self.recovered = recovered
        self.queuedForUpload = queuedForUpload
    }

    /// The parts' keys sit beside the run's own, in the one object.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int64.self, forKey: .id)
        uuid = try c.decode(String.self, forKey: .uuid)
        state = try c.decode(SessionState.self, forKey: .state)
        source = try c.decode(String.self, forKey: .source)
        startTime = try c.decode(String.self, forKey: .startTime)
        recovered = try c.decode(Bool.self, forKey: .recovered)
        queuedForUpload = try c.decode(Bool.self, forKey: .queuedForUpload)
        clock = try c.decodeIfPresent(RunClock.self, forKey: .clock)
        sport = try c.decodeIfPresent(RunSport.self, forKey: .sport) ?? .run
        totals = try RunTotalsReport(from: decoder)
        rates = try RunRatesReport(from: decoder)
        detail = try RunDetailReport(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(uuid, forKey: .uuid)
        try c.encode(state, forKey: .state)
        try c.encode(source, forKey: .source)
        try c.encode(startTime, forKey: .startTime)
        try c.encode(recovered, forKey: .recovered)
        try c.encode(queuedForUpload, forKey: .queuedForUpload)
        try c.encodeIfPresent(clock, forKey: .clock)
        try c.encode(sport, forKey: .sport)
        try totals.encode(to: encoder)
        try rates.encode(to: encoder)
        try detail.encode(to: encoder)
    }
}

/// A finished run's totals (flat in the run's object).
public struct RunTotalsReport: Codable, Hashable, Sendable {
    public var distanceM: Double?
    public var elapsedS: Double?
    public var timerS: Double?
    public var movingS: Int?
    public var points: Int?
    public var steps: Int?

    enum CodingKeys: String, CodingKey {
        case points, steps
        case distanceM = "distance_m", elapsedS = "elapsed_s", timerS = "timer_s", movingS = "moving_s"
    }

    public init() {}
}

/// A finished run's heart rate, cadence, pace and speed (flat in the run's object).
public struct RunRatesReport: Codable, Hashable, Sendable {
    public var avgHrBpm: Double?
    public var maxHrBpm: Int?
    public var avgCadenceSpm: Double?
    /// A ride's crank.
    public var avgCadenceRpm: Double?
    public var avgPaceSPerKm: Double?
    public var avgMovingPaceSPerKm: Double?
    public var maxSpeedMps: Double?

    enum CodingKeys: String, CodingKey {
        case avgHrBpm = "avg_hr_bpm", maxHrBpm = "max_hr_bpm", avgCadenceSpm = "avg_cadence_spm"
        case avgCadenceRpm = "avg_cadence_rpm"
        case avgPaceSPerKm = "avg_pace_s_per_km", avgMovingPaceSPerKm = "avg_moving_pace_s_per_km"
        case maxSpeedMps = "max_speed_mps"
    }

    public init() {}
}

/// What `show` adds to a run (flat in the run's object).
public struct RunDetailReport: Codable, Hashable, Sendable {
    public var splits: [SplitReport]?
    /// `show` asked with `units: "mi"` only (the CLI's text in miles; never `--json`): splits
    /// per mile, computed from the run's points.
    public var mileSplits: [MileSplitReport]?
    public var laps: [LapReport]?
    public var events: [EventReport]?
    /// Where the store counted the run, as it said when it acknowledged the upload (absent
    /// before the upload, and for runs synced before the store said).
    public var countedIn: [String]?
    public var notCounted: [NotCountedReport]?

    enum CodingKeys: String, CodingKey {
        case splits, laps, events
        case mileSplits = "mile_splits", countedIn = "counted_in", notCounted = "not_counted"
    }

    public init() {}
}

public struct SplitReport: Codable, Hashable, Sendable {
    public var km: Int
    public var distanceM: Double
    public var timeS: Double
    public var paceSPerKm: Double?
    public var avgHrBpm: Double?

    enum CodingKeys: String, CodingKey {
        case km
        case distanceM = "distance_m", timeS = "time_s", paceSPerKm = "pace_s_per_km", avgHrBpm = "avg_hr_bpm"
    }

    public init(km: Int, distanceM: Double, timeS: Double, paceSPerKm: Double?, avgHrBpm: Double?) {
        self.km = km
        self.distanceM = distanceM
        self.timeS = timeS
        self.paceSPerKm = paceSPerKm
        self.avgHrBpm = avgHrBpm
    }
}

/// One mile of a run (the last may be partial), in metres and seconds like every report.
public struct MileSplitReport: Codable, Hashable, Sendable {
    /// 1-based mile number.
    public var mile: Int
    /// 1609.3 (a whole mile, rounded), or less for a final partial mile.
    public var distanceM: Double
    public var timeS: Double
    public var paceSPerKm: Double?
    public var avgHrBpm: Double?

    enum CodingKeys: String, CodingKey {
        case mile
        case distanceM = "distance_m", timeS = "time_s", paceSPerKm = "pace_s_per_km", avgHrBpm = "avg_hr_bpm"
    }

    public init(mile: Int, distanceM: Double, timeS: Double, paceSPerKm: Double?, avgHrBpm: Double?) {
        self.mile = mile
        self.distanceM = distanceM
        self.timeS = timeS
        self.paceSPerKm = paceSPerKm
        self.avgHrBpm = avgHrBpm
    }
}

public struct LapReport: Codable, Hashable, Sendable {
    public var lap: Int
    public var trigger: String
    public var startElapsedS: Int
    public var endElapsedS: Int
    public var distanceM: Double
    public var timerS: Double
    public var movingS: Int
    public var avgHrBpm: Double?
    public var maxHrBpm: Int?
    public var avgCadenceSpm: Double?
    public var avgPaceSPerKm: Double?

    enum CodingKeys: String, CodingKey {
        case lap, trigger
        case startElapsedS = "start_elapsed_s", endElapsedS = "end_elapsed_s", distanceM = "distance_m"
        case timerS = "timer_s", movingS = "moving_s", avgHrBpm = "avg_hr_bpm", maxHrBpm = "max_hr_bpm"
        case avgCadenceSpm = "avg_cadence_spm", avgPaceSPerKm = "avg_pace_s_per_km"
    }

    public init(
        lap: Int, trigger: String, startElapsedS: Int, endElapsedS: Int, distanceM: Double, timerS: Double,
        movingS: Int,
        avgHrBpm: Double?, maxHrBpm: Int?, avgCadenceSpm: Double?, avgPaceSPerKm: Double?
    ) {
        self.lap = lap
        self.trigger = trigger
        self.startElapsedS = startElapsedS
        self.endElapsedS = endElapsedS
        self.distanceM = distanceM
        self.timerS = timerS
        self.movingS = movingS
        self.avgHrBpm = avgHrBpm
        self.maxHrBpm = maxHrBpm
        self.avgCadenceSpm = avgCadenceSpm
        self.avgPaceSPerKm = avgPaceSPerKm
    }
}

public struct EventReport: Codable, Hashable, Sendable {
    public var offsetS: Double
    public var kind: String
    public var sensor: String?
    public var detail: String?

    enum CodingKeys: String, CodingKey {
        case kind, sensor, detail
        case offsetS = "offset_s"
    }

    public init(offsetS: Double, kind: String, sensor: String?, detail: String?) {
        self.offsetS = offsetS
        self.kind = kind
        self.sensor = sensor
        self.detail = detail
    }
}

/// What a session command (`start`, `pause`, …) returns.
public struct CommandReport: Codable, Hashable, Sendable {
    public var state: SessionState
    public var runId: Int64?
    public var message: String
    /// `stop`: the run was too short to keep and is gone (present only then).
    public var discarded: Bool?

    enum CodingKeys: String, CodingKey {
        case state, message, discarded
        case runId = "run_id"
    }

    public init(state: SessionState, runId: Int64?, message: String) {
        self.state = state
        self.runId = runId
        self.message = message
    }
}

/// What `delete` returns: the run that is gone, and whether the store was told.
public struct DeleteReport: Codable, Hashable, Sendable {
    public var run: Int64
    public var uuid: String
    /// The run was on the store and the store deleted it (its distance left every total).
    public var deletedOnStore: Bool
    public var message: String

    public init(run: Int64, uuid: String, deletedOnStore: Bool, message: String) {
        self.run = run
        self.uuid = uuid
        self.deletedOnStore = deletedOnStore
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case run, uuid, message
        case deletedOnStore = "deleted_on_store"
    }
}

/// `export`: what handoffd wrote into the file handed to it.
public struct ExportReport: Codable, Hashable, Sendable {
    public var run: Int64
    public var uuid: String
    public var format: String
    public var bytes: Int
    public var points: Int

    public init(run: Int64, uuid: String, format: String, bytes: Int, points: Int) {
        self.run = run
        self.uuid = uuid
        self.format = format
        self.bytes = bytes
        self.points = points
    }
}
