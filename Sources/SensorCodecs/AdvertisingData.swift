/// Advertising and scan-response data: a list of AD structures (Core 5.4 Vol 3 Part C §11,
/// Core Specification Supplement Part A for the types), decoded into what a scan shows.
public struct AdvertisingData: Hashable, Sendable {
    /// Flags (CSS A.1.3): bit 0 LE Limited, bit 1 LE General Discoverable, bit 2 BR/EDR not supported.
    public var flags: UInt8?
    /// The complete local name, else the shortened one (CSS A.1.2).
    public var name: String?
    public var nameIsComplete = false
    /// 16-, 32- and 128-bit service UUIDs from the complete and incomplete lists (CSS A.1.1).
    public var serviceUUIDs: [BluetoothUUID] = []
    /// The GAP appearance (CSS A.1.12), such as 0x0341 for a heart-rate belt.
    public var appearance: UInt16?
    /// Transmit power level in dBm (CSS A.1.5).
    public var txPower: Int8?
    /// Manufacturer-specific data by company identifier (CSS A.1.4).
    public var manufacturerData: [UInt16: [UInt8]] = [:]
    /// Service data by 16-bit UUID (CSS A.1.11).
    public var serviceData: [BluetoothUUID: [UInt8]] = [:]

    public init() {}

    /// Decodes AD structures. A zero length ends the data (the rest is padding); a structure
    /// that runs past the end is an error; unknown types are skipped.
    public init(decoding bytes: [UInt8]) throws(AdvertisingDataError) {
        self.init()
        try merge(bytes)
    }

    /// Adds the structures in `bytes` (a scan response after its advertisement): later values
    /// replace earlier ones, UUID lists are united.
    public mutating func merge(_ bytes: [UInt8]) throws(AdvertisingDataError) {
        var i = 0
        while i < bytes.count {
            let length = Int(bytes[i])
            if length == 0 { break }
            guard i + 1 + length <= bytes.count else {
                throw .structureOverrun(offset: i, length: length, available: bytes.count - i - 1)
            }
            let type = bytes[i + 1]
            let value = Array(bytes[(i + 2)..<(i + 1 + length)])
            try apply(type: type, value: value, offset: i)
            i += 1 + length
        }
    }

    private mutating func apply(type: UInt8, value: [UInt8], offset: Int) throws(AdvertisingDataError) {
        switch type {
        case 0x01:
            guard let f = value.first else { throw .badLength(type: type, length: 0, offset: offset) }
            flags = f
        case 0x02, 0x03: try addUUIDs(value, width: 2, type: type, offset: offset)
        case 0x04, 0x05: try addUUIDs(value, width: 4, type: type, offset: offset)
        case 0x06, 0x07: try addUUIDs(value, width: 16, type: type, offset: offset)
        case 0x08, 0x09:
            // Names are UTF-8; a name cut mid-character by a short advertisement keeps what decodes.
            let text = String(decoding: value, as: UTF8.self)
            if type == 0x09 || !nameIsComplete {
                name = text
                nameIsComplete = type == 0x09
            }
        case 0x0A:
            guard value.count == 1 else { throw .badLength(type: type, length: value.count, offset: offset) }
            txPower = Int8(bitPattern: value[0])
        case 0x16:
            guard value.count >= 2 else { throw .badLength(type: type, length: value.count, offset: offset) }
            serviceData[BluetoothUUID(UInt16(value[0]) | UInt16(value[1]) << 8)] = Array(value[2...])
        case 0x19:
            guard value.count == 2 else { throw .badLength(type: type, length: value.count, offset: offset) }
            appearance = UInt16(value[0]) | UInt16(value[1]) << 8
        case 0xFF:
            guard value.count >= 2 else { throw .badLength(type: type, length: value.count, offset: offset) }
            manufacturerData[UInt16(value[0]) | UInt16(value[1]) << 8] = Array(value[2...])
        default:
            break
        }
    }

    private mutating func addUUIDs(_ value: [UInt8], width: Int, type: UInt8, offset: Int) throws(AdvertisingDataError)
    {
        guard value.count % width == 0 else { throw .badLength(type: type, length: value.count, offset: offset) }
        var i = 0
        while i < value.count {
            if let uuid = BluetoothUUID(littleEndian: value[i..<(i + width)]), !serviceUUIDs.contains(uuid) {
                serviceUUIDs.append(uuid)
            }
            i += width
        }
    }

    /// Encodes the fields that are set (for virtual peripherals and tests).
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        func add(_ type: UInt8, _ value: [UInt8]) {
            out.append(UInt8(value.count + 1))
            out.append(type)
            out.append(contentsOf: value)
        }
        if let flags { add(0x01, [flags]) }
        let short = serviceUUIDs.compactMap(\.short)
        if !short.isEmpty { add(0x03, short.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) }
        let long = serviceUUIDs.filter { $0.short == nil }
        if !long.isEmpty { add(0x07, long.flatMap(\.littleEndian)) }
        if let appearance { add(0x19, [UInt8(appearance & 0xFF), UInt8(appearance >> 8)]) }
        if let txPower { add(0x0A, [UInt8(bitPattern: txPower)]) }
        for (company, data) in manufacturerData.sorted(by: { $0.key < $1.key }) {
            add(0xFF, [UInt8(company & 0xFF), UInt8(company >> 8)] + data)
        }
        if let name { add(nameIsComplete ? 0x09 : 0x08, Array(name.utf8)) }
        return out
    }
}

/// Why advertising data could not be decoded.
public enum AdvertisingDataError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An AD structure's length byte claims more bytes than remain.
    case structureOverrun(offset: Int, length: Int, available: Int)
    /// A structure of a fixed-size type has the wrong length.
    case badLength(type: UInt8, length: Int, offset: Int)

    public var description: String {
        switch self {
        case .structureOverrun(let offset, let length, let available):
            "AD structure at byte \(offset) claims \(length) bytes but only \(available) remain"
        case .badLength(let type, let length, let offset):
            "AD type 0x\(Hex.encode([type])) at byte \(offset) has a value of \(length) bytes, which that type cannot have"
        }
    }
}
