import CBlueZ
import PackSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's Bluetooth management interface (BlueZ `doc/mgmt-api.txt`) on an
/// `HCI_CHANNEL_CONTROL` socket: what bluetoothd uses to power adapters and set defaults. The pack
/// uses it for the few settings it needs when bluetoothd does not make them (CAP_NET_ADMIN).
public final class ManagementSocket {
    let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1024)

    public init() throws(BlueZError) {
        fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard fd >= 0 else {
            if errno == EAFNOSUPPORT { throw .noBluetoothInKernel }
            throw .system(call: "socket(HCI control)", errno: errno)
        }
        var address = sockaddr_hci(
            hci_family: sa_family_t(AF_BLUETOOTH), hci_dev: UInt16(HCI_DEV_NONE),
            hci_channel: UInt16(HCI_CHANNEL_CONTROL))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .system(call: "bind(HCI control)", errno: code)
        }
    }

    deinit { close(fd) }

    /// mgmt opcodes the pack uses.
    public enum Opcode: UInt16, Sendable {
        case setPowered = 0x0005
        case setLowEnergy = 0x000D
        case setDefaultSystemConfiguration = 0x004C
    }

    /// Sends a command and waits (2 s) for its Command Complete or Command Status; returns the
    /// status (0 is success, 0x14 permission denied, 0x11 invalid index…).
    @discardableResult
    public func send(_ opcode: Opcode, index: Int32, _ parameters: [UInt8]) throws(BlueZError) -> UInt8 {
        var packet: [UInt8] = []
        for v in [opcode.rawValue, UInt16(truncatingIfNeeded: index), UInt16(parameters.count)] {
            packet.append(UInt8(v & 0xFF))
            packet.append(UInt8(v >> 8))
        }
        packet += parameters
        let (written, code) = retryingEINTR { packet.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } }
        guard written == packet.count else { throw .system(call: "write(mgmt)", errno: code) }
        let deadline = LEScanner.monotonicSeconds() + 2
        while true {
            let left = deadline - LEScanner.monotonicSeconds()
            guard left > 0 else { throw .system(call: "mgmt \(opcode)", errno: ETIMEDOUT) }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(left * 1000) + 1) > 0 else { continue }
            let (count, readError) = retryingEINTR {
                buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            }
            guard count >= 0 else { throw .system(call: "read(mgmt)", errno: readError) }
            // Header: event (2), index (2), length (2); Command Complete 0x0001 / Status 0x0002
            // then carry the opcode (2) and the status (1).
            guard count >= 9 else { continue }
            let event = UInt16(buffer[0]) | UInt16(buffer[1]) << 8
            let answered = UInt16(buffer[6]) | UInt16(buffer[7]) << 8
            if (event == 0x0001 || event == 0x0002) && answered == opcode.rawValue { return buffer[8] }
        }
    }

    /// Writes a command without waiting for its answer (replies to pairing requests, whose
    /// Command Complete the event loop reads and ignores).
    public func write(opcode: UInt16, index: UInt16, _ parameters: [UInt8]) throws(BlueZError) {
        var packet: [UInt8] = []
        for v in [opcode, index, UInt16(parameters.count)] {
            packet.append(UInt8(v & 0xFF))
            packet.append(UInt8(v >> 8))
        }
        packet += parameters
        let (written, code) = retryingEINTR { packet.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } }
        guard written == packet.count else { throw .system(call: "write(mgmt)", errno: code) }
    }

    /// The next event within `timeout` seconds: its code, controller index and parameters.
    public func nextEvent(timeout: Double) throws(BlueZError) -> (code: UInt16, index: UInt16, parameters: [UInt8])? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(max(0, timeout) * 1000)) > 0 else { return nil }
        let (count, code) = retryingEINTR { buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
        guard count >= 0 else { throw .system(call: "read(mgmt)", errno: code) }
        guard count >= 6 else { return nil }
        let length = min(Int(UInt16(buffer[4]) | UInt16(buffer[5]) << 8), count - 6)
        return (
            UInt16(buffer[0]) | UInt16(buffer[1]) << 8, UInt16(buffer[2]) | UInt16(buffer[3]) << 8,
            Array(buffer[6..<(6 + length)])
        )
    }

    /// LE connection defaults (Set Default System Configuration, TLV types 0x0017–0x001A): the
    /// intervals in 1.25 ms units, the supervision timeout in 10 ms units.
    public func setLEConnectionDefaults(
        index: Int32, minInterval: UInt16, maxInterval: UInt16, latency: UInt16, supervisionTimeout: UInt16
    ) throws(BlueZError) -> UInt8 {
        var tlv: [UInt8] = []
        for (type, value) in [
            (UInt16(0x0017), minInterval), (0x0018, maxInterval), (0x0019, latency), (0x001A, supervisionTimeout),
        ] {
            tlv += [UInt8(type & 0xFF), UInt8(type >> 8), 2, UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        return try send(.setDefaultSystemConfiguration, index: index, tlv)
    }
}
