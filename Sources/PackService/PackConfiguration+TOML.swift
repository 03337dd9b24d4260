import Foundation
import TOMLKit

extension PackConfiguration {
    /// Applies a TOML file over `self`. Unknown keys and values out of range are errors that name
    /// the key and the file, so that a typo never silently leaves a default in place.
    public mutating func apply(tomlAt path: String) throws(ConfigurationError) {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ConfigurationError(path: path, message: "cannot be read (\(error.localizedDescription))")
        }
        try apply(toml: text, path: path)
    }

    /// Applies TOML text over `self`: each table present is decoded over its section, in the order
    /// below, and then every table must have been a known one.
    public mutating func apply(toml text: String, path: String) throws(ConfigurationError) {
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let error as TOMLParseError {
            throw ConfigurationError(
                path: path, message: "is not valid TOML at line \(error.source.begin.line): \(error.description)")
        } catch {
            throw ConfigurationError(path: path, message: "is not valid TOML: \(error)")
        }
        var file = TOMLFile(table: table, path: path)
        storage = try file.decode(storage)
        sync = try file.decode(sync)
        sync.privacy = try file.decode(sync.privacy)
        sync.live = try file.decode(sync.live)
        control = try file.decode(control)
        recording = try file.decode(recording)
        gps = try file.decode(gps)
        pedometer = try file.decode(pedometer)
        bluetooth = try file.decode(bluetooth)
        gpio = try file.decode(gpio)
        replay = try file.decode(replay)
        capture = try file.decode(capture)
        display = try file.decode(display)
        log = try file.decode(log)
        try file.finish()
    }
}

/// One table of `handoff.toml` (`[gps]`): its settings with their defaults, `Decodable` with
/// TOMLKit's `TOMLDecoder` over the values already set (the decoder's `userInfo` carries them),
/// and `validate()` for what must hold between its settings.
protocol ConfigurationSection: Decodable, Sendable {
    /// The table's name (`gps`).
    static var name: String { get }
    /// The defaults.
    init()
    /// Throws, naming the key, when the settings do not fit together.
    func validate() throws(ConfigurationError)
}

extension CodingUserInfoKey {
    /// The section's values before the file: a table sets only the keys it has.
    static let configurationSection = CodingUserInfoKey(rawValue: "handoff.configurationSection")!
}

extension Decoder {
    /// The values a section is decoded over: the current ones, else the defaults.
    func currentSection<Section: ConfigurationSection>() -> Section {
        userInfo[.configurationSection] as? Section ?? Section()
    }
}

/// The tables of a parsed file, decoded section by section; the file's path goes into each error.
struct TOMLFile {
    let table: TOMLTable
    let path: String
    private var known: [String] = []

    init(table: TOMLTable, path: String) {
        self.table = table
        self.path = path
    }

    /// `current` with the section's table applied over it; `current`, validated, without one.
    mutating func decode<Section: ConfigurationSection>(_ current: Section) throws(ConfigurationError) -> Section {
        known.append(Section.name)
        do {
            guard let value = table[Section.name] else {
                try current.validate()
                return current
            }
            guard let sectionTable = value.table else {
                throw ConfigurationError(path: path, message: ": [\(Section.name)] must be a table")
            }
            var decoder = TOMLDecoder()
            decoder.userInfo[.configurationSection] = current
            return try decoder.decode(Section.self, from: sectionTable)
        } catch var error as ConfigurationError {
            if error.path.isEmpty { error.path = path }
            throw error
        } catch {
            throw ConfigurationError(path: path, message: ": [\(Section.name)] cannot be read (\(error))")
        }
    }

    /// Every table must be a known section.
    func finish() throws(ConfigurationError) {
        for key in table.keys where !known.contains(key) {
            throw ConfigurationError(
                path: path, message: ": unknown section [\(key)] (known: \(known.sorted().joined(separator: ", ")))")
        }
    }
}

/// Any key of a table.
struct TOMLKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ key: String) { stringValue = key }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// The keys of one section's table, read through TOMLKit's decoder with the messages `handoffd`
/// gives: a wrong type or a value out of range names the key (`gps.baud`); a key never asked for
/// is unknown (`finish`).
struct SectionReader {
    let name: String
    private let container: KeyedDecodingContainer<TOMLKey>
    private var seen: [String] = []

    init(_ decoder: any Decoder, section name: String) throws {
        self.name = name
        container = try decoder.container(keyedBy: TOMLKey.self)
    }

    /// A problem with `key` of this section (`"zones[0].lat"` names `privacy.zones[0].lat`).
    func error(_ key: String, _ message: String) -> ConfigurationError {
        .key("\(name).\(key)", message)
    }

    /// Whether the table has `key`, which counts as known from now on.
    private mutating func has(_ key: String) -> Bool {
        if !seen.contains(key) { seen.append(key) }
        return container.contains(TOMLKey(key))
    }

    private func decoded<T: Decodable>(_ type: T.Type, _ key: String) -> T? {
        try? container.decode(type, forKey: TOMLKey(key))
    }

    mutating func string(_ key: String) throws(ConfigurationError) -> String? {
        guard has(key) else { return nil }
        guard let s = decoded(String.self, key) else { throw error(key, "must be a string") }
        return s
    }

    /// A number, integer or not, within `range`.
    mutating func number(_ key: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double? {
        guard has(key) else { return nil }
        guard let d = decoded(Double.self, key) ?? decoded(Int.self, key).map(Double.init) else {
            throw error(key, "must be a number")
        }
        guard range.contains(d) else {
            throw error(key, "is \(d); it must be between \(range.lowerBound) and \(range.upperBound)")
        }
        return d
    }

    mutating func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        guard has(key) else { return nil }
        guard let b = decoded(Bool.self, key) else { throw error(key, "must be true or false") }
        return b
    }

    mutating func strings(_ key: String) throws(ConfigurationError) -> [String]? {
        guard has(key) else { return nil }
        guard let list = decoded([String].self, key) else { throw error(key, "must be a list of strings") }
        return list
    }

    /// An array of tables (`[[section.key]]`, or inline `key = [{…}, {…}]`).
    mutating func tables<Entry: Decodable>(_ key: String, of type: Entry.Type) throws(ConfigurationError) -> [Entry]? {
        guard has(key) else { return nil }
        guard let list = decoded([Entry].self, key) else { throw error(key, "must be a list of tables") }
        return list
    }

    mutating func speed(_ key: String) throws(ConfigurationError) -> ReplaySpeed? {
        guard has(key) else { return nil }
        if let s = decoded(String.self, key), let speed = ReplaySpeed(s) { return speed }
        if let d = decoded(Double.self, key) ?? decoded(Int.self, key).map(Double.init),
            let speed = ReplaySpeed(String(d))
        {
            return speed
        }
        throw error(key, "must be a positive number or \"max\"")
    }

    /// Validates the section read, then refuses the keys it never asked for.
    func finish(_ section: some ConfigurationSection) throws(ConfigurationError) {
        try section.validate()
        for key in container.allKeys.map(\.stringValue) where !seen.contains(key) {
            throw ConfigurationError.key(
                "unknown key \(name).\(key)", "(known: \(seen.sorted().joined(separator: ", ")))")
        }
    }
}
