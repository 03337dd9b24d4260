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

/// A paired sensor, as `pair`, `sensors` and `forget` return it.
public struct PairedSensorReport: Codable, Hashable, Sendable {
    public var id: String
    public var address: String
    public var addressType: SensorAddressType
    public var kind: String
    public var name: String?
    public var manufacturer: String?
    public var model: String?
    public var firmware: String?
    public var serialNumber: String?
    public var location: String?
    public var batteryPercent: Int?
    /// When it was paired (ISO 8601, UTC).
    public var paired: String
    /// When it last sent a value (ISO 8601, UTC), if ever.
    public var lastSeen: String?
    /// Seconds since it last sent a value, while `handoffd` runs.
    public var lastSeenS: Double?
    /// `connected`, `disconnected` or `connecting` (not heard from since `handoffd` started).
    public var link: SensorLink
    /// A classic strap's protocol (`polar-wearlink`, `zephyr-hxm`).
    public var profile: String?
    /// A classic strap's RFCOMM channel when set by hand (else SDP finds it on each connection).
    public var rfcommChannel: Int?

    enum CodingKeys: String, CodingKey {
        case id, address, kind, name, manufacturer, model, firmware, location, paired, link, profile
        case addressType = "address_type", serialNumber = "serial_number", batteryPercent = "battery_percent"
        case lastSeen = "last_seen", lastSeenS = "last_seen_s", rfcommChannel = "rfcomm_channel"
    }

    public init(
        id: String, address: String, addressType: SensorAddressType, kind: String, name: String?, manufacturer: String?,
        model: String?, firmware: String?, serialNumber: String?, location: String?, batteryPercent: Int?,
        paired: String, lastSeen: String?, lastSeenS: Double?, link: SensorLink, profile: String? = nil,
        rfcommChannel: Int? = nil
    ) {
        self.profile = profile
        self.rfcommChannel = rfcommChannel
        self.id = id
        self.address = address
        self.addressType = addressType
        self.kind = kind
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.firmware = firmware
        self.serialNumber = serialNumber
        self.location = location
        self.batteryPercent = batteryPercent
        self.paired = paired
        self.lastSeen = lastSeen
        self.lastSeenS = lastSeenS
        self.link = link
    }
}
