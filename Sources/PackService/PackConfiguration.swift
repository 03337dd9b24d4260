import Foundation
import Logging
import PackControl
import PackSensors
import PackSync
import PackSystem
import Recorder
import TOMLKit

/// How fast a capture is replayed.
public enum ReplaySpeed: Hashable, Sendable, CustomStringConvertible {
    /// This many times real time.
    case factor(Double)
    /// As fast as the pack can record.
    case maximum

    public init?(_ text: String) {
        if text == "max" || text == "maximum" {
            self = .maximum
        } else if let value = Double(text), value > 0, value.isFinite {
            self = .factor(value)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .maximum: "max"
        case .factor(let f): f == f.rounded() ? "\(Int(f))x" : "\(f)x"
        }
    }
}

/// Where live GPS comes from.
public enum GPSSourceKind: String, Hashable, Sendable, CaseIterable {
    /// gpsd's JSON protocol over TCP (the default: gpsd handles the receiver).
    case gpsd
    /// A receiver's NMEA on a serial port, read directly.
    case serial
    /// No GPS.
    case none
}

/// The pedometer's sources, in the order they are tried.
public enum StepSourceKind: String, Hashable, Sendable, CaseIterable {
    /// An IMU's hardware step counter through Linux IIO (`in_steps_input`).
    case stepCounter = "step-counter"
    /// An IIO accelerometer, with the pack's own step detection.
    case accelerometer
    /// Steps integrated from the footpod's cadence, while no other source is fresh.
    case footpod
}

/// `handoffd`'s configuration: built-in defaults, then `handoff.toml`, then command-line flags.
/// `docs/configuration.md` documents every key and its default.
public struct PackConfiguration: Sendable {
    public var databasePath: String
    public var socketPath: String
    public var recorder = RecorderConfiguration()
    /// `handoff stop` discards a run shorter than this with no distance (a false start), unless
    /// `--keep`; 0 keeps every run.
    public var discardShorterThanSeconds = 60.0
    public var replayFile: String?
    public var replaySpeed: ReplaySpeed = .factor(1)
    public var exitAfterReplay = false
    public var captureFile: String?
    public var logLevel: Logger.Level = .info
    /// Replayed events are stamped as they are played and live sources run beside them (a
    /// simulated strap and footpod with a real GPS, say).
    public var replayLive = false
    /// Replayed wall-clock times are moved so that the capture starts now (the demo: its run
    /// must start after the demo's group was made to count in it).
    public var replayStartNow = false
    /// Only these sensors of the capture are replayed (all when `nil`).
    public var replaySensors: Set<String>?

    public var gpsSource: GPSSourceKind = .gpsd
    public var gpsdHost = "127.0.0.1"
    public var gpsdPort: UInt16 = 2947
    public var gpsDevice = "/dev/serial0"
    /// How long `handoff start` waits for a fix before it starts without one.
    public var gpsStartWaitSeconds = 120.0
    public var gpsBaudRate = 9600

    public var stepSources: [StepSourceKind] = [.stepCounter, .accelerometer, .footpod]
    /// Where sysfs is (tests point this at a directory tree of their own).
    public var sysfsRoot = "/sys"
    /// Where the IIO character devices are (`/dev/iio:deviceN`).
    public var deviceRoot = "/dev"
    /// The accelerometer's sampling rate, when the driver lets it be set.
    public var accelerometerRateHz = 50.0

    /// Paired Bluetooth sensors are followed (live only).
    public var bluetoothEnabled = true
    /// The adapter (`hci0`); `nil` for the first one that is powered on.
    public var bluetoothAdapter: String?
    /// How long one connection attempt waits for a sensor to advertise, in seconds.
    public var bluetoothConnectTimeout = 20.0
    /// Power the adapter and LE on at start when nothing else has (no bluetoothd on the pack).
    public var bluetoothPowerOn = true
    /// The LE connection defaults handoffd sets at start (`nil`: leave the kernel's): the largest
    /// connection interval a sensor may ask for, in ms (the kernel refuses requests above the
    /// interval the link was created with, 50 ms by default, and straps then drop the link), and
    /// the supervision timeout, in ms (the kernel's 420 ms is short for a Pi sharing its radio with Wi-Fi).
    public var bluetoothMaxIntervalMs: Double? = 1000
    public var bluetoothSupervisionTimeoutMs: Double? = 4000

