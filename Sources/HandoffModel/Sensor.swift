/// A sensor's identity on the pack: stable across connections (a BLE address, a gpsd device
/// path, or a short name in a capture such as `hr0`).
public struct SensorID: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// What a sensor measures. An open set: unknown kinds read from a capture still decode.
public struct SensorKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A heart-rate strap (BLE Heart Rate service, or a classic strap).
    public static let heartRate = Self(rawValue: "heart_rate")
    /// A running footpod (BLE Running Speed and Cadence service).
    public static let footpod = Self(rawValue: "footpod")
    /// A GPS receiver (NMEA serial or gpsd).
    public static let gps = Self(rawValue: "gps")
    /// An accelerometer or hardware step counter.
    public static let pedometer = Self(rawValue: "pedometer")
    /// Not known yet (a sensor heard of only through its link state).
    public static let unknown = Self(rawValue: "unknown")

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A sensor as the pack knows it: named in a capture's header and in the sensors table.
public struct SensorDescriptor: Hashable, Sendable, Codable {
    public var id: SensorID
    public var kind: SensorKind
    /// A human name, such as the advertised name `Polar H10 1A2B3C4D`.
    public var name: String?
    /// The transport address (BLE address, serial device, gpsd URL), when it has one.
    public var address: String?
    /// How the pack reaches it: `ble`, `rfcomm`, `gpsd`, `serial`, `iio`, `simulated`.
    public var transport: String?

    public init(
        id: SensorID, kind: SensorKind, name: String? = nil, address: String? = nil, transport: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.address = address
        self.transport = transport
    }
}
