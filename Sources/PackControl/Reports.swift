/// What `status` returns: the recording state and each sensor's.
public struct StatusReport: Codable, Hashable, Sendable {
    public var state: String
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

    public init(state: String, gps: GPSReport, sensors: [SensorReport], recoveredRuns: [Int64], version: String) {
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
    public var kind: String
    public var name: String?
    /// `connected`, `disconnected`, or absent when the transport does not say.
    public var link: String?
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
        id: String, kind: String, name: String?, link: String?, lastSeenS: Double?, fresh: Bool, inGap: Bool,
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

/// A run in `runs` and `show`.
public struct RunReport: Codable, Hashable, Sendable {
    public var id: Int64
    public var uuid: String
    public var state: String
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
        id: Int64, uuid: String, state: String, source: String, startTime: String, recovered: Bool,
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
    public var state: String
    public var runId: Int64?
    public var message: String
    /// `stop`: the run was too short to keep and is gone (present only then).
    public var discarded: Bool?

    enum CodingKeys: String, CodingKey {
        case state, message, discarded
        case runId = "run_id"
    }

    public init(state: String, runId: Int64?, message: String) {
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

/// A device `scan` heard.
public struct ScannedDeviceReport: Codable, Hashable, Sendable {
    public var name: String?
    public var address: String
    /// `public` or `random`.
    public var addressType: String
    /// The sensor kind it looks like (`heart_rate`, `footpod`, `bike`), if any.
    public var kind: String?
    public var rssi: Int?
    /// Advertised service UUIDs (`180D`, or 128-bit).
    public var services: [String]
    public var connectable: Bool
    public var appearance: Int?
    public var txPower: Int?
    /// Already paired with this pack.
    public var paired: Bool
    /// Classic devices: the Class of Device, as hex and words.
    public var classOfDevice: String?
    /// Classic devices: the strap protocol its name suggests (`polar-wearlink`, `zephyr-hxm`).
    public var profile: String?

    enum CodingKeys: String, CodingKey {
        case name, address, kind, rssi, services, connectable, appearance, paired, profile
        case addressType = "address_type", txPower = "tx_power", classOfDevice = "class_of_device"
    }

    public init(
        name: String?, address: String, addressType: String, kind: String?, rssi: Int?, services: [String],
        connectable: Bool, appearance: Int?, txPower: Int?, paired: Bool, classOfDevice: String? = nil,
        profile: String? = nil
    ) {
        self.classOfDevice = classOfDevice
        self.profile = profile
        self.name = name
        self.address = address
        self.addressType = addressType
        self.kind = kind
        self.rssi = rssi
        self.services = services
        self.connectable = connectable
        self.appearance = appearance
        self.txPower = txPower
        self.paired = paired
    }
}

/// What `scan` returns.
public struct ScanReport: Codable, Hashable, Sendable {
    public var seconds: Double
    public var adapter: String?
    public var devices: [ScannedDeviceReport]
    /// The kernel was already scanning (to reconnect paired sensors), so this scan only listened.
    public var sharedKernelScan: Bool

    enum CodingKeys: String, CodingKey {
        case seconds, adapter, devices
        case sharedKernelScan = "shared_kernel_scan"
    }

    public init(seconds: Double, adapter: String?, devices: [ScannedDeviceReport], sharedKernelScan: Bool) {
        self.seconds = seconds
        self.adapter = adapter
        self.devices = devices
        self.sharedKernelScan = sharedKernelScan
    }
}

/// A paired sensor, as `pair`, `sensors` and `forget` return it.
public struct PairedSensorReport: Codable, Hashable, Sendable {
    public var id: String
    public var address: String
    public var addressType: String
    public var kind: String
    public var name: String?
    public var manufacturer: String?
    public var model: String?
    public var firmware: String?
    public var serialNumber: String?
    public var location: String?
    public var batteryPercent: Int?
    /// When it was paired (ISO 8601, UTC).
    public var paired: String
    /// When it last sent a value (ISO 8601, UTC), if ever.
    public var lastSeen: String?
    /// Seconds since it last sent a value, while `handoffd` runs.
    public var lastSeenS: Double?
    /// `connected`, `disconnected` or `connecting` (not heard from since `handoffd` started).
    public var link: String
    /// A classic strap's protocol (`polar-wearlink`, `zephyr-hxm`).
    public var profile: String?
    /// A classic strap's RFCOMM channel when set by hand (else SDP finds it on each connection).
    public var rfcommChannel: Int?

    enum CodingKeys: String, CodingKey {
        case id, address, kind, name, manufacturer, model, firmware, location, paired, link, profile
        case addressType = "address_type", serialNumber = "serial_number", batteryPercent = "battery_percent"
        case lastSeen = "last_seen", lastSeenS = "last_seen_s", rfcommChannel = "rfcomm_channel"
    }

    public init(
        id: String, address: String, addressType: String, kind: String, name: String?, manufacturer: String?,
        model: String?, firmware: String?, serialNumber: String?, location: String?, batteryPercent: Int?,
        paired: String, lastSeen: String?, lastSeenS: Double?, link: String, profile: String? = nil,
        rfcommChannel: Int? = nil
    ) {
        self.profile = profile
        self.rfcommChannel = rfcommChannel
        self.id = id
        self.address = address
        self.addressType = addressType
        self.kind = kind
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.firmware = firmware
        self.serialNumber = serialNumber
        self.location = location
        self.batteryPercent = batteryPercent
        self.paired = paired
        self.lastSeen = lastSeen
        self.lastSeenS = lastSeenS
        self.link = link
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

/// `handoff sensors --json` while handoffd replays a capture: the capture and its sensors.
public struct ReplayedSensorsReport: Codable, Hashable, Sendable {
    public var replay: ReplayReport
    public var sensors: [SensorReport]

    public init(replay: ReplayReport, sensors: [SensorReport]) {
        self.replay = replay
        self.sensors = sensors
    }
}