    /// The button and LED (`[gpio]`): a GPIO chip's character device and its lines (BCM numbers on
    /// a Raspberry Pi), off unless enabled (hw/README.md has the wiring).
    public var gpioEnabled = false
    public var gpioChip = "/dev/gpiochip0"
    public var gpioButton: UInt32? = 17
    public var gpioLED: UInt32? = 27
    public var gpioButtonActiveLow = true
    public var gpioLEDActiveLow = false
    public var gpioLongPressSeconds = 1.5
    public var gpioDebounceSeconds = 0.03

    /// Uploads to the group store (`[sync]`): where the link file is (default: beside the
    /// journal), which Wi-Fi is home and how to read it, retries and time-outs.
    public var syncEnabled = true
    public var syncLinkPath: String?
    public var syncHomeSSIDs: [String] = []
    public var syncNetwork: NetworkSource = .auto
    public var syncInterface = "wlan0"
    public var syncWPADirectory = "/run/wpa_supplicant"
    public var syncUploadAway = false
    public var syncRetryMinimumSeconds = 30.0
    public var syncRetryMaximumSeconds = 3600.0
    public var syncTimeoutSeconds = 60.0
    /// How long `handoff start` waits for the store to hand over the baton.
    public var syncBatonTimeoutSeconds = 4.0
    /// The pack's name on the store (default: the host name).
    public var syncDeviceName: String?
    /// The group whose baton the pack carries (`[sync] group`; default: the account's only one).
    public var syncGroup: Int64?
    /// Circles whose points never leave the pack (`[privacy] zones`).
    public var privacyZones: [PrivacyZone] = []
    /// Days after which a synced run's raw data (RR intervals, the uploaded file) may be pruned.
    public var pruneRawAfterDays: Double?
    /// How distances and paces are written for people (`[display] units`): the daemon's
    /// messages, and the CLI's text when it is not given `--units`.
    public var displayUnits: Units = .kilometers

    /// The link file: configured, or `store-link.json` beside the journal.
    public var resolvedLinkPath: String {
        if let syncLinkPath { return syncLinkPath }
        let directory = (databasePath as NSString).deletingLastPathComponent
        return (directory.isEmpty ? "." : directory) + "/store-link.json"
    }

    /// The sync worker's configuration.
    public var sync: SyncConfiguration {
        var configuration = SyncConfiguration(
            linkPath: resolvedLinkPath,
            policy: HomePolicy(ssids: syncHomeSSIDs, source: syncNetwork, uploadAway: syncUploadAway),
            deviceName: syncDeviceName ?? ProcessInfo.processInfo.hostName)
        configuration.backoff = Backoff(
            minimumSeconds: syncRetryMinimumSeconds, maximumSeconds: syncRetryMaximumSeconds)
        configuration.zones = privacyZones
        configuration.timeoutSeconds = syncTimeoutSeconds
        configuration.batonTimeoutSeconds = syncBatonTimeoutSeconds
        configuration.pruneRawAfterSeconds = pruneRawAfterDays.map { $0 * 86_400 }
        configuration.batonGroup = syncGroup
        return configuration
    }

    /// The defaults for this user (root: system paths; others: XDG paths).
    public init() {
        databasePath = ControlPaths.defaultStateDirectory + "/handoff.sqlite"
        socketPath = ControlPaths.defaultSocket
    }

