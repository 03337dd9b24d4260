import HandoffModel

/// What `status` returns: the recording state and each sensor's.
public struct StatusReport: Codable, Hashable, Sendable {
    public var state: SessionState
    public var runId: Int64?
    public var runUuid: String?
    public var startTime: String?
    public var elapsedS: Double?
    public var timerS: Double?
    public var distanceM: Double?
    /// Current pace from the current speed, seconds per kilometre.
    public var paceSPerKm: Double?
    public var speedMps: Double?
    public var hrBpm: Int?
    public var cadenceSpm: Int?
    public var lap: Int?
    public var lapDistanceM: Double?
    public var points: Int?
    /// Steps counted in this run so far, when the pack has a step source.
    public var steps: Int?
    public var gps: GPSReport
    public var sensors: [SensorReport]
    /// Present while `handoffd` replays a capture.
    public var replay: ReplayReport?
    /// Runs found open at start-up and finished by recovery.
    public var recoveredRuns: [Int64]
    /// How long measurement notifications took from arriving at the pack to being in a committed
    /// point (live only; over the last 1024).
    public var commitLatency: LatencyReport?
    /// How long after its second ended each point was committed (the part of `commit_latency`
    /// that is the pack's work, not waiting for the second to end).
    public var pointCommitDelay: LatencyReport?
    public var version: String
    /// How handoffd is configured to write distances and paces (`[display] units`): `km` or
    /// `mi`. The CLI prints in these unless `--units` says otherwise; every number here stays
    /// in metres and seconds per kilometre.
    public var units: String?

    enum CodingKeys: String, CodingKey {
        case state, lap, points, steps, gps, sensors, replay, version, units
        case runId = "run_id", runUuid = "run_uuid", startTime = "start_time", elapsedS = "elapsed_s"
        case timerS = "timer_s", distanceM = "distance_m", paceSPerKm = "pace_s_per_km", speedMps = "speed_mps"
        case hrBpm = "hr_bpm", cadenceSpm = "cadence_spm", lapDistanceM = "lap_distance_m"
        case recoveredRuns = "recovered_runs", commitLatency = "commit_latency", pointCommitDelay = "point_commit_delay"
    }

    public init(state: SessionState, gps: GPSReport, sensors: [SensorReport], recoveredRuns: [Int64], version: String) {
        self.state = state
        self.gps = gps
        self.sensors = sensors
        self.recoveredRuns = recoveredRuns
        self.version = version
    }
}

public struct GPSReport: Codable, Hashable, Sendable {
    /// `none`, `2d` or `3d`.
    public var fix: String
    public var lat: Double?
    public var lon: Double?
    public var altM: Double?
    public var hdop: Double?
    /// Satellites used in the fix.
    public var satellites: Int?
    /// The receiver's UTC time of the fix, as it states the date.
    public var time: String?
    public var speedMps: Double?
    public var trackDeg: Double?
    public var pdop: Double?
    public var vdop: Double?
    public var satellitesSeen: Int?
    /// gpsd's 95 % error estimates: horizontal and vertical position (m), speed (m/s).
    public var ephM: Double?
    public var epvM: Double?
    public var epsMps: Double?
    /// The GPS sensor, how it is reached, and seconds since its last fix.
    public var sensor: String?
    public var source: String?
    public var lastFixS: Double?
    /// Where the run's times come from (between runs: would come from): `system`, `gps`, or
    /// `unsynchronized`.
    public var clock: String?
    /// How long `handoff start` waits for a fix before it starts without one (`gps.start_wait_s`).
    public var startWaitS: Double?

    enum CodingKeys: String, CodingKey {
        case fix, lat, lon, hdop, satellites, time, pdop, vdop, sensor, source, clock
        case startWaitS = "start_wait_s"
        case altM = "alt_m", speedMps = "speed_mps", trackDeg = "track_deg", satellitesSeen = "satellites_seen"
        case ephM = "eph_m", epvM = "epv_m", epsMps = "eps_mps", lastFixS = "last_fix_s"
    }

    public init(
        fix: String, lat: Double? = nil, lon: Double? = nil, altM: Double? = nil, hdop: Double? = nil,
        satellites: Int? = nil
    ) {
        self.fix = fix
        self.lat = lat
        self.lon = lon
        self.altM = altM
        self.hdop = hdop
        self.satellites = satellites
    }
}

