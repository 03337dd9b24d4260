/// How good a GPS position is.
public enum GPSFixMode: Int, Hashable, Sendable, Comparable {
    /// No position (gpsd's mode 1).
    case none = 1
    /// Latitude and longitude only.
    case twoD = 2
    /// Latitude, longitude and altitude.
    case threeD = 3

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// One second of a run: the fused latest value of each sensor at that moment.
///
/// Points lie on a one-second grid counted from the session's start. A value older than the
/// recorder's staleness limit is absent (`nil`), never repeated.
public struct RecordPoint: Hashable, Sendable {
    /// Whole seconds since the session started, pauses included.
    public var elapsedSeconds: Int
    public var latitude: Double?
    public var longitude: Double?
    /// Altitude above mean sea level, in metres.
    public var altitudeMeters: Double?
    /// The fix the position came from: its mode and horizontal dilution of precision.
    public var fix: FixQuality
    /// The fused speed: a ride's wheel once its circumference is known; else the GPS's when it
    /// has a fix, else the footpod's.
    public var speedMetersPerSecond: Double?
    /// The distance run since the start, in metres.
    public var distanceMeters: Double
    public var heartRateBPM: Int?
    /// A runner's steps per minute or a rider's crank turns per minute.
    public var cadence: Cadence
    /// Steps counted since the start, when the pack has a step source.
    public var steps: Int?
    /// Whether the runner was moving during the second that ends here.
    public var isMoving: Bool
    /// The sensors the values came from.
    public var sources: PointSources

    public init(
        elapsedSeconds: Int, latitude: Double? = nil, longitude: Double? = nil, altitudeMeters: Double? = nil,
        gpsFix: GPSFixMode = .none, hdop: Double? = nil, speedMetersPerSecond: Double? = nil,
        distanceMeters: Double = 0, heartRateBPM: Int? = nil, cadenceSPM: Int? = nil, isMoving: Bool = false,
        heartRateSensor: SensorID? = nil, footpodSensor: SensorID? = nil, gpsSensor: SensorID? = nil
    ) {
        self.elapsedSeconds = elapsedSeconds
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeMeters = altitudeMeters
        fix = FixQuality(mode: gpsFix, hdop: hdop)
        self.speedMetersPerSecond = speedMetersPerSecond
        self.distanceMeters = distanceMeters
        self.heartRateBPM = heartRateBPM
        cadence = Cadence(stepsPerMinute: cadenceSPM)
        self.isMoving = isMoving
        sources = PointSources(heartRate: heartRateSensor, footpod: footpodSensor, gps: gpsSensor)
    }

    /// Steps per minute (both feet).
    public var cadenceSPM: Int? {
        get { cadence.stepsPerMinute }
        set { cadence.stepsPerMinute = newValue }
    }
    /// Crank revolutions per minute, from a bike's CSC sensor.
    public var cadenceRPM: Int? {
        get { cadence.crankRPM }
        set { cadence.crankRPM = newValue }
    }
    public var bikeSensor: SensorID? {
        get { sources.bike }
        set { sources.bike = newValue }
    }

    public var gpsFix: GPSFixMode {
        get { fix.mode }
        set { fix.mode = newValue }
    }
    public var hdop: Double? {
        get { fix.hdop }
        set { fix.hdop = newValue }
    }
    public var heartRateSensor: SensorID? {
        get { sources.heartRate }
        set { sources.heartRate = newValue }
    }
    public var footpodSensor: SensorID? {
        get { sources.footpod }
        set { sources.footpod = newValue }
    }
    public var gpsSensor: SensorID? {
        get { sources.gps }
        set { sources.gps = newValue }
    }
}

/// A position's fix: its mode and horizontal dilution of precision.
public struct FixQuality: Hashable, Sendable {
    public var mode: GPSFixMode
    public var hdop: Double?

    public init(mode: GPSFixMode = .none, hdop: Double? = nil) {
        self.mode = mode
        self.hdop = hdop
    }
}

/// A point's cadence: a runner's steps, a rider's crank, or neither.
public struct Cadence: Hashable, Sendable {
    /// Steps per minute (both feet), from a footpod.
    public var stepsPerMinute: Int?
    /// Crank revolutions per minute, from a bike's CSC sensor.
    public var crankRPM: Int?

    public init(stepsPerMinute: Int? = nil, crankRPM: Int? = nil) {
        self.stepsPerMinute = stepsPerMinute
        self.crankRPM = crankRPM
    }
}

/// The sensors a point's values came from.
public struct PointSources: Hashable, Sendable {
    public var heartRate: SensorID?
    public var footpod: SensorID?
    public var gps: SensorID?
    /// A bike's speed and cadence sensor.
    public var bike: SensorID?

    public init(heartRate: SensorID? = nil, footpod: SensorID? = nil, gps: SensorID? = nil, bike: SensorID? = nil) {
        self.heartRate = heartRate
        self.footpod = footpod
        self.gps = gps
        self.bike = bike
    }
}

/// RR intervals exactly as a strap sent them in one measurement.
public struct RRIntervalBatch: Hashable, Sendable {
    public var sensor: SensorID
    /// When the measurement arrived, in nanoseconds since the session started.
    public var offsetNanoseconds: Int64
    /// Beat-to-beat intervals in units of 1/1024 s, as on the wire (Heart Rate Service 3.1.1.4).
    public var intervals1024ths: [UInt16]

    public init(sensor: SensorID, offsetNanoseconds: Int64, intervals1024ths: [UInt16]) {
        self.sensor = sensor
        self.offsetNanoseconds = offsetNanoseconds
        self.intervals1024ths = intervals1024ths
    }
}
