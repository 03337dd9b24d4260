import HandoffModel

/// One receiver epoch's solution: what the pack knows about where and when it is.
///
/// The NMEA decoder and the gpsd client both produce these; field names follow gpsd's TPV
/// report where the meaning is the same.
public struct GNSSFix: Hashable, Sendable {
    public var mode: GPSFixMode
    /// UTC time of day as the receiver stated it.
    public var time: NMEATime?
    /// The date as the receiver stated it (a receiver's GPS week-rollover error included).
    public var date: NMEADate?
    public var latitude: Double?
    public var longitude: Double?
    /// Altitude above mean sea level, metres (gpsd's `altMSL`).
    public var altitudeMeters: Double?
    /// Speed over ground, metres per second.
    public var speedMetersPerSecond: Double?
    /// Course over ground, degrees from true north.
    public var trackDegrees: Double?
    /// Horizontal, position and vertical dilution of precision.
    public var dilution = DilutionOfPrecision()
    public var satellitesUsed: Int?
    public var satellitesSeen: Int?
    /// gpsd's error estimates (95 % confidence), when the source reports them.
    public var errors: GNSSErrorEstimates?

    public init(
        mode: GPSFixMode, time: NMEATime? = nil, date: NMEADate? = nil, latitude: Double? = nil,
        longitude: Double? = nil, altitudeMeters: Double? = nil, speedMetersPerSecond: Double? = nil,
        trackDegrees: Double? = nil, hdop: Double? = nil, pdop: Double? = nil, vdop: Double? = nil,
        satellitesUsed: Int? = nil, satellitesSeen: Int? = nil, errors: GNSSErrorEstimates? = nil
    ) {
        self.mode = mode
        self.time = time
        self.date = date
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeMeters = altitudeMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.trackDegrees = trackDegrees
        self.dilution = DilutionOfPrecision(horizontal: hdop, position: pdop, vertical: vdop)
        self.satellitesUsed = satellitesUsed
        self.satellitesSeen = satellitesSeen
        self.errors = errors
    }

    public var hdop: Double? {
        get { dilution.horizontal }
        set { dilution.horizontal = newValue }
    }
    public var pdop: Double? {
        get { dilution.position }
        set { dilution.position = newValue }
    }
    public var vdop: Double? {
        get { dilution.vertical }
        set { dilution.vertical = newValue }
    }

    /// A usable horizontal position.
    public var hasPosition: Bool { mode >= .twoD && latitude != nil && longitude != nil }

    /// The UTC instant, when both the date and the time of day are known.
    public var utc: WallInstant? {
        guard let time, let date else { return nil }
        let whole = Int(time.second.rounded(.down))
        let nanos = Int(((time.second - Double(whole)) * 1e9).rounded())
        // nil for a date outside 1980–2100 or one the calendar lacks: no reading can make an
        // instant that overflows.
        return CivilTime(
            year: date.year, month: date.month, day: date.day, hour: time.hour, minute: time.minute, second: whole,
            nanosecond: min(nanos, 999_999_999)
        ).checkedInstant
    }

    /// `2020-07-11T22:37:45.000Z`, or `nil` without a date.
    public var iso8601Time: String? {
        utc.map { CivilTime($0).iso8601(milliseconds: true) }
    }
}

/// gpsd's estimated errors, metres (or seconds, metres per second, degrees), 95 % confidence.
public struct GNSSErrorEstimates: Hashable, Sendable {
    /// Time, seconds.
    public var ept: Double?
    /// Horizontal position, metres.
    public var eph: Double?
    /// Vertical position, metres.
    public var epv: Double?
    /// Longitude and latitude, metres.
    public var epx: Double?
    public var epy: Double?
    /// Speed, metres per second.
    public var eps: Double?
    /// Track, degrees.
    public var epd: Double?
    /// Climb, metres per second.
    public var epc: Double?

    public init(
        ept: Double? = nil, eph: Double? = nil, epv: Double? = nil, epx: Double? = nil, epy: Double? = nil,
        eps: Double? = nil, epd: Double? = nil, epc: Double? = nil
    ) {
        self.ept = ept
        self.eph = eph
        self.epv = epv
        self.epx = epx
        self.epy = epy
        self.eps = eps
        self.epd = epd
        self.epc = epc
    }
}

/// How the satellites' geometry scales the receiver's errors (lower is better).
public struct DilutionOfPrecision: Hashable, Sendable {
    public var horizontal: Double?
    public var position: Double?
    public var vertical: Double?

    public init(horizontal: Double? = nil, position: Double? = nil, vertical: Double? = nil) {
        self.horizontal = horizontal
        self.position = position
        self.vertical = vertical
    }
}
