import Foundation
import Logging
import PackControl
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

/// `handoffd`'s configuration: built-in defaults, then `handoff.toml`, then command-line flags.
/// `docs/configuration.md` documents every key and its default.
public struct PackConfiguration: Sendable {
    public var databasePath: String
    public var socketPath: String
    public var recorder = RecorderConfiguration()
    public var replayFile: String?
    public var replaySpeed: ReplaySpeed = .factor(1)
    public var exitAfterReplay = false
    public var captureFile: String?
    public var logLevel: Logger.Level = .info

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
        }
        try reader.section("gps") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.number("stationary_speed_mps", in: 0...3) { recorder.gps.stationarySpeed = v }
            if let v = try s.number("jitter_radius_m", in: 0...100) { recorder.gps.minimumJitterRadius = v }
            if let v = try s.number("jitter_radius_per_hdop_m", in: 0...100) { recorder.gps.jitterRadiusPerHDOP = v }
            if let v = try s.number("max_fix_gap_s", in: 1...600) {
                recorder.gps.maximumFixGapNanoseconds = Int64(v * 1e9)
            }
            if let v = try s.number("max_speed_mps", in: 1...100) { recorder.gps.maximumSpeed = v }
        }
        try reader.section("replay") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.string("file"), !v.isEmpty { replayFile = v }
            if let v = try s.speed("speed") { replaySpeed = v }
        }
        try reader.section("capture") { (s: inout TOMLReader.Section) throws(ConfigurationError) in
            if let v = try s.string("file"), !v.isEmpty { captureFile = v }
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
