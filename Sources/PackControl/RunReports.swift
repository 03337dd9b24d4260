import HandoffModel

/// A run in `runs` and `show`.
public struct RunReport: Codable, Hashable, Sendable {
    public var id: Int64
    public var uuid: String
    public var state: SessionState
    public var source: String
    public var startTime: String
    public var recovered: Bool
    public var queuedForUpload: Bool
    public var distanceM: Double?
    public var elapsedS: Double?
    public var timerS: Double?
    public var movingS: Int?
    public var avgHrBpm: Double?
    public var maxHrBpm: Int?
    public var avgCadenceSpm: Double?
    public var avgPaceSPerKm: Double?
    public var avgMovingPaceSPerKm: Double?
    public var maxSpeedMps: Double?
    public var points: Int?
    public var steps: Int?
    /// Where the start time came from: `system` (a synchronised clock), `gps` (GPS time, the
    /// clock was not synchronised) or `unsynchronized` (may be wrong).
    public var clock: String?
    /// `show` only.
    public var splits: [SplitReport]?
    /// `show` asked with `units: "mi"` only (the CLI's text in miles; never `--json`): splits
    /// per mile, computed from the run's points.
    public var mileSplits: [MileSplitReport]?
    public var laps: [LapReport]?
    public var events: [EventReport]?
    /// Where the store counted the run, as it said when it acknowledged the upload (`show` only;
    /// absent before the upload, and for runs synced before the store said).
    public var countedIn: [String]?
    public var notCounted: [NotCountedReport]?

    enum CodingKeys: String, CodingKey {
        case id, uuid, state, source, recovered, points, steps, clock, splits, laps, events
        case countedIn = "counted_in", notCounted = "not_counted"
        case mileSplits = "mile_splits"
        case startTime = "start_time", queuedForUpload = "queued_for_upload", distanceM = "distance_m"
        case elapsedS = "elapsed_s", timerS = "timer_s", movingS = "moving_s", avgHrBpm = "avg_hr_bpm"
        case maxHrBpm = "max_hr_bpm", avgCadenceSpm = "avg_cadence_spm", avgPaceSPerKm = "avg_pace_s_per_km"
        case avgMovingPaceSPerKm = "avg_moving_pace_s_per_km", maxSpeedMps = "max_speed_mps"
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
