import CBlueZ
import GATT
import PackSystem
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// The security a link asks for (the kernel's `BT_SECURITY` levels): `low` needs no pairing;
/// `medium` makes the kernel encrypt the link, pairing first if need be.
public enum LinkSecurity: Int32, Sendable {
    case low = 1
    case medium = 2
    case high = 3
}

/// An ATT bearer on a SOCK_SEQPACKET file descriptor: an L2CAP LE socket on the ATT channel
/// (CID 4) in the pack, one end of `socketpair(AF_UNIX, SOCK_SEQPACKET)` in tests. Each read
/// and write carries one PDU. Owns the descriptor and closes it.
public final class SocketATTBearer: ATTBearer {
    public let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1024)
    private var closed = false
    /// Polled while waiting: when it returns true, a wait ends with ECANCELED, so that a sensor's
    /// thread stops promptly even inside a 30-second ATT transaction.
    public var isCancelled: (@Sendable () -> Bool)?

    /// Adopts `fd`, which must be a SEQPACKET socket.
    public init(adopting fd: Int32) {
        self.fd = fd
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        _ = Glibc.close(fd)
    }

    public func send(_ pdu: [UInt8]) throws(ATTBearerError) {
        var waited = 0
        while true {
            let (written, code) = retryingEINTR {
                pdu.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            if written >= 0 { return }
            if code == EAGAIN, waited < 50 {
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&pfd, 1, 100)
                waited += 1
                continue
            }
            throw Self.error(code, "send")
        }
    }

    public func receive(timeout: Double) throws(ATTBearerError) -> [UInt8]? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN) | pollReadHangUp, revents: 0)
        var left = max(0, min(timeout, 3600))
        while true {
            if let isCancelled, isCancelled() { throw ATTBearerError(errno: ECANCELED, message: "stopped") }
            let slice = isCancelled == nil ? left : min(left, 0.2)
            let ready = poll(&pfd, 1, Int32(slice * 1000))
            if ready < 0 {
                if errno == EINTR { return nil }
                throw Self.error(errno, "poll")
            }
            if ready > 0 { break }
            left -= slice
            if left <= 0 { return nil }
        }
        let (count, code) = retryingEINTR { buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
        if count < 0 {
            if code == EAGAIN { return nil }
            throw Self.error(code, "recv")
        }
        if count == 0 {
            // Zero bytes is the end of the stream when the peer has shut down (POLLRDHUP, POLLHUP);
            // otherwise it was a zero-length PDU, which the client counts as malformed.
            var again = pollfd(fd: fd, events: Int16(POLLIN) | pollReadHangUp, revents: 0)
            _ = poll(&again, 1, 0)
            let hangUp = Int16(POLLHUP) | pollReadHangUp | Int16(POLLERR)
            if (pfd.revents | again.revents) & hangUp != 0 {
                throw ATTBearerError(errno: ECONNRESET, message: "the link was closed")
            }
            return []
        }
        return Array(buffer[0..<count])
    }

    /// Names the ways a Bluetooth link ends (the kernel maps HCI disconnect reasons to errno).
    static func error(_ code: Int32, _ call: String) -> ATTBearerError {
        let reason =
            switch code {
            case ETIMEDOUT: "the link timed out (supervision timeout: the sensor went out of range or off)"
            case ECONNRESET: "the sensor closed the connection"
            case ECONNABORTED: "the Bluetooth adapter went down or was reset"
            case ENOSYS:
                "the controller ended the link (HCI 0x3B unacceptable connection parameters, or 0x3E failed to be established)"
            case EHOSTDOWN, EHOSTUNREACH: "the sensor is unreachable"
            case ENETDOWN, ENODEV: "the Bluetooth adapter went down"
            case EACCES: "the link's security was refused (pairing failed)"
            default: "\(call): \(String(cString: strerror(code)))"
            }
        return ATTBearerError(errno: code, message: reason)
    }
}

/// Opens the ATT channel to an LE device: an L2CAP socket on CID 4 (Core Vol 3 Part A §2.1).
public enum L2CAPConnector {
    /// Connects within `timeout` seconds. The kernel connects when the device next advertises;
    /// `stop` is polled every 100 ms so that a supervisor can give up at once.
    public static func connectATT(
        to address: BluetoothAddress, type: BluetoothAddressType, adapter: BluetoothAdapter? = nil,
        security: LinkSecurity = .low, timeout: Double, stop: () -> Bool = { false }
    ) throws(BlueZError) -> SocketATTBearer {
        let fd = socket(
            AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            BTPROTO_L2CAP)
        guard fd >= 0 else {
            let code = errno
            if code == EAFNOSUPPORT { throw .noBluetoothInKernel }
            throw .system(call: "socket(BTPROTO_L2CAP)", errno: code)
        }
        var ok = false
        defer { if !ok { close(fd) } }

        var local = sockaddr_l2()
        local.l2_family = sa_family_t(AF_BLUETOOTH)
        local.l2_cid = Self.attCID.littleEndian
        local.l2_bdaddr_type = UInt8(BDADDR_LE_PUBLIC)
        if let adapter { local.l2_bdaddr = bdaddr(adapter.address) }
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_l2>.size))
            }
        }
        guard bound == 0 else { throw .system(call: "bind(L2CAP ATT)", errno: errno) }

        // Low is the socket's default; setting a level that is already met can fail with EINVAL.
        if security != .low {
            var level = bt_security(level: UInt8(security.rawValue), key_size: 0)
            guard setsockopt(fd, SOL_BLUETOOTH, BT_SECURITY, &level, socklen_t(MemoryLayout<bt_security>.size)) == 0
            else { throw .system(call: "setsockopt(BT_SECURITY)", errno: errno) }
        }

        var remote = sockaddr_l2()
        remote.l2_family = sa_family_t(AF_BLUETOOTH)
        remote.l2_cid = Self.attCID.littleEndian
        remote.l2_bdaddr = bdaddr(address)
        remote.l2_bdaddr_type = UInt8(type == .leRandom ? BDADDR_LE_RANDOM : BDADDR_LE_PUBLIC)
        try ClassicConnector.connect(fd, &remote, address: address, timeout: timeout, stop: stop) { map($0, address) }
        ok = true
        return SocketATTBearer(adopting: fd)
    }

    /// The ATT fixed channel.
    static let attCID: UInt16 = 0x0004

    static func map(_ code: Int32, _ address: BluetoothAddress) -> BlueZError {
        switch code {
        case EPERM, EACCES: .permissionDenied(what: "connect to Bluetooth LE devices", capability: "CAP_NET_ADMIN")
        case ENETDOWN: .adapterDown("the adapter")
        default: .connectFailed(address: address.description, errno: code)
        }
    }

    static func bdaddr(_ address: BluetoothAddress) -> bdaddr_t {
        let b = address.littleEndian
        return bdaddr_t(b: (b[0], b[1], b[2], b[3], b[4], b[5]))
    }
}

/// `POLLRDHUP` (Linux, `_GNU_SOURCE` only in C, so not imported): the peer shut its writing side.
let pollReadHangUp: Int16 = 0x2000
