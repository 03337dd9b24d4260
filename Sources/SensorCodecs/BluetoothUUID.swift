/// A Bluetooth UUID: 16-bit SIG-assigned numbers and full 128-bit UUIDs, compared as 128-bit
/// values (Core 5.4 Vol 3 Part B §2.5.1: a 16-bit UUID stands for `0000xxxx-0000-1000-8000-00805F9B34FB`).
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes, most significant first (the order the text form is written in).
    public let bytes: [UInt8]

    private static let base: [UInt8] = [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB,
    ]

    /// A SIG-assigned 16-bit UUID.
    public init(_ short: UInt16) {
        var b = Self.base
        b[2] = UInt8(short >> 8)
        b[3] = UInt8(short & 0xFF)
        bytes = b
    }

    /// A full 128-bit UUID, most significant byte first.
    public init(full: [UInt8]) {
        precondition(full.count == 16, "a 128-bit UUID has 16 bytes")
        bytes = full
    }

    /// A 32-bit UUID (advertising data may carry them).
    public init(uint32 value: UInt32) {
        var b = Self.base
        b[0] = UInt8(value >> 24)
        b[1] = UInt8((value >> 16) & 0xFF)
        b[2] = UInt8((value >> 8) & 0xFF)
        b[3] = UInt8(value & 0xFF)
        bytes = b
    }

    /// From the wire: 2, 4 or 16 bytes, little-endian as ATT and advertising data carry them.
    public init?(littleEndian wire: some Collection<UInt8>) {
        let reversed = Array(wire.reversed())
        switch reversed.count {
        case 2: self.init(UInt16(reversed[0]) << 8 | UInt16(reversed[1]))
        case 4:
            self.init(
                uint32: UInt32(reversed[0]) << 24 | UInt32(reversed[1]) << 16 | UInt32(reversed[2]) << 8
                    | UInt32(reversed[3]))
        case 16: self.init(full: reversed)
        default: return nil
        }
    }

    /// Parses `180D`, `0x180D` or `0000180d-0000-1000-8000-00805f9b34fb`.
    public init?(_ text: String) {
        var t = text
        if t.hasPrefix("0x") || t.hasPrefix("0X") { t.removeFirst(2) }
        t.removeAll { $0 == "-" }
        guard let raw = try? Hex.decode(t) else { return nil }
        switch raw.count {
        case 2: self.init(UInt16(raw[0]) << 8 | UInt16(raw[1]))
        case 16: self.init(full: raw)
        default: return nil
        }
    }

    /// The 16-bit value when this is a SIG-assigned UUID.
    public var short: UInt16? {
        guard bytes[0] == 0, bytes[1] == 0, Array(bytes[4...]) == Array(Self.base[4...]) else { return nil }
        return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }

    /// The shortest wire form, little-endian: 2 bytes for a SIG UUID, else 16.
    public var littleEndian: [UInt8] {
        if let short { return [UInt8(short & 0xFF), UInt8(short >> 8)] }
        return bytes.reversed()
    }

    /// `180D` for a SIG UUID, else the full lower-case form.
    public var description: String {
        if let short {
            let hex = Hex.encode([UInt8(short >> 8), UInt8(short & 0xFF)]).uppercased()
            return hex
        }
        let h = Hex.encode(bytes)
        let parts = [
            h.prefix(8), h.dropFirst(8).prefix(4), h.dropFirst(12).prefix(4), h.dropFirst(16).prefix(4),
            h.dropFirst(20),
        ]
        return parts.joined(separator: "-")
    }
}

extension BluetoothUUID {
    // Services (Assigned Numbers §3.4).
    public static let genericAccess = BluetoothUUID(0x1800)
    public static let genericAttribute = BluetoothUUID(0x1801)
    public static let deviceInformation = BluetoothUUID(0x180A)
    public static let heartRate = BluetoothUUID(0x180D)
    public static let battery = BluetoothUUID(0x180F)
    public static let runningSpeedAndCadence = BluetoothUUID(0x1814)
    public static let cyclingSpeedAndCadence = BluetoothUUID(0x1816)

    // Characteristics (Assigned Numbers §3.8).
    public static let deviceName = BluetoothUUID(0x2A00)
    public static let batteryLevel = BluetoothUUID(0x2A19)
    public static let modelNumber = BluetoothUUID(0x2A24)
    public static let serialNumber = BluetoothUUID(0x2A25)
    public static let firmwareRevision = BluetoothUUID(0x2A26)
    public static let hardwareRevision = BluetoothUUID(0x2A27)
    public static let softwareRevision = BluetoothUUID(0x2A28)
    public static let manufacturerName = BluetoothUUID(0x2A29)
    public static let heartRateMeasurement = BluetoothUUID(0x2A37)
    public static let bodySensorLocation = BluetoothUUID(0x2A38)
    public static let rscMeasurement = BluetoothUUID(0x2A53)
    public static let rscFeature = BluetoothUUID(0x2A54)
    public static let cscMeasurement = BluetoothUUID(0x2A5B)
    public static let cscFeature = BluetoothUUID(0x2A5C)
    public static let sensorLocation = BluetoothUUID(0x2A5D)

    // Declarations and descriptors (Core Vol 3 Part G §3).
    public static let primaryService = BluetoothUUID(0x2800)
    public static let secondaryService = BluetoothUUID(0x2801)
    public static let characteristicDeclaration = BluetoothUUID(0x2803)
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
}
