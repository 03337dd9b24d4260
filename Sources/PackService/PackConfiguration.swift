import Foundation
import PackSync
import PackSystem
import Recorder

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
///
/// One section per table of the file (`configuration.gps.startWaitSeconds` is `[gps] start_wait_s`),
/// each with its defaults, decoded with TOMLKit's `TOMLDecoder` and validating itself
/// (PackConfiguration+TOML.swift). `[privacy]` is `sync.privacy`: only uploads use it.
public struct PackConfiguration: Sendable {
    public var storage = StorageSection()
    public var control = ControlSection()
    public var recording = RecordingSection()
    public var gps = GPSSection()
    public var pedometer = PedometerSection()
    public var bluetooth = BluetoothSection()
    public var gpio = GPIOSection()
    public var sync = SyncSection()
    public var replay = ReplaySection()
    public var capture = CaptureSection()
    public var display = DisplaySection()
    public var log = LogSection()

    /// The defaults for this user (root: system paths; others: XDG paths).
    public init() {}

    /// The recorder's settings: `[recording]`, the distance settings of `[gps]`, and whether the
    /// footpod's cadence counts steps (`"footpod"` in `pedometer.sources`).
    public var recorder: RecorderConfiguration {
        RecorderConfiguration(
            autoLapMeters: recording.autoLapMeters, staleAfterNanoseconds: recording.staleAfterNanoseconds,
            movingSpeed: recording.movingSpeed, gps: gps.distance,
            stepsFromFootpodCadence: pedometer.sources.contains(.footpod),
            bike: BikeConfiguration(wheelCircumferenceMeters: recording.wheelCircumferenceMeters))
    }

    /// The link file: configured, or `store-link.json` beside the journal.
    public var resolvedLinkPath: String {
        if let linkPath = sync.linkPath { return linkPath }
        let directory = (storage.databasePath as NSString).deletingLastPathComponent
        return (directory.isEmpty ? "." : directory) + "/store-link.json"
    }

    /// The sync worker's configuration.
    public var syncWorkerConfiguration: SyncConfiguration {
        var configuration = SyncConfiguration(
            linkPath: resolvedLinkPath,
            policy: HomePolicy(ssids: sync.home.ssids, source: sync.home.network, uploadAway: sync.home.uploadAway),
            deviceName: sync.deviceName ?? ProcessInfo.processInfo.hostName)
        configuration.backoff = Backoff(
            minimumSeconds: sync.retryMinimumSeconds, maximumSeconds: sync.retryMaximumSeconds)
        configuration.zones = sync.privacy.zones
        configuration.timeoutSeconds = sync.timeoutSeconds
        configuration.batonTimeoutSeconds = sync.batonTimeoutSeconds
        configuration.pruneRawAfterSeconds = storage.pruneRawAfterDays.map { $0 * 86_400 }
        configuration.batonGroup = sync.group
        return configuration
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

    /// A problem with a key (`gps.baud`), naming the file once the loader knows it.
    static func key(_ key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(path: "", message: ": \(key) \(message)")
    }
}
