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
    /// A bike's speed and cadence sensor (BLE Cycling Speed and Cadence service), for bike legs.
    public static let bike = Self(rawValue: "bike")
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

/// How the pack reaches a sensor: an open set (captures name their own), with the names the
/// pack itself uses.
public struct SensorTransport: RawRepresentable, Hashable, Sendable, Codable {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let ble = SensorTransport(rawValue: "ble")
    /// A classic (BR/EDR) strap's serial port.
    public static let rfcomm = SensorTransport(rawValue: "rfcomm")
    public static let gpsd = SensorTransport(rawValue: "gpsd")
    public static let serial = SensorTransport(rawValue: "serial")
    public static let iioSteps = SensorTransport(rawValue: "iio-steps")
    public static let iioAccel = SensorTransport(rawValue: "iio-accel")

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A Bluetooth address's type: LE `public` or `random`, as the sensor advertised, or `bredr`
/// for a classic strap.
public enum SensorAddressType: String, Hashable, Sendable, Codable {
    case `public`
    case random
    case bredr
}

/// A sensor as the pack knows it: named in a capture's header and in the sensors table.
public struct SensorDescriptor: Hashable, Sendable, Codable {
    public var id: SensorID
    public var kind: SensorKind
    /// A human name, such as the advertised name `Polar H10 1A2B3C4D`.
    public var name: String?
    /// The transport address (BLE address, serial device, gpsd URL), when it has one.
    public var address: String?
    /// How the pack reaches it: `ble`, `rfcomm`, `gpsd`, `serial`, `iio-steps`, `iio-accel`, or what
    /// a capture names.
    public var transport: SensorTransport?

    public init(
        id: SensorID, kind: SensorKind, name: String? = nil, address: String? = nil, transport: SensorTransport? = nil
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.address = address
        self.transport = transport
    }
}

/// A Bluetooth sensor the runner paired with `handoff pair`: `handoffd` connects to it at start
/// and keeps it connected.
public struct PairedSensor: Hashable, Sendable, Codable {
    /// Its address, which is also its sensor id.
    public var address: String
    /// `public` or `random` (an LE address type), as it advertised, or `bredr` for a classic
    /// strap.
    public var addressType: SensorAddressType
    public var kind: SensorKind
    /// A classic strap's protocol (`polar-wearlink`, `zephyr-hxm`); `nil` for a BLE sensor,
    /// whose GATT service says what it is.
    public var profile: String?
    /// A classic strap's RFCOMM channel when set by hand; `nil` to look it up by SDP on each
    /// connection (straps may move it after a firmware update).
    public var rfcommChannel: Int?
    /// The PIN a classic strap asks for in legacy pairing.
    public var pin: String?
    public var name: String?
    /// What its Device Information service (or a classic strap's profile) says it is.
    public var device: DeviceInformation
    /// Where it is worn, when it says (Body Sensor Location or Sensor Location).
    public var location: String?
    public var batteryPercent: Int?
    public var pairedWallNanoseconds: Int64
    /// When it last sent a value, nanoseconds since the Unix epoch.
    public var lastSeenWallNanoseconds: Int64?

    public init(
        address: String, addressType: SensorAddressType, kind: SensorKind, name: String? = nil,
        manufacturer: String? = nil,
        model: String? = nil, firmware: String? = nil, serialNumber: String? = nil, location: String? = nil,
        batteryPercent: Int? = nil, pairedWallNanoseconds: Int64, lastSeenWallNanoseconds: Int64? = nil,
        profile: String? = nil, rfcommChannel: Int? = nil, pin: String? = nil
    ) {
        self.address = address
        self.addressType = addressType
        self.kind = kind
        self.profile = profile
        self.rfcommChannel = rfcommChannel
        self.pin = pin
        self.name = name
        device = DeviceInformation(
            manufacturer: manufacturer, model: model, firmware: firmware, serialNumber: serialNumber)
        self.location = location
        self.batteryPercent = batteryPercent
        self.pairedWallNanoseconds = pairedWallNanoseconds
        self.lastSeenWallNanoseconds = lastSeenWallNanoseconds
    }

    public var manufacturer: String? {
        get { device.manufacturer }
        set { device.manufacturer = newValue }
    }
    public var model: String? {
        get { device.model }
        set { device.model = newValue }
    }
    public var firmware: String? {
        get { device.firmware }
        set { device.firmware = newValue }
    }
    public var serialNumber: String? {
        get { device.serialNumber }
        set { device.serialNumber = newValue }
    }

    public var id: SensorID { SensorID(address) }

    public var descriptor: SensorDescriptor {
        SensorDescriptor(id: id, kind: kind, name: name, address: address, transport: isClassic ? .rfcomm : .ble)
    }

    /// A classic (BR/EDR) strap read over RFCOMM.
    public var isClassic: Bool {
        addressType == .bredr
    }
}

/// A device's maker, model, firmware and serial number (the Device Information service).
public struct DeviceInformation: Hashable, Sendable, Codable {
    public var manufacturer: String?
    public var model: String?
    public var firmware: String?
    public var serialNumber: String?

    public init(manufacturer: String? = nil, model: String? = nil, firmware: String? = nil, serialNumber: String? = nil)
    {
        self.manufacturer = manufacturer
        self.model = model
        self.firmware = firmware
        self.serialNumber = serialNumber
    }
}
