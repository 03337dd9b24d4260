/// The format of a raw payload in a capture: which codec decodes it.
///
/// An open set, so that a newer capture with kinds this build does not know still loads (its
/// events are skipped and counted, not fatal).
public struct PayloadKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A GATT Heart Rate Measurement (0x2A37) notification, as bytes.
    public static let heartRateMeasurement = Self(rawValue: "hrm")
    /// A GATT RSC Measurement (0x2A53) notification, as bytes.
    public static let rscMeasurement = Self(rawValue: "rsc")
    /// A GATT CSC Measurement (0x2A5B) notification, as bytes.
    public static let cscMeasurement = Self(rawValue: "csc")
    /// A GATT Battery Level (0x2A19) value, read or notified, as bytes.
    public static let batteryLevel = Self(rawValue: "battery")
    /// One NMEA 0183 sentence, as text without its line ending.
    public static let nmea = Self(rawValue: "nmea")
    /// One line of gpsd's JSON (a TPV or SKY report), as text.
    public static let gpsd = Self(rawValue: "gpsd")
    /// A pedometer's running step count (a decimal integer, as text): a hardware step counter's
    /// register or the steps our detector found in accelerometer samples.
    public static let steps = Self(rawValue: "steps")
    /// One Zephyr HxM General Data frame (60 bytes, STX to ETX) from a classic strap's RFCOMM
    /// stream, as bytes.
    public static let zephyrHxM = Self(rawValue: "hxm")
    /// One Polar WearLink+ packet from a classic strap's RFCOMM stream, as bytes.
    public static let polarWearLink = Self(rawValue: "polar")

    public var description: String { rawValue }
}

/// A raw payload exactly as it came off the transport.
public enum Payload: Hashable, Sendable {
    case bytes([UInt8])
    case text(String)
}

/// A sensor's link to the pack.
public enum LinkState: String, Hashable, Sendable, Codable {
    case connected
    case disconnected
}

/// A command that changes the recording session: from the CLI, the button, or a capture.
public enum SessionCommand: String, Hashable, Sendable, Codable, CaseIterable {
    case start
    case pause
    case resume
    case lap
    case stop
}

/// One line of a capture after its header: something that happened to the pack at a moment.
public struct CaptureEvent: Hashable, Sendable {
    /// When the pack received it, on the monotonic clock.
    public var monotonic: MonotonicInstant
    /// The wall-clock time at that moment, when the pack knew it.
    public var wall: WallInstant?
    public var body: Body

    public enum Body: Hashable, Sendable {
        /// A reading from a sensor, in its transport's raw form.
        case payload(sensor: SensorID, kind: PayloadKind, Payload)
        /// A sensor connected or dropped out.
        case link(sensor: SensorID, state: LinkState, reason: String?)
        /// A session command; a start may name the sport (none is a run).
        case command(SessionCommand, sport: RunSport? = nil)
        /// Whether the system clock was synchronised (NTP or an RTC) from this moment: when it
        /// is not, wall times come from GPS time once there is a fix.
        case clock(synchronized: Bool)
    }

    public init(monotonic: MonotonicInstant, wall: WallInstant? = nil, body: Body) {
        self.monotonic = monotonic
        self.wall = wall
        self.body = body
    }
}

/// The first line of a capture: which format version, which sensors, who made it.
public struct CaptureHeader: Hashable, Sendable {
    /// The capture format version this build writes.
    public static let currentVersion = 1

    public var version: Int
    public var sensors: [SensorDescriptor]
    /// The program that wrote the capture, such as `handoffd 0.1.0` or `handoff simulate`.
    public var createdBy: String?
    /// When the capture was made by the run simulator: what the simulated run really was.
    public var simulation: SimulationTruth?

    public init(
        version: Int = CaptureHeader.currentVersion, sensors: [SensorDescriptor], createdBy: String? = nil,
        simulation: SimulationTruth? = nil
    ) {
        self.version = version
        self.sensors = sensors
        self.createdBy = createdBy
        self.simulation = simulation
    }
}

/// What the run simulator knows to be true about a capture it made, for checking the pack.
public struct SimulationTruth: Hashable, Sendable {
    /// The simulator's seed.
    public var seed: UInt64
    /// The length of the route run while recording (excluding paused time), in metres.
    public var routeDistanceMeters: Double
    /// The mean of the heart rates in the measurements sent while recording and not paused.
    public var averageHeartRate: Double
    /// How many heart-rate measurements that mean is over.
    public var heartRateSamples: Int
    /// How many RR intervals the strap sent while recording and not paused.
    public var rrIntervals: Int
    /// For a simulated ride: its bike's wheel and pedalling.
    public var ride: RideTruth?

    public init(
        seed: UInt64, routeDistanceMeters: Double, averageHeartRate: Double, heartRateSamples: Int,
        rrIntervals: Int
    ) {
        self.seed = seed
        self.routeDistanceMeters = routeDistanceMeters
        self.averageHeartRate = averageHeartRate
        self.heartRateSamples = heartRateSamples
        self.rrIntervals = rrIntervals
    }
}

/// What is true about a simulated ride's bike sensor.
public struct RideTruth: Hashable, Sendable {
    /// The wheel's circumference, in metres (what the pack should learn).
    public var wheelCircumferenceMeters: Double
    /// The mean crank cadence over the seconds pedalled while recording, in revolutions per minute.
    public var averageCrankRPM: Double

    public init(wheelCircumferenceMeters: Double, averageCrankRPM: Double) {
        self.wheelCircumferenceMeters = wheelCircumferenceMeters
        self.averageCrankRPM = averageCrankRPM
    }
}
