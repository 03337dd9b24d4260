import HandoffModel

/// A device `scan` heard.
public struct ScannedDeviceReport: Codable, Hashable, Sendable {
    public var name: String?
    public var address: String
    /// `public` or `random`; `bredr` for a classic inquiry.
    public var addressType: SensorAddressType
    /// The sensor kind it looks like (`heart_rate`, `footpod`, `bike`), if any.
    public var kind: String?
    public var rssi: Int?
    /// Advertised service UUIDs (`180D`, or 128-bit).
    public var services: [String]
    public var connectable: Bool
    public var appearance: Int?
    public var txPower: Int?
    /// Already paired with this pack.
    public var paired: Bool
    /// Classic devices: the Class of Device, as hex and words.
    public var classOfDevice: String?
    /// Classic devices: the strap protocol its name suggests (`polar-wearlink`, `zephyr-hxm`).
    public var profile: String?

    enum CodingKeys: String, CodingKey {
        case name, address, kind, rssi, services, connectable, appearance, paired, profile
        case addressType = "address_type", txPower = "tx_power", classOfDevice = "class_of_device"
    }

    public init(
        name: String?, address: String, addressType: SensorAddressType, kind: String?, rssi: Int?, services: [String],
        connectable: Bool, appearance: Int?, txPower: Int?, paired: Bool, classOfDevice: String? = nil,
        profile: String? = nil
    ) {
        self.classOfDevice = classOfDevice
        self.profile = profile
        self.name = name
        self.address = address
        self.addressType = addressType
        self.kind = kind
        self.rssi = rssi
        self.services = services
        self.connectable = connectable
        self.appearance = appearance
        self.txPower = txPower
        self.paired = paired
    }
}

/// What `scan` returns.
public struct ScanReport: Codable, Hashable, Sendable {
    public var seconds: Double
    public var adapter: String?
    public var devices: [ScannedDeviceReport]
    /// The kernel was already scanning (to reconnect paired sensors), so this scan only listened.
    public var sharedKernelScan: Bool

    enum CodingKeys: String, CodingKey {
        case seconds, adapter, devices
        case sharedKernelScan = "shared_kernel_scan"
    }

    public init(seconds: Double, adapter: String?, devices: [ScannedDeviceReport], sharedKernelScan: Bool) {
        self.seconds = seconds
        self.adapter = adapter
        self.devices = devices
        self.sharedKernelScan = sharedKernelScan
    }
}

/// A paired sensor, as `pair`, `sensors` and `forget` return it. On the socket it is one flat
/// object (docs/control-api.md); here what the sensor says of itself and a classic strap's
/// settings are parts of it.
public struct PairedSensorReport: Codable, Hashable, Sendable {
    public var id: String
    public var address: String
    public var addressType: SensorAddressType
    public var kind: String
    public var name: String?
    /// When it was paired (ISO 8601, UTC).
    public var paired: String
    /// When it last sent a value (ISO 8601, UTC), if ever.
    public var lastSeen: String?
    /// Seconds since it last sent a value, while `handoffd` runs.
    public var lastSeenS: Double?
    /// `connected`, `disconnected` or `connecting` (not heard from since `handoffd` started).
    public var link: SensorLink
    /// What it says of itself: maker, model, where it is worn, its battery.
    public var device: SensorDeviceReport
    /// A classic strap's protocol and channel.
    public var classic: ClassicStrapReport

    enum CodingKeys: String, CodingKey {
        case id, address, kind, name, paired, link
        case addressType = "address_type", lastSeen = "last_seen", lastSeenS = "last_seen_s"
    }

    public init(
        id: String, address: String, addressType: SensorAddressType, kind: String, name: String?,
        device: SensorDeviceReport, paired: String, lastSeen: String?, lastSeenS: Double?, link: SensorLink,
        classic: ClassicStrapReport = ClassicStrapReport()
    ) {
        self.id = id
        self.address = address
        self.addressType = addressType
        self.kind = kind
        self.name = name
        self.device = device
        self.paired = paired
        self.lastSeen = lastSeen
        self.lastSeenS = lastSeenS
        self.link = link
        self.classic = classic
    }

    /// The parts' keys sit beside the sensor's own, in the one object.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        address = try c.decode(String.self, forKey: .address)
        addressType = try c.decode(SensorAddressType.self, forKey: .addressType)
        kind = try c.decode(String.self, forKey: .kind)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        paired = try c.decode(String.self, forKey: .paired)
        lastSeen = try c.decodeIfPresent(String.self, forKey: .lastSeen)
        lastSeenS = try c.decodeIfPresent(Double.self, forKey: .lastSeenS)
        link = try c.decode(SensorLink.self, forKey: .link)
        device = try SensorDeviceReport(from: decoder)
        classic = try ClassicStrapReport(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(address, forKey: .address)
        try c.encode(addressType, forKey: .addressType)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encode(paired, forKey: .paired)
        try c.encodeIfPresent(lastSeen, forKey: .lastSeen)
        try c.encodeIfPresent(lastSeenS, forKey: .lastSeenS)
        try c.encode(link, forKey: .link)
        try device.encode(to: encoder)
        try classic.encode(to: encoder)
    }
}

/// What a sensor says of itself (Device Information, Body Sensor Location, Battery), flat in the
/// paired sensor's object.
public struct SensorDeviceReport: Codable, Hashable, Sendable {
    public var manufacturer: String?
    public var model: String?
    public var firmware: String?
    public var serialNumber: String?
    /// Where it says it is worn.
    public var location: String?
    public var batteryPercent: Int?

    enum CodingKeys: String, CodingKey {
        case manufacturer, model, firmware, location
        case serialNumber = "serial_number", batteryPercent = "battery_percent"
    }

    public init(
        manufacturer: String? = nil, model: String? = nil, firmware: String? = nil, serialNumber: String? = nil,
        location: String? = nil, batteryPercent: Int? = nil
    ) {
        self.manufacturer = manufacturer
        self.model = model
        self.firmware = firmware
        self.serialNumber = serialNumber
        self.location = location
        self.batteryPercent = batteryPercent
    }
}

/// A classic strap's settings (absent for Bluetooth LE sensors), flat in the paired sensor's object.
public struct ClassicStrapReport: Codable, Hashable, Sendable {
    /// Its protocol (`polar-wearlink`, `zephyr-hxm`).
    public var profile: String?
    /// Its RFCOMM channel when set by hand (else SDP finds it on each connection).
    public var rfcommChannel: Int?

    enum CodingKeys: String, CodingKey {
        case profile
        case rfcommChannel = "rfcomm_channel"
    }

    public init(profile: String? = nil, rfcommChannel: Int? = nil) {
        self.profile = profile
        self.rfcommChannel = rfcommChannel
    }
}
