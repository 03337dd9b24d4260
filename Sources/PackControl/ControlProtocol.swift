import Foundation

/// A request to `handoffd` on its control socket: one JSON object on one line.
/// `docs/control-api.md` lists the commands.
public struct ControlRequest: Codable, Hashable, Sendable {
    public var command: String
    /// `show`: the run (`last`, its number, or a UUID prefix).
    public var run: String?
    /// `runs`: how many, newest first.
    public var limit: Int?
    /// `scan`: how long to listen, in seconds.
    public var seconds: Double?
    /// `pair`: an address or an advertised name.
    public var target: String?
    /// `pair`: `hr`, `footpod` or `bike` (what the sensor offers when absent), or a classic
    /// strap's protocol, `polar-wearlink` or `zephyr-hxm`.
    public var kind: String?
    /// `forget`, `sensor`: a paired sensor's address or name.
    public var sensor: String?
    /// `scan`: a classic (BR/EDR) inquiry instead of an LE scan.
    public var classic: Bool?
    /// `pair` (classic): the RFCOMM channel, when SDP should not be asked.
    public var channel: Int?
    /// `pair` (classic): the PIN the strap asks for, when not its maker's default.
    public var pin: String?
    /// `export`: `fit`, `gpx`, `tcx` or `csv`.
    public var format: String?
    /// `import`: the file's name, for its format and for messages (the file itself is passed
    /// as a descriptor).
    public var name: String?
    /// `link`: the store's address.
    public var store: String?
    /// `sync`: upload now even away from home (once).
    public var anywhere: Bool?
    /// `sync`: forget retry times and release runs the store refused.
    public var now: Bool?
    /// `start`: run without the baton.
    public var solo: Bool?
    /// `show`: `mi` adds splits per mile (`mile_splits`); `stop`, `pause`, `resume`, `lap`: the
    /// units of the message's distance. Absent: kilometre splits only, and the configured units.
    public var units: String?
    /// `stop`: keep the run even when it is too short to be worth keeping.
    public var keep: Bool?
    /// `delete`: delete the run on the pack only, even when it is on the store.
    public var localOnly: Bool?

    enum CodingKeys: String, CodingKey {
        case command, run, limit, seconds, target, kind, sensor, classic, channel, pin, format, name, store, anywhere
        case now, solo, keep, units
        case localOnly = "local_only"
    }

    public init(
        command: String, run: String? = nil, limit: Int? = nil, seconds: Double? = nil, target: String? = nil,
        kind: String? = nil, sensor: String? = nil, classic: Bool? = nil, channel: Int? = nil, pin: String? = nil,
        format: String? = nil, name: String? = nil, store: String? = nil, anywhere: Bool? = nil,
        now: Bool? = nil, solo: Bool? = nil, keep: Bool? = nil, localOnly: Bool? = nil, units: String? = nil
    ) {
        self.keep = keep
        self.localOnly = localOnly
        self.units = units
        self.now = now
        self.solo = solo
        self.store = store
        self.anywhere = anywhere
        self.format = format
        self.name = name
        self.classic = classic
        self.channel = channel
        self.pin = pin
        self.command = command
        self.run = run
        self.limit = limit
        self.seconds = seconds
        self.target = target
        self.kind = kind
        self.sensor = sensor
    }
}

/// Why a request failed, in a form a script can test (`code`) and a person can act on (`message`).
public struct ControlError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// The reply: `{"ok":true,"result":…}` or `{"ok":false,"error":{"code":…,"message":…}}`.
public struct ControlResponse<Result: Codable & Sendable>: Codable, Sendable {
    public var ok: Bool
    public var result: Result?
    public var error: ControlError?

    public init(result: Result) {
        ok = true
        self.result = result
        error = nil
    }

    public init(error: ControlError) {
        ok = false
        result = nil
        self.error = error
    }
}

/// JSON for the control API and `--json` output: snake_case keys as declared, sorted, compact.
public enum ControlJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
