/// A decoded NMEA sentence of a type the pack reads.
public enum NMEAReport: Hashable, Sendable {
    case rmc(RMC)
    case gga(GGA)
    case gsa(GSA)
    case gsv(GSV)
    case vtg(VTG)
    case gll(GLL)
    case zda(ZDA)
    case gns(GNS)

    /// Decodes a framed sentence. Proprietary sentences and other types throw
    /// `.proprietary` / `.unsupported`, which callers skip and count.
    public init(_ sentence: NMEASentence) throws(NMEAError) {
        if sentence.isProprietary { throw .proprietary(sentence.type) }
        switch sentence.type {
        case "RMC": self = .rmc(try RMC(sentence))
        case "GGA": self = .gga(try GGA(sentence))
        case "GSA": self = .gsa(try GSA(sentence))
        case "GSV": self = .gsv(try GSV(sentence))
        case "VTG": self = .vtg(try VTG(sentence))
        case "GLL": self = .gll(try GLL(sentence))
        case "ZDA": self = .zda(try ZDA(sentence))
        case "GNS": self = .gns(try GNS(sentence))
        default: throw .unsupported(sentence.talker + sentence.type)
        }
    }

    /// Frames and decodes one line.
    public init(line: String) throws(NMEAError) {
        try self.init(NMEASentence(parsing: line))
    }

    /// The UTC time of day the sentence states, for the sentences that carry one.
    public var time: NMEATime? {
        switch self {
        case .rmc(let s): s.time
        case .gga(let s): s.time
        case .gll(let s): s.time
        case .zda(let s): s.time
        case .gns(let s): s.time
        case .gsa, .gsv, .vtg: nil
        }
    }
}

/// UTC time of day as a sentence states it.
public struct NMEATime: Hashable, Sendable {
    public var hour: Int
    public var minute: Int
    /// Seconds with the fraction the receiver sent.
    public var second: Double

    public init(hour: Int, minute: Int, second: Double) {
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    public var secondsOfDay: Double { Double(hour * 3600 + minute * 60) + second }
}

/// A calendar date as a sentence states it (a receiver's week-rollover error included).
public struct NMEADate: Hashable, Sendable {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }
}

/// RMC: recommended minimum specific GNSS data.
public struct RMC: Hashable, Sendable {
    public var time: NMEATime?
    /// `A` (valid) or `V` (warning: no usable fix).
    public var status: Character
    public var latitude: Double?
    public var longitude: Double?
    public var speedKnots: Double?
    /// Course over ground, degrees true.
    public var trackDegrees: Double?
    public var date: NMEADate?
    /// The FAA mode indicator (NMEA 2.3+): `A` autonomous, `D` differential, `E` estimated,
    /// `N` not valid, …
    public var mode: Character?

    /// A usable fix: status `A` and a mode (when sent) that is neither `N` nor `E` (dead reckoning).
    public var hasFix: Bool {
        status == "A" && latitude != nil && longitude != nil && mode != "N" && mode != "E"
    }

    public var speedMetersPerSecond: Double? { speedKnots.map { $0 * 1852.0 / 3600.0 } }

    init(_ s: NMEASentence) throws(NMEAError) {
        let name = s.talker + "RMC"
        guard s.fieldCount >= 9 else { throw .missingFields(sentence: name, needed: 9, have: s.fieldCount) }
        let f = NMEAFields(sentence: name, s)
        time = try f.time(0)
        status = try f.character(1, "status", allowed: "AV") ?? "V"
        // Without a fix the position fields are placeholders (an MT3301 sends 89°60'N): ignore them.
        (latitude, longitude) = status == "A" ? try f.position(2) : (nil, nil)
        speedKnots = try f.number(6, "speed")
        trackDegrees = try f.number(7, "track")
        date = try f.date(8)
        mode = s.fieldCount > 11 ? try f.character(11, "mode", allowed: "ADEFMNPRS") : nil
    }
}

/// GGA: global positioning system fix data.
public struct GGA: Hashable, Sendable {
    public var time: NMEATime?
    public var latitude: Double?
    public var longitude: Double?
    /// 0 no fix, 1 GPS, 2 DGPS, 4 RTK fixed, 5 RTK float, 6 estimated, 7 manual, 8 simulated.
    public var quality: Int
    public var satellitesUsed: Int?
    public var hdop: Double?
    /// Antenna altitude above mean sea level, metres.
    public var altitudeMeters: Double?
    /// Geoid height above the WGS-84 ellipsoid, metres.
    public var geoidSeparationMeters: Double?

    /// A usable fix: a quality that is a measurement (not 0, 6 estimated, 7 manual or 8 simulated).
    public var hasFix: Bool {
        [1, 2, 3, 4, 5].contains(quality) && latitude != nil && longitude != nil
    }

    init(_ s: NMEASentence) throws(NMEAError) {
        let name = s.talker + "GGA"
        guard s.fieldCount >= 11 else { throw .missingFields(sentence: name, needed: 11, have: s.fieldCount) }
        let f = NMEAFields(sentence: name, s)
        time = try f.time(0)
        quality = try f.integer(5, "fix quality") ?? 0
        (latitude, longitude) = quality != 0 ? try f.position(1) : (nil, nil)
        satellitesUsed = try f.integer(6, "satellites used")
        hdop = try f.number(7, "HDOP")
        altitudeMeters = try f.number(8, "altitude")
        geoidSeparationMeters = try f.number(10, "geoid separation")
    }
}