    /// Applies a TOML file over `self`. Unknown keys and values out of range are errors that name
    /// the key and the file, so that a typo never silently leaves a default in place.
    public mutating func apply(tomlAt path: String) throws(ConfigurationError) {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ConfigurationError(path: path, message: "cannot be read (\(error.localizedDescription))")
        }
        try apply(toml: text, path: path)
    }

    public mutating func apply(toml text: String, path: String) throws(ConfigurationError) {
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let error as TOMLParseError {
            throw ConfigurationError(
                path: path, message: "is not valid TOML at line \(error.source.begin.line): \(error.description)")
        } catch {
            throw ConfigurationError(path: path, message: "is not valid TOML: \(error)")
        }
        var reader = TOMLReader(table: table, path: path)
        try reader.section("storage") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.string("database") { databasePath = v }
            if let v = try s.number("prune_raw_after_days", in: 0...36_500) { pruneRawAfterDays = v == 0 ? nil : v }
        }
        try reader.section("sync") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.bool("enabled") { syncEnabled = v }
            if let v = try s.string("link_file"), !v.isEmpty { syncLinkPath = v }
            if let v = try s.strings("home_ssids") { syncHomeSSIDs = v }
            if let v = try s.string("network") {
                guard let source = NetworkSource(rawValue: v) else {
                    throw s.error(
                        "sync.network",
                        "must be one of \(NetworkSource.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                syncNetwork = source
            }
            if let v = try s.string("interface") {
                guard !v.isEmpty, v.count < 16, !v.contains("/") else {
                    throw s.error("sync.interface", "must name a network interface such as wlan0")
                }
                syncInterface = v
            }
            if let v = try s.string("wpa_supplicant_dir") { syncWPADirectory = v }
            if let v = try s.bool("upload_away") { syncUploadAway = v }
            if let v = try s.number("retry_min_s", in: 0.01...86_400) { syncRetryMinimumSeconds = v }
            if let v = try s.number("retry_max_s", in: 0.01...86_400) { syncRetryMaximumSeconds = v }
            if let v = try s.number("timeout_s", in: 1...3600) { syncTimeoutSeconds = v }
            if let v = try s.number("baton_timeout_s", in: 1...60) { syncBatonTimeoutSeconds = v }
            if let v = try s.string("device_name") {
                guard (1...64).contains(v.count) else {
                    throw s.error("sync.device_name", "must be 1 to 64 characters")
                }
                syncDeviceName = v
            }
            if let v = try s.number("group", in: 1...9e15) {
                guard v == v.rounded() else { throw s.error("sync.group", "must be a group's id, a whole number") }
                syncGroup = Int64(v)
            }
            if syncRetryMaximumSeconds < syncRetryMinimumSeconds {
                throw s.error("sync.retry_max_s", "must not be less than retry_min_s")
            }
        }
        try reader.section("privacy") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            guard let zones = try s.tables("zones") else { return }
            privacyZones = []
            for (i, zone) in zones.enumerated() {
                let key = "privacy.zones[\(i)]"
                func number(_ field: String, _ range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
                    guard let value = zone[field], let d = value.double ?? value.int.map(Double.init) else {
                        throw s.error("\(key).\(field)", "must be a number")
                    }
                    guard range.contains(d) else {
                        throw s.error(
                            "\(key).\(field)", "is \(d); it must be between \(range.lowerBound) and \(range.upperBound)"
                        )
                    }
                    return d
                }
                for field in zone.keys where !["name", "lat", "lon", "radius_m"].contains(field) {
                    throw s.error(key, "has an unknown key \(field) (known: name, lat, lon, radius_m)")
                }
                privacyZones.append(
                    PrivacyZone(
                        name: zone["name"]?.string ?? "zone \(i + 1)", latitude: try number("lat", -90...90),
                        longitude: try number("lon", -180...180), radiusMeters: try number("radius_m", 1...100_000)))
            }
        }
        try reader.section("control") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.string("socket") { socketPath = v }
        }
        try reader.section("recording") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.number("auto_lap_m", in: 0...100_000) { recorder.autoLapMeters = v == 0 ? nil : v }
            if let v = try s.number("stale_after_s", in: 1...60) {
                recorder.staleAfterNanoseconds = Int64(v * 1e9)
            }
            if let v = try s.number("moving_speed_mps", in: 0...5) { recorder.movingSpeed = v }
            if let v = try s.number("discard_shorter_than_s", in: 0...3600) { discardShorterThanSeconds = v }
        }
        try reader.section("gps") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.number("stationary_speed_mps", in: 0...3) { recorder.gps.stationarySpeed = v }
            if let v = try s.number("jitter_radius_m", in: 0...100) { recorder.gps.minimumJitterRadius = v }
            if let v = try s.number("jitter_radius_per_hdop_m", in: 0...100) { recorder.gps.jitterRadiusPerHDOP = v }
            if let v = try s.number("max_fix_gap_s", in: 1...600) {
                recorder.gps.maximumFixGapNanoseconds = Int64(v * 1e9)
            }
            if let v = try s.number("max_speed_mps", in: 1...100) { recorder.gps.maximumSpeed = v }
            if let v = try s.number("start_wait_s", in: 0...3600) { gpsStartWaitSeconds = v }
            if let v = try s.string("source") {
                guard let kind = GPSSourceKind(rawValue: v) else {
                    throw s.error("gps.source", "must be one of gpsd, serial, none")
                }
                gpsSource = kind
            }
            if let v = try s.string("gpsd") {
                guard let (host, port) = Self.hostPort(v) else {
                    throw s.error("gps.gpsd", "must be host:port, such as 127.0.0.1:2947")
                }
                (gpsdHost, gpsdPort) = (host, port)
            }
            if let v = try s.string("device") { gpsDevice = v }
            if let v = try s.number("baud", in: 4800...460_800) {
                guard SerialNMEASource.supportedBaudRates[Int(v)] != nil else {
                    throw s.error(
                        "gps.baud",
                        "must be one of \(SerialNMEASource.supportedBaudRates.keys.sorted().map(String.init).joined(separator: ", "))"
                    )
                }
                gpsBaudRate = Int(v)
            }
        }
        try reader.section("pedometer") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let list = try s.strings("sources") {
                var kinds: [StepSourceKind] = []
                for name in list {
                    guard let kind = StepSourceKind(rawValue: name) else {
                        throw s.error(
                            "pedometer.sources", "lists \"\(name)\"; known: step-counter, accelerometer, footpod")
                    }
                    kinds.append(kind)
                }
                stepSources = kinds
            }
            if let v = try s.string("sysfs") { sysfsRoot = v }
            if let v = try s.string("dev") { deviceRoot = v }
            if let v = try s.number("accelerometer_rate_hz", in: 10...400) { accelerometerRateHz = v }
        }
        recorder.stepsFromFootpodCadence = stepSources.contains(.footpod)
        try reader.section("bluetooth") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.bool("enabled") { bluetoothEnabled = v }
            if let v = try s.string("adapter") {
                guard v.hasPrefix("hci"), Int(v.dropFirst(3)) != nil else {
                    throw s.error("bluetooth.adapter", "must name an adapter such as hci0")
                }
                bluetoothAdapter = v
            }
            if let v = try s.number("connect_timeout_s", in: 2...60) { bluetoothConnectTimeout = v }
            if let v = try s.bool("power_on") { bluetoothPowerOn = v }
            if let v = try s.number("max_connection_interval_ms", in: 0...4000) {
                bluetoothMaxIntervalMs = v == 0 ? nil : v
            }
            if let v = try s.number("supervision_timeout_ms", in: 0...32_000) {
                bluetoothSupervisionTimeoutMs = v == 0 ? nil : v
            }
            if let interval = bluetoothMaxIntervalMs, interval < 30 {
                throw s.error("bluetooth.max_connection_interval_ms", "must be 0 (the kernel's) or at least 30")
            }
            if let timeout = bluetoothSupervisionTimeoutMs {
                guard timeout >= 100 else {
                    throw s.error("bluetooth.supervision_timeout_ms", "must be 0 (the kernel's) or at least 100")
                }
                // Core Vol 6 Part B §4.5.2: the timeout must exceed twice the longest interval.
                if let interval = bluetoothMaxIntervalMs, timeout <= 2 * interval {
                    throw s.error(
                        "bluetooth.supervision_timeout_ms", "must be more than twice max_connection_interval_ms")
                }
            }
        }
        try reader.section("gpio") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.bool("enabled") { gpioEnabled = v }
            if let v = try s.string("chip") {
                guard v.hasPrefix("/") else {
                    throw s.error("gpio.chip", "must be a device path such as /dev/gpiochip0")
                }
                gpioChip = v
            }
            if let v = try s.number("button", in: -1...511) { gpioButton = v < 0 ? nil : UInt32(v) }
            if let v = try s.number("led", in: -1...511) { gpioLED = v < 0 ? nil : UInt32(v) }
            if let v = try s.bool("button_active_low") { gpioButtonActiveLow = v }
            if let v = try s.bool("led_active_low") { gpioLEDActiveLow = v }
            if let v = try s.number("long_press_ms", in: 300...10_000) { gpioLongPressSeconds = v / 1000 }
            if let v = try s.number("debounce_ms", in: 0...200) { gpioDebounceSeconds = v / 1000 }
            if let button = gpioButton, button == gpioLED {
                throw s.error("gpio.led", "must be another line than gpio.button")
            }
        }
        try reader.section("replay") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.string("file"), !v.isEmpty { replayFile = v }
            if let v = try s.speed("speed") { replaySpeed = v }
            if let v = try s.bool("live") { replayLive = v }
            if let v = try s.bool("start_now") { replayStartNow = v }
            if let v = try s.strings("sensors") { replaySensors = Set(v) }
        }
        try reader.section("capture") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.string("file"), !v.isEmpty { captureFile = v }
        }
        try reader.section("display") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.string("units") {
                guard let units = Units(rawValue: v) else {
                    throw s.error("display.units", "is \"\(v)\"; it must be \"km\" or \"mi\"")
                }
                displayUnits = units
            }
        }
        try reader.section("log") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.string("level") {
                guard let level = Logger.Level(rawValue: v) else {
                    throw s.error("log.level", "must be one of trace, debug, info, notice, warning, error, critical")
                }
                logLevel = level
            }
        }
        try reader.finish()
    }
}

