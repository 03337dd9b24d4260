import HandoffModel
import Logging
import PackControl
import PackSensors
import Recorder

// The sections of handoff.toml that set where things are and how the run is recorded; each table's
// keys are read in the order given, and docs/configuration.md documents them.

/// `[storage]`: the journal.
public struct StorageSection: ConfigurationSection {
    static let name = "storage"
    public var databasePath = ControlPaths.defaultStateDirectory + "/handoff.sqlite"
    /// Days after which a synced run's raw data (RR intervals, the uploaded file) may be pruned.
    public var pruneRawAfterDays: Double?

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let v = try s.string("database") { databasePath = v }
        if let v = try s.number("prune_raw_after_days", in: 0...36_500) { pruneRawAfterDays = v == 0 ? nil : v }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {}
}

/// `[control]`: the socket the `handoff` CLI talks to.
public struct ControlSection: ConfigurationSection {
    static let name = "control"
    public var socketPath = ControlPaths.defaultSocket

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let v = try s.string("socket") { socketPath = v }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {}
}

/// `[recording]`: the recorder's laps, staleness and moving speed, and false starts.
public struct RecordingSection: ConfigurationSection {
    static let name = "recording"
    public var autoLapMeters = RecorderConfiguration().autoLapMeters
    public var staleAfterNanoseconds = RecorderConfiguration().staleAfterNanoseconds
    public var movingSpeed = RecorderConfiguration().movingSpeed
    /// `handoff stop` discards a run shorter than this with no distance (a false start), unless
    /// `--keep`; 0 keeps every run.
    public var discardShorterThanSeconds = 60.0
    /// Whether the system clock's date is trusted: as the kernel says (NTP), or always, for a
    /// pack whose clock a real-time clock sets through `hwclock` (which leaves the kernel's flag
    /// unset), or never.
    public var systemClock = SystemClockTrust.kernel
    /// What `handoff start` and the button's long press record when no sport is named.
    public var sport = RunSport.run
    /// A ride's wheel circumference in metres; `nil` (0 in the file) learns it from GPS.
    public var wheelCircumferenceMeters = BikeConfiguration().wheelCircumferenceMeters

    public enum SystemClockTrust: String, Sendable, CaseIterable {
        case kernel, synchronized, unsynchronized
    }

