import HandoffModel

/// What `status` returns: the recording state and each sensor's. On the socket it is one flat
/// object (docs/control-api.md); here the open run, the live values and the pack's own facts are
/// parts of it.
public struct StatusReport: Codable, Hashable, Sendable {
    public var state: SessionState
    /// While a run is open: where it stands.
    public var run = StatusRunReport()
    /// The latest fused values.
    public var live = LiveValuesReport()
    public var gps: GPSReport
    public var sensors: [SensorReport]
    /// Present while `handoffd` replays a capture.
    public var replay: ReplayReport?
    public var pack: PackFactsReport

    enum CodingKeys: String, CodingKey {
        case state, gps, sensors, replay
    }

    public init(state: SessionState, gps: GPSReport, sensors: [SensorReport], recoveredRuns: [Int64], version: String) {
        self.state = state
        self.gps = gps
        self.sensors = sensors
        self.pack = PackFactsReport(recoveredRuns: recoveredRuns, version: version)
    }

    /// The parts' keys sit beside the status's own, in the one object.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        state = try c.decode(SessionState.self, forKey: .state)
        gps = try c.decode(GPSReport.self, forKey: .gps)
        sensors = try c.decode([SensorReport].self, forKey: .sensors)
        replay = try c.decodeIfPresent(ReplayReport.self, forKey: .replay)
        run = try StatusRunReport(from: decoder)
        live = try LiveValuesReport(from: decoder)
        pack = try PackFactsReport(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(state, forKey: .state)
        try c.encode(gps, forKey: .gps)
        try c.encode(sensors, forKey: .sensors)
        try c.encodeIfPresent(replay, forKey: .replay)
        try run.encode(to: encoder)
        try live.encode(to: encoder)
        try pack.encode(to: encoder)
    }
}

/// The open run in `status` (flat in its object; every key absent between runs).
public struct StatusRunReport: Codable, Hashable, Sendable {
    public var id: Int64?
    public var uuid: String?
    public var startTime: String?
    public var elapsedS: Double?
    public var timerS: Double?
    public var distanceM: Double?
    public var lap: Int?
    public var lapDistanceM: Double?
    public var points: Int?
    /// Steps counted in this run so far, when the pack has a step source.
    public var steps: Int?

    enum CodingKeys: String, CodingKey {
        case lap, points, steps
        case id = "run_id", uuid = "run_uuid", startTime = "start_time", elapsedS = "elapsed_s"
        case timerS = "timer_s", distanceM = "distance_m", lapDistanceM = "lap_distance_m"
    }

    public init() {}
}

/// The latest fused values in `status` (flat in its object).
public struct LiveValuesReport: Codable, Hashable, Sendable {
    /// Current pace from the current speed, seconds per kilometre.
    public var paceSPerKm: Double?
    public var speedMps: Double?
    public var hrBpm: Int?
    public var cadenceSpm: Int?

    enum CodingKeys: String, CodingKey {
        case paceSPerKm = "pace_s_per_km", speedMps = "speed_mps", hrBpm = "hr_bpm", cadenceSpm = "cadence_spm"
    }

    public init() {}
}

/// What `status` says of handoffd itself (flat in its object).
public struct PackFactsReport: Codable, Hashable, Sendable {
    public var version: String
    /// How handoffd is configured to write distances and paces (`[display] units`). The CLI
    /// prints in these unless `--units` says otherwise; every number in `status` stays in metres
    /// and seconds per kilometre.
    public var units: Units?
    /// Runs found open at start-up and finished by recovery.
    public var recoveredRuns: [Int64]
    /// How long measurement notifications took from arriving at the pack to being in a committed
    /// point (live only; over the last 1024).
    public var commitLatency: LatencyReport?
    /// How long after its second ended each point was committed (the part of `commit_latency`
    /// that is the pack's work, not waiting for the second to end).
    public var pointCommitDelay: LatencyReport?

    enum CodingKeys: String, CodingKey {
        case version, units
        case recoveredRuns = "recovered_runs", commitLatency = "commit_latency", pointCommitDelay = "point_commit_delay"
    }

    public init(recoveredRuns: [Int64], version: String) {
        self.recoveredRuns = recoveredRuns
        self.version = version
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
    public var batteryPercent: Int?
    /// How its payloads fared.
    public var payloads: SensorPayloadsReport
    /// The latest values it sent (set by `sensor`, for `handoff sensor test`).
    public var values: SensorValuesReport?

    enum CodingKeys: String, CodingKey {
        case id, kind, name, link, fresh, values
        case lastSeenS = "last_seen_s", inGap = "in_gap", batteryPercent = "battery_percent"
    }

    public init(
        id: String, kind: SensorKind, name: String?, link: SensorLink?, lastSeenS: Double?, fresh: Bool, inGap: Bool,
        payloads: SensorPayloadsReport
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.link = link
        self.lastSeenS = lastSeenS
        self.fresh = fresh
        self.inGap = inGap
        self.payloads = payloads
    }

    /// The payload counts' keys sit beside the sensor's own, in the one object.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        kind = try c.decode(SensorKind.self, forKey: .kind)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        link = try c.decodeIfPresent(SensorLink.self, forKey: .link)
        lastSeenS = try c.decodeIfPresent(Double.self, forKey: .lastSeenS)
        fresh = try c.decode(Bool.self, forKey: .fresh)
        inGap = try c.decode(Bool.self, forKey: .inGap)
        batteryPercent = try c.decodeIfPresent(Int.self, forKey: .batteryPercent)
        values = try c.decodeIfPresent(SensorValuesReport.self, forKey: .values)
        payloads = try SensorPayloadsReport(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeIfPresent(link, forKey: .link)
        try c.encodeIfPresent(lastSeenS, forKey: .lastSeenS)
        try c.encode(fresh, forKey: .fresh)
        try c.encode(inGap, forKey: .inGap)
        try c.encodeIfPresent(batteryPercent, forKey: .batteryPercent)
        try c.encodeIfPresent(values, forKey: .values)
        try payloads.encode(to: encoder)
    }
}

/// How many of a sensor's payloads were decoded, skipped (valid but not used, such as NMEA
/// sentences the recorder does not need) and rejected, and the latest rejection's error (flat in
/// the sensor's object).
public struct SensorPayloadsReport: Codable, Hashable, Sendable {
    public var decoded: Int
    public var skipped: Int
    public var rejected: Int
    public var lastError: String?

    enum CodingKeys: String, CodingKey {
        case decoded, skipped, rejected
        case lastError = "last_error"
    }

    public init(decoded: Int, skipped: Int, rejected: Int, lastError: String?) {
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