public struct SensorReport: Codable, Hashable, Sendable {
    public var id: String
    public var kind: SensorKind
    public var name: String?
    /// `connected`, `disconnected`, `ended` (a replayed capture), or absent when the transport
    /// does not say.
    public var link: SensorLink?
    /// Seconds since its last reading.
    public var lastSeenS: Double?
    /// Its values are fresh enough to record.
    public var fresh: Bool
    public var inGap: Bool
    public var decoded: Int
    public var skipped: Int
    public var rejected: Int
    public var lastError: String?
    /// The latest values it sent (set by `sensor`, for `handoff sensor test`).
    public var values: SensorValuesReport?
    public var batteryPercent: Int?

    enum CodingKeys: String, CodingKey {
        case id, kind, name, link, fresh, decoded, skipped, rejected, values
        case lastSeenS = "last_seen_s", inGap = "in_gap", lastError = "last_error", batteryPercent = "battery_percent"
    }

    public init(
        id: String, kind: SensorKind, name: String?, link: SensorLink?, lastSeenS: Double?, fresh: Bool, inGap: Bool,
        decoded: Int, skipped: Int, rejected: Int, lastError: String?
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.link = link
        self.lastSeenS = lastSeenS
        self.fresh = fresh
        self.inGap = inGap
        self.decoded = decoded
        self.skipped = skipped
        self.rejected = rejected
        self.lastError = lastError
    }
}

/// A sensor's latest values, in the model's units.
public struct SensorValuesReport: Codable, Hashable, Sendable {
    public var hrBpm: Int?
    /// RR intervals of the latest measurement, in milliseconds.
    public var rrMs: [Double]?
    /// `detected`, `not_detected`, or absent when the strap cannot tell.
    public var contact: String?
    public var energyKj: Int?
    public var speedMps: Double?
    public var cadenceSpm: Int?
    public var strideM: Double?
    public var totalDistanceM: Double?
    public var running: Bool?
    public var wheelRps: Double?
    public var crankRpm: Double?
    public var steps: Int?

    enum CodingKeys: String, CodingKey {
        case contact, running, steps
        case hrBpm = "hr_bpm", rrMs = "rr_ms", energyKj = "energy_kj", speedMps = "speed_mps"
        case cadenceSpm = "cadence_spm", strideM = "stride_m", totalDistanceM = "total_distance_m"
        case wheelRps = "wheel_rps", crankRpm = "crank_rpm"
    }

    public init() {}
}

public struct ReplayReport: Codable, Hashable, Sendable {
    public var file: String
    public var speed: String
    public var events: Int
    /// 0…1, by the capture's monotonic time.
    public var progress: Double
    public var finished: Bool
    /// The simulator's truth, when the capture carries it.
    public var simulatedDistanceM: Double?
    public var simulatedAvgHrBpm: Double?

    enum CodingKeys: String, CodingKey {
        case file, speed, events, progress, finished
        case simulatedDistanceM = "simulated_distance_m", simulatedAvgHrBpm = "simulated_avg_hr_bpm"
    }

    public init(
        file: String, speed: String, events: Int, progress: Double, finished: Bool, simulatedDistanceM: Double?,
        simulatedAvgHrBpm: Double?
    ) {
        self.file = file
        self.speed = speed
        self.events = events
        self.progress = progress
        self.finished = finished
        self.simulatedDistanceM = simulatedDistanceM
        self.simulatedAvgHrBpm = simulatedAvgHrBpm
    }
}

/// Latency percentiles, in milliseconds.
public struct LatencyReport: Codable, Hashable, Sendable {
    public var samples: Int
    public var p50Ms: Double
    public var p95Ms: Double
    public var maxMs: Double

    enum CodingKeys: String, CodingKey {
        case samples
        case p50Ms = "p50_ms", p95Ms = "p95_ms", maxMs = "max_ms"
    }

    public init(samples: Int, p50Ms: Double, p95Ms: Double, maxMs: Double) {
        self.samples = samples
        self.p50Ms = p50Ms
        self.p95Ms = p95Ms
        self.maxMs = maxMs
    }
}

/// `handoff sensors --json` while handoffd replays a capture: the capture and its sensors.
public struct ReplayedSensorsReport: Codable, Hashable, Sendable {
    public var replay: ReplayReport
    public var sensors: [SensorReport]

    public init(replay: ReplayReport, sensors: [SensorReport]) {
        self.replay = replay
        self.sensors = sensors
    }
}