    /// The pack's clocks with the synchronisation this setting gives.
    public var clock: PackClock {
        switch systemClock {
        case .kernel: .system
        case .synchronized: PackClock.system.synchronized(true)
        case .unsynchronized: PackClock.system.synchronized(false)
        }
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let v = try s.number("auto_lap_m", in: 0...100_000) { autoLapMeters = v == 0 ? nil : v }
        if let v = try s.number("stale_after_s", in: 1...60) { staleAfterNanoseconds = Int64(v * 1e9) }
        if let v = try s.number("moving_speed_mps", in: 0...5) { movingSpeed = v }
        if let v = try s.number("discard_shorter_than_s", in: 0...3600) { discardShorterThanSeconds = v }
        if let v = try s.string("system_clock") {
            guard let trust = SystemClockTrust(rawValue: v) else {
                throw s.error("system_clock", "must be one of kernel, synchronized, unsynchronized")
            }
            systemClock = trust
        }
        if let v = try s.string("sport") {
            guard let sport = RunSport(rawValue: v) else { throw s.error("sport", "must be one of run, bike, walk") }
            self.sport = sport
        }
        if let v = try s.number("wheel_circumference_mm", in: 0...3000) {
            guard v == 0 || BikeConfiguration.plausibleCircumference.contains(v / 1000) else {
                throw s.error("wheel_circumference_mm", "must be 0 (learn it from GPS) or from 1000 to 3000")
            }
            wheelCircumferenceMeters = v == 0 ? nil : v / 1000
        }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {}
}

/// `[gps]`: where live GPS comes from, how long `handoff start` waits for it, and how its distance
/// is measured.
public struct GPSSection: ConfigurationSection {
    static let name = "gps"
    public var source: GPSSourceKind = .gpsd
    public var gpsdHost = "127.0.0.1"
    public var gpsdPort: UInt16 = 2947
    public var device = "/dev/serial0"
    public var baudRate = 9600
    /// How long `handoff start` waits for a fix before it starts without one.
    public var startWaitSeconds = 120.0
    /// The recorder's GPS distance settings.
    public var distance = RecorderConfiguration().gps

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let v = try s.number("stationary_speed_mps", in: 0...3) { distance.stationarySpeed = v }
        if let v = try s.number("jitter_radius_m", in: 0...100) { distance.minimumJitterRadius = v }
        if let v = try s.number("jitter_radius_per_hdop_m", in: 0...100) { distance.jitterRadiusPerHDOP = v }
        if let v = try s.number("max_fix_gap_s", in: 1...600) { distance.maximumFixGapNanoseconds = Int64(v * 1e9) }
        if let v = try s.number("max_speed_mps", in: 1...100) { distance.maximumSpeed = v }
        if let v = try s.number("start_wait_s", in: 0...3600) { startWaitSeconds = v }
        if let v = try s.string("source") {
            guard let kind = GPSSourceKind(rawValue: v) else {
                throw s.error("source", "must be one of gpsd, serial, none")
            }
            source = kind
        }
        if let v = try s.string("gpsd") {
            guard let (host, port) = PackConfiguration.hostPort(v) else {
                throw s.error("gpsd", "must be host:port, such as 127.0.0.1:2947")
            }
            (gpsdHost, gpsdPort) = (host, port)
        }
        if let v = try s.string("device") { device = v }
        if let v = try s.number("baud", in: 4800...460_800) {
            guard SerialNMEASource.supportedBaudRates[Int(v)] != nil else {
                let rates = SerialNMEASource.supportedBaudRates.keys.sorted().map(String.init)
                throw s.error("baud", "must be one of \(rates.joined(separator: ", "))")
            }
            baudRate = Int(v)
        }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {}
}

/// `[pedometer]`: the step sources, in the order tried, and where their devices are.
public struct PedometerSection: ConfigurationSection {
    static let name = "pedometer"
    public var sources: [StepSourceKind] = [.stepCounter, .accelerometer, .footpod]
    /// Where sysfs is (tests point this at a directory tree of their own).
    public var sysfsRoot = "/sys"
    /// Where the IIO character devices are (`/dev/iio:deviceN`).
    public var deviceRoot = "/dev"
    /// The accelerometer's sampling rate, when the driver lets it be set.
    public var accelerometerRateHz = 50.0

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let list = try s.strings("sources") {
            var kinds: [StepSourceKind] = []
            for name in list {
                guard let kind = StepSourceKind(rawValue: name) else {
                    throw s.error("sources", "lists \"\(name)\"; known: step-counter, accelerometer, footpod")
                }
                kinds.append(kind)
            }
            sources = kinds
        }
        if let v = try s.string("sysfs") { sysfsRoot = v }
        if let v = try s.string("dev") { deviceRoot = v }
        if let v = try s.number("accelerometer_rate_hz", in: 10...400) { accelerometerRateHz = v }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {}
}

/// `[replay]`: a capture replayed instead of (or beside) the live sensors.
public struct ReplaySection: ConfigurationSection {
    static let name = "replay"
    public var file: String?
    public var speed: ReplaySpeed = .factor(1)
    /// Replayed events are stamped as they are played and live sources run beside them (a
    /// simulated strap and footpod with a real GPS, say).
    public var live = false
    /// Replayed wall-clock times are moved so that the capture starts now (the demo: its run
    /// must start after the demo's group was made to count in it).
    public var startNow = false
    /// Only these sensors of the capture are replayed (all when `nil`).
    public var sensors: Set<String>?
    /// `--exit-after-replay` (a flag only, not in the file): stop once the replay is recorded.
    public var exitAfterReplay = false

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let v = try s.string("file"), !v.isEmpty { file = v }
        if let v = try s.speed("speed") { speed = v }
        if let v = try s.bool("live") { live = v }
        if let v = try s.bool("start_now") { startNow = v }
        if let v = try s.strings("sensors") { sensors = Set(v) }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {}
}

/// `[capture]`: every event taken, live or replayed, written to a capture.
public struct CaptureSection: ConfigurationSection {
    static let name = "capture"
    public var file: String?

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let v = try s.string("file"), !v.isEmpty { file = v }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {}
}

/// `[display]`: how distances and paces are written for people: the daemon's messages, and the
/// CLI's text when it is not given `--units`.
public struct DisplaySection: ConfigurationSection {
    static let name = "display"
    public var units: Units = .kilometers

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let v = try s.string("units") {
            guard let units = Units(rawValue: v) else {
                throw s.error("units", "is \"\(v)\"; it must be \"km\" or \"mi\"")
            }
            self.units = units
        }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {}
}

/// `[log]`: how much handoffd logs.
public struct LogSection: ConfigurationSection {
    static let name = "log"
    public var level: Logger.Level = .info

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let v = try s.string("level") {
            guard let level = Logger.Level(rawValue: v) else {
                throw s.error("level", "must be one of trace, debug, info, notice, warning, error, critical")
            }
            self.level = level
        }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {}
}