extension PackConfiguration {
    /// `host:port`, `[v6]:port`; the port must be a number.
    static func hostPort(_ text: String) -> (String, UInt16)? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]), port > 0
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}

/// A configuration problem, naming the file and what to fix.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var path: String
    public var message: String

    public var description: String { "\(path) \(message)" }
}

/// Reads known sections and keys from a TOML table and reports everything left over.
struct TOMLReader {
    let table: TOMLTable
    let path: String
    private var seenSections: Set<String> = []

    init(table: TOMLTable, path: String) {
        self.table = table
        self.path = path
    }

    struct Section {
        let name: String
        let table: TOMLTable?
        let path: String
        var seen: Set<String> = []

        func error(_ key: String, _ message: String) -> ConfigurationError {
            ConfigurationError(path: path, message: ": \(key) \(message)")
        }

        mutating func value(_ key: String) -> (any TOMLValueConvertible)? {
            seen.insert(key)
            return table?[key]
        }

        mutating func string(_ key: String) throws(ConfigurationError) -> String? {
            guard let v = value(key) else { return nil }
            guard let s = v.string else { throw error("\(name).\(key)", "must be a string") }
            return s
        }

        mutating func number(_ key: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double? {
            guard let v = value(key) else { return nil }
            guard let d = v.double ?? v.int.map(Double.init) else { throw error("\(name).\(key)", "must be a number") }
            guard range.contains(d) else {
                throw error("\(name).\(key)", "is \(d); it must be between \(range.lowerBound) and \(range.upperBound)")
            }
            return d
        }

        mutating func bool(_ key: String) throws(ConfigurationError) -> Bool? {
            guard let v = value(key) else { return nil }
            guard let b = v.bool else { throw error("\(name).\(key)", "must be true or false") }
            return b
        }

        mutating func strings(_ key: String) throws(ConfigurationError) -> [String]? {
            guard let v = value(key) else { return nil }
            guard let array = v.array else { throw error("\(name).\(key)", "must be a list of strings") }
            var result: [String] = []
            for item in array {
                guard let s = item.string else { throw error("\(name).\(key)", "must be a list of strings") }
                result.append(s)
            }
            return result
        }

        /// An array of tables (`[[section.key]]`, or inline `key = [{…}, {…}]`).
        mutating func tables(_ key: String) throws(ConfigurationError) -> [TOMLTable]? {
            guard let v = value(key) else { return nil }
            guard let array = v.array else { throw error("\(name).\(key)", "must be a list of tables") }
            var result: [TOMLTable] = []
            for item in array {
                guard let table = item.table else { throw error("\(name).\(key)", "must be a list of tables") }
                result.append(table)
            }
            return result
        }

        mutating func speed(_ key: String) throws(ConfigurationError) -> ReplaySpeed? {
            guard let v = value(key) else { return nil }
            if let s = v.string, let speed = ReplaySpeed(s) { return speed }
            if let d = v.double ?? v.int.map(Double.init), let speed = ReplaySpeed(String(d)) { return speed }
            throw error("\(name).\(key)", "must be a positive number or \"max\"")
        }
    }

    mutating func section(
        _ name: String, _ body: (inout Section) throws(ConfigurationError) -> Void
    ) throws(ConfigurationError) {
        seenSections.insert(name)
        let value = table[name]
        if value != nil && value?.table == nil {
            throw ConfigurationError(path: path, message: ": [\(name)] must be a table")
        }
        var section = Section(name: name, table: value?.table, path: path)
        try body(&section)
        if let keys = section.table?.keys {
            for key in keys where !section.seen.contains(key) {
                throw ConfigurationError(
                    path: path,
                    message: ": unknown key \(name).\(key) (known: \(section.seen.sorted().joined(separator: ", ")))")
            }
        }
    }

    func finish() throws(ConfigurationError) {
        for key in table.keys where !seenSections.contains(key) {
            throw ConfigurationError(
                path: path,
                message: ": unknown section [\(key)] (known: \(seenSections.sorted().joined(separator: ", ")))")
        }
    }
}
