import SensorCodecs

/// One advertising report from an HCI LE Meta event: legacy (LE Advertising Report, subevent
/// 0x02, Core 5.4 Vol 4 Part E §7.7.65.2) or extended (subevent 0x0D, §7.7.65.13). A controller
/// that supports extended advertising may send extended reports even to a legacy scan.
public struct LEAdvertisingReport: Hashable, Sendable {
    public var address: BluetoothAddress
    public var addressType: BluetoothAddressType
    /// Connectable advertising (ADV_IND, ADV_DIRECT_IND, or an extended connectable event).
    public var connectable: Bool
    /// A scan response rather than an advertisement.
    public var isScanResponse: Bool
    /// dBm; `nil` when the controller says it is not available (127).
    public var rssi: Int8?
    public var data: [UInt8]

    public init(
        address: BluetoothAddress, addressType: BluetoothAddressType, connectable: Bool, isScanResponse: Bool,
        rssi: Int8?, data: [UInt8]
    ) {
        self.address = address
        self.addressType = addressType
        self.connectable = connectable
        self.isScanResponse = isScanResponse
        self.rssi = rssi
        self.data = data
    }

    /// The reports in an HCI event packet as a raw HCI socket delivers it:
    /// `04 3E <len> <subevent> …`. Other events give no reports; malformed ones throw.
    public static func reports(inPacket packet: [UInt8]) throws(HCIEventError) -> [LEAdvertisingReport] {
        guard packet.count >= 3, packet[0] == 0x04 else { return [] }
        guard packet[1] == 0x3E else { return [] }
        let length = Int(packet[2])
        guard packet.count >= 3 + length, length >= 1 else {
            throw .truncated(what: "LE Meta event", needed: 3 + max(length, 1), have: packet.count)
        }
        let parameters = Array(packet[4..<(3 + length)])
        switch packet[3] {
        case 0x02: return try legacy(parameters)
        case 0x0D: return try extended(parameters)
        default: return []
        }
    }

    static func legacy(_ p: [UInt8]) throws(HCIEventError) -> [LEAdvertisingReport] {
        guard let count = p.first else { throw .truncated(what: "advertising report", needed: 1, have: 0) }
        var reports: [LEAdvertisingReport] = []
        var i = 1
        for _ in 0..<count {
            // event type, address type, address (6), data length, data, RSSI
            guard i + 9 <= p.count else { throw .truncated(what: "advertising report", needed: i + 9, have: p.count) }
            let eventType = p[i]
            let dataLength = Int(p[i + 8])
            guard i + 9 + dataLength + 1 <= p.count else {
                throw .truncated(what: "advertising report data", needed: i + 10 + dataLength, have: p.count)
            }
            guard let type = BluetoothAddressType(hciLEAddressType: p[i + 1]) else {
                throw .badValue(what: "advertiser address type", value: p[i + 1])
            }
            let rssi = Int8(bitPattern: p[i + 9 + dataLength])
            reports.append(
                LEAdvertisingReport(
                    address: BluetoothAddress(littleEndian: p[(i + 2)..<(i + 8)])!, addressType: type,
                    connectable: eventType == 0x00 || eventType == 0x01, isScanResponse: eventType == 0x04,
                    rssi: rssi == 127 ? nil : rssi, data: Array(p[(i + 9)..<(i + 9 + dataLength)])))
            i += 10 + dataLength
        }
        return reports
    }

    static func extended(_ p: [UInt8]) throws(HCIEventError) -> [LEAdvertisingReport] {
        guard let count = p.first else { throw .truncated(what: "extended advertising report", needed: 1, have: 0) }
        var reports: [LEAdvertisingReport] = []
        var i = 1
        for _ in 0..<count {
            // event type (2), address type, address (6), primary PHY, secondary PHY, SID, TX power,
            // RSSI, periodic interval (2), direct address type, direct address (6), data length, data
            guard i + 24 <= p.count else {
                throw .truncated(what: "extended advertising report", needed: i + 24, have: p.count)
            }
            let eventType = UInt16(p[i]) | UInt16(p[i + 1]) << 8
            let dataLength = Int(p[i + 23])
            guard i + 24 + dataLength <= p.count else {
                throw .truncated(what: "extended advertising report data", needed: i + 24 + dataLength, have: p.count)
            }
            // 0xFF: anonymous advertising, no address: nothing a pack can connect to.
            if let type = BluetoothAddressType(hciLEAddressType: p[i + 2]) {
                let rssi = Int8(bitPattern: p[i + 13])
                reports.append(
                    LEAdvertisingReport(
                        address: BluetoothAddress(littleEndian: p[(i + 3)..<(i + 9)])!, addressType: type,
                        connectable: eventType & 0x01 != 0, isScanResponse: eventType & 0x08 != 0,
                        rssi: rssi == 127 ? nil : rssi, data: Array(p[(i + 24)..<(i + 24 + dataLength)])))
            }
            i += 24 + dataLength
        }
        return reports
    }
}

/// What a scan found of one device, merged over its advertisements and scan responses.
public struct ScannedDevice: Hashable, Sendable {
    public var address: BluetoothAddress
    public var addressType: BluetoothAddressType
    public var advertising = AdvertisingData()
    /// The strongest signal heard, in dBm.
    public var rssi: Int8?
    public var connectable = false
    /// How many reports were merged.
    public var reports = 0
    /// Reports whose advertising data could not be decoded (kept out of `advertising`).
    public var malformedReports = 0

    public init(address: BluetoothAddress, addressType: BluetoothAddressType) {
        self.address = address
        self.addressType = addressType
    }

    /// Folds a report in. Malformed data is counted and left out.
    public mutating func merge(_ report: LEAdvertisingReport) {
        reports += 1
        if let r = report.rssi, rssi.map({ r > $0 }) ?? true { rssi = r }
        if report.connectable { connectable = true }
        var updated = advertising
        do {
            try updated.merge(report.data)
            advertising = updated
        } catch {
            malformedReports += 1
        }
    }
}

/// Merges reports into devices, one per address, in the order first heard.
public struct ScanResults: Sendable {
    public private(set) var devices: [ScannedDevice] = []
    private var index: [BluetoothAddress: Int] = [:]

    public init() {}

    public mutating func add(_ report: LEAdvertisingReport) {
        if let i = index[report.address] {
            devices[i].merge(report)
        } else {
            var device = ScannedDevice(address: report.address, addressType: report.addressType)
            device.merge(report)
            index[report.address] = devices.count
            devices.append(device)
        }
    }
}

/// Why an HCI event could not be read.
public enum HCIEventError: Error, Hashable, Sendable, CustomStringConvertible {
    case truncated(what: String, needed: Int, have: Int)
    case badValue(what: String, value: UInt8)

    public var description: String {
        switch self {
        case .truncated(let what, let needed, let have): "\(what) needs \(needed) bytes, the event has \(have)"
        case .badValue(let what, let value): "\(what) 0x\(Hex.encode([value])) is not defined"
        }
    }
}
