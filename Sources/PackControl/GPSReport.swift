import HandoffModel

/// `status`'s `gps`, even when idle. On the socket it is one flat object (docs/control-api.md);
/// here the position, how good it is and the receiver are parts of it.
public struct GPSReport: Codable, Hashable, Sendable {
    public var fix: GPSFix
    /// Where the fix puts the pack, how it moves, and when.
    public var position = GPSPositionReport()
    /// Dilutions of precision, satellites, and gpsd's error estimates.
    public var quality = GPSQualityReport()
    /// The GPS sensor, how it is reached, and seconds since its last fix.
    public var receiver = GPSReceiverReport()
    /// Where the run's times come from (between runs: would come from).
    public var clock: RunClock?
    /// How long `handoff start` waits for a fix before it starts without one (`gps.start_wait_s`).
    public var startWaitS: Double?

    enum CodingKeys: String, CodingKey {
        case fix, clock
        case startWaitS = "start_wait_s"
    }

    public init(fix: GPSFix) {
        self.fix = fix
    }

    /// The parts' keys sit beside the report's own, in the one object.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        fix = try c.decode(GPSFix.self, forKey: .fix)
        clock = try c.decodeIfPresent(RunClock.self, forKey: .clock)
        startWaitS = try c.decodeIfPresent(Double.self, forKey: .startWaitS)
        position = try GPSPositionReport(from: decoder)
        quality = try GPSQualityReport(from: decoder)
        receiver = try GPSReceiverReport(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(fix, forKey: .fix)
        try c.encodeIfPresent(clock, forKey: .clock)
        try c.encodeIfPresent(startWaitS, forKey: .startWaitS)
        try position.encode(to: encoder)
        try quality.encode(to: encoder)
        try receiver.encode(to: encoder)
    }
}

/// Where a fix puts the pack, how it moves, and when (flat in `gps`).
public struct GPSPositionReport: Codable, Hashable, Sendable {
    /// The receiver's UTC time of the fix, as it states the date.
    public var time: String?
    public var lat: Double?
    public var lon: Double?
    public var altM: Double?
    public var speedMps: Double?
    public var trackDeg: Double?

    enum CodingKeys: String, CodingKey {
        case time, lat, lon
        case altM = "alt_m", speedMps = "speed_mps", trackDeg = "track_deg"
    }

    public init() {}
}

/// How good a fix is (flat in `gps`).
public struct GPSQualityReport: Codable, Hashable, Sendable {
    public var hdop: Double?
    public var pdop: Double?
    public var vdop: Double?
    /// Satellites used in the fix.
    public var satellites: Int?
    public var satellitesSeen: Int?
    /// gpsd's 95 % error estimates: horizontal and vertical position (m), speed (m/s).
    public var ephM: Double?
    public var epvM: Double?
    public var epsMps: Double?

    enum CodingKeys: String, CodingKey {
        case hdop, pdop, vdop, satellites
        case satellitesSeen = "satellites_seen", ephM = "eph_m", epvM = "epv_m", epsMps = "eps_mps"
    }

    public init() {}
}

/// The GPS sensor, how it is reached (`gpsd 127.0.0.1:2947`, a serial device…), and seconds
/// since its last fix (flat in `gps`).
public struct GPSReceiverReport: Codable, Hashable, Sendable {
    public var sensor: String?
    public var source: String?
    public var lastFixS: Double?

    enum CodingKeys: String, CodingKey {
        case sensor, source
        case lastFixS = "last_fix_s"
    }

    public init() {}
}
