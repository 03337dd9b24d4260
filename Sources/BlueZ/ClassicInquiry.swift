import CBlueZ
import PackSystem
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// A Class of Device (Assigned Numbers §2.8): 24 bits, the major and minor device class and the
/// major service classes.
public struct ClassOfDevice: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue & 0xFF_FFFF }

    /// Three bytes, little-endian, as HCI events carry them.
    public init(littleEndian b: some Collection<UInt8>) {
        self.init(rawValue: b.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    public var major: UInt8 { UInt8((rawValue >> 8) & 0x1F) }
    public var minor: UInt8 { UInt8((rawValue >> 2) & 0x3F) }

    public var majorName: String {
        switch major {
        case 0x00: "miscellaneous"
        case 0x01: "computer"
        case 0x02: "phone"
        case 0x03: "network access point"
        case 0x04: "audio/video"
        case 0x05: "peripheral"
        case 0x06: "imaging"
        case 0x07: "wearable"
        case 0x08: "toy"
        case 0x09: "health"
        case 0x1F: "uncategorized"
        default: "reserved (\(major))"
        }
    }

    /// The minor class where it says what a strap is (health devices).
    public var minorName: String? {
        guard major == 0x09 else { return nil }
        return switch minor {
        case 0x01: "blood pressure monitor"
        case 0x02: "thermometer"
        case 0x03: "weighing scale"
        case 0x04: "glucose meter"
        case 0x05: "pulse oximeter"
        case 0x06: "heart/pulse rate monitor"
        case 0x07: "health data display"
        case 0x08: "step counter"
        default: nil
        }
    }

    public var description: String {
        let hex = String(rawValue, radix: 16)
        let text = [majorName, minorName].compactMap { $0 }.joined(separator: ", ")
        return "0x" + String(repeating: "0", count: max(0, 6 - hex.count)) + hex + " (\(text))"
    }
}

/// A classic device found by an inquiry.
public struct InquiryResult: Hashable, Sendable {
    public var address: BluetoothAddress
    public var classOfDevice: ClassOfDevice
    public var rssi: Int8?
    /// From the extended inquiry response, or a remote name request.
    public var name: String?
    /// Service classes the extended inquiry response lists.
    public var serviceUUIDs: [BluetoothUUID] = []

    public init(
        address: BluetoothAddress, classOfDevice: ClassOfDevice, rssi: Int8? = nil, name: String? = nil,
        serviceUUIDs: [BluetoothUUID] = []
    ) {
        self.address = address
        self.classOfDevice = classOfDevice
        self.rssi = rssi
        self.name = name
        self.serviceUUIDs = serviceUUIDs
    }
}

/// What one HCI event means to an inquiry (Core Vol 4 Part E §7.7). Pure: the tests feed it
/// scripted event bytes, since no virtual controller here answers an inquiry.
public enum InquiryEvent: Hashable, Sendable {
    /// Inquiry Result (0x02), with RSSI (0x22) or Extended (0x2F): devices found.
    case found([InquiryResult])
    /// Remote Name Request Complete (0x07).
    case name(BluetoothAddress, String?, status: UInt8)
    /// Inquiry Complete (0x01).
    case complete(status: UInt8)
    /// Command Status (0x0F) for `opcode`.
    case commandStatus(opcode: UInt16, status: UInt8)
    /// Another event, or one too short to read.
    case other(code: UInt8)

    public static let inquiryComplete: UInt8 = 0x01
    public static let inquiryResult: UInt8 = 0x02
    public static let remoteNameComplete: UInt8 = 0x07
    public static let commandStatusCode: UInt8 = 0x0F
    public static let inquiryResultWithRSSI: UInt8 = 0x22
    public static let extendedInquiryResult: UInt8 = 0x2F

    /// Decodes an event's code and parameters. Results are laid out one device after another,
    /// as the kernel reads them; a count that does not fit the length yields no devices.
    public init(code: UInt8, parameters p: [UInt8]) {
        func address(_ i: Int) -> BluetoothAddress { BluetoothAddress(littleEndian: p[i..<(i + 6)])! }
        switch code {
        case Self.inquiryComplete where p.count >= 1:
            self = .complete(status: p[0])
        case Self.commandStatusCode where p.count >= 4:
            self = .commandStatus(opcode: UInt16(p[2]) | UInt16(p[3]) << 8, status: p[0])
        case Self.remoteNameComplete where p.count >= 7:
            let name = p[7...].prefix { $0 != 0 }
            self = .name(address(1), p[0] == 0 ? String(decoding: name, as: UTF8.self) : nil, status: p[0])
        case Self.inquiryResult where p.count >= 1:
            // address, page scan repetition mode, 2 reserved, class of device (3), clock offset (2)
            let n = Int(p[0])
            guard p.count - 1 >= n * 14 else { self = .found([]); return }
            self = .found(
                (0..<n).map { k in
                    let i = 1 + 14 * k
                    return InquiryResult(
                        address: address(i), classOfDevice: ClassOfDevice(littleEndian: p[(i + 9)..<(i + 12)]))
                })
        case Self.inquiryResultWithRSSI where p.count >= 1:
            // address, repetition mode, 1 reserved, class (3), clock offset (2), RSSI; some
            // controllers send the older 15-byte layout with one more reserved byte.
            let n = Int(p[0])
            let size = p.count - 1 == n * 15 ? 15 : 14
            guard n > 0, p.count - 1 >= n * size else { self = .found([]); return }
            let classAt = size == 15 ? 9 : 8
            self = .found(
                (0..<n).map { k in
                    let i = 1 + size * k
                    return InquiryResult(
                        address: address(i),
                        classOfDevice: ClassOfDevice(littleEndian: p[(i + classAt)..<(i + classAt + 3)]),
                        rssi: Int8(bitPattern: p[i + size - 1]))
                })
        case Self.extendedInquiryResult where p.count >= 15:
            // One device: address, repetition mode, reserved, class (3), clock offset (2), RSSI,
            // then 240 bytes of extended inquiry response in the advertising data format.
            var result = InquiryResult(
                address: address(1), classOfDevice: ClassOfDevice(littleEndian: p[9..<12]),
                rssi: Int8(bitPattern: p[14]))
            // A malformed EIR loses its name and services, not the device.
            if let eir = try? AdvertisingData(decoding: Array(p[15...])) {
                result.name = eir.name
                result.serviceUUIDs = eir.serviceUUIDs
            }
            self = .found([result])
        default:
            self = .other(code: code)
        }
    }
}

/// Collects an inquiry's events into one list of devices, merging repeats (a device answers
/// several times; a later name or RSSI wins).
public struct InquiryResults: Sendable {
    public private(set) var devices: [BluetoothAddress: InquiryResult] = [:]
    public private(set) var complete = false
    public private(set) var failure: UInt8?

    public init() {}

    public mutating func add(_ event: InquiryEvent) {
        switch event {
        case .found(let results):
            for result in results {
                var merged = devices[result.address] ?? result
                merged.classOfDevice = result.classOfDevice
                if let rssi = result.rssi { merged.rssi = rssi }
                if let name = result.name, !name.isEmpty { merged.name = name }
                if !result.serviceUUIDs.isEmpty { merged.serviceUUIDs = result.serviceUUIDs }
                devices[result.address] = merged
            }
        case .name(let address, let name, let status):
            if status == 0, let name, !name.isEmpty, devices[address] != nil { devices[address]!.name = name }
        case .complete(let status):
            complete = true
            if status != 0 { failure = status }
        case .commandStatus(let opcode, let status):
            if opcode == ClassicScanner.inquiryOpcode, status != 0 {
                complete = true
                failure = status
            }
        case .other: break
        }
    }

    /// Devices without a name yet, which a remote name request can ask.
    public var unnamed: [BluetoothAddress] { devices.values.filter { $0.name == nil }.map(\.address).sorted() }

    /// Strongest first, then by address.
    public var sorted: [InquiryResult] {
        devices.values.sorted { ($0.rssi ?? -128, $1.address) > ($1.rssi ?? -128, $0.address) }
    }
}

/// Runs an inquiry on a raw HCI socket (CAP_NET_RAW), then asks the names the devices did not
/// send. The kernel allows one inquiry at a time; bluetoothd's discovery uses the same radio.
public enum ClassicScanner {
    static let inquiryOpcode: UInt16 = 0x0401
    static let remoteNameRequestOpcode: UInt16 = 0x0419

    public static func inquire(
        adapter: BluetoothAdapter, seconds: Double, nameTimeout: Double = 5, stop: () -> Bool = { false }
    ) throws(BlueZError) -> [InquiryResult] {
        let dd = hci_open_dev(Int32(adapter.index))
        guard dd >= 0 else {
            let code = errno
            if code == EPERM || code == EACCES {
                throw .permissionDenied(what: "run a Bluetooth inquiry", capability: "CAP_NET_RAW")
            }
            throw .system(call: "hci_open_dev(\(adapter.name))", errno: code)
        }
        defer { hci_close_dev(dd) }
        var filter = hci_filter()
        hci_filter_clear(&filter)
        hci_filter_set_ptype(HCI_EVENT_PKT, &filter)
        for event in [
            InquiryEvent.inquiryComplete, InquiryEvent.inquiryResult, InquiryEvent.remoteNameComplete,
            InquiryEvent.commandStatusCode, InquiryEvent.inquiryResultWithRSSI, InquiryEvent.extendedInquiryResult,
        ] {
            hci_filter_set_event(Int32(event), &filter)
        }
        guard setsockopt(dd, SOL_HCI, HCI_FILTER, &filter, socklen_t(MemoryLayout<hci_filter>.size)) == 0 else {
            throw .system(call: "setsockopt(HCI_FILTER)", errno: errno)
        }
        // General inquiry access code 0x9E8B33; length in 1.28 s units (1–48); unlimited responses.
        let length = UInt8(max(1, min(48, (seconds / 1.28).rounded(.up))))
        try send(dd, opcode: inquiryOpcode, [0x33, 0x8B, 0x9E, length, 0], name: "Inquiry")
        var results = InquiryResults()
        let deadline = LEScanner.monotonicSeconds() + Double(length) * 1.28 + 2
        try readEvents(dd, until: deadline, stop: stop) { event in
            results.add(event)
            return results.complete
        }
        if let failure = results.failure { throw .commandFailed(command: "Inquiry", status: failure) }
        for address in results.unnamed {
            if stop() { break }
            // Page scan repetition mode R2, clock offset unknown.
            let request = address.littleEndian + [0x02, 0x00, 0x00, 0x00]
            guard (try? send(dd, opcode: remoteNameRequestOpcode, request, name: "Remote Name Request")) != nil else {
                continue
            }
            try readEvents(dd, until: LEScanner.monotonicSeconds() + nameTimeout, stop: stop) { event in
                results.add(event)
                if case .name(let named, _, _) = event { return named == address }
                return false
            }
        }
        return results.sorted
    }

    /// Writes a command; the event loop sees its Command Status.
    static func send(_ dd: Int32, opcode: UInt16, _ parameters: [UInt8], name: String) throws(BlueZError) {
        let (sent, code) = retryingEINTR {
            parameters.withUnsafeBytes {
                Int32(
                    hci_send_cmd(
                        dd, opcode >> 10, opcode & 0x3FF, UInt8($0.count),
                        UnsafeMutableRawPointer(mutating: $0.baseAddress)))
            }
        }
        guard sent >= 0 else { throw .system(call: "hci_send_cmd(\(name))", errno: code) }
    }

    /// Reads events until `done` says so, the deadline passes or `stop` is set.
    static func readEvents(
        _ dd: Int32, until deadline: Double, stop: () -> Bool, _ done: (InquiryEvent) -> Bool
    ) throws(BlueZError) {
        var buffer = [UInt8](repeating: 0, count: Int(HCI_MAX_EVENT_SIZE) + 1)
        while !stop() {
            let left = deadline - LEScanner.monotonicSeconds()
            guard left > 0 else { return }
            var pfd = pollfd(fd: dd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(min(left, 0.2) * 1000) + 1) > 0 else { continue }
            let (n, code) = retryingEINTR { buffer.withUnsafeMutableBytes { read(dd, $0.baseAddress, $0.count) } }
            guard n >= 0 else { throw .system(call: "read(HCI)", errno: code) }
            // Packet type (0x04), event code, parameter length, parameters.
            guard n >= 3, buffer[0] == UInt8(HCI_EVENT_PKT) else { continue }
            let length = min(Int(buffer[2]), n - 3)
            if done(InquiryEvent(code: buffer[1], parameters: Array(buffer[3..<(3 + length)]))) { return }
        }
    }
}
