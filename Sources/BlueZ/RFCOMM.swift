import CBlueZ
import PackSystem
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// A classic strap's serial stream: a kernel RFCOMM socket (`SOCK_STREAM`, `BTPROTO_RFCOMM`).
/// Reads return whatever bytes arrived, split anyhow; the framers put frames back together.
/// Owns the descriptor and closes it.
public final class RFCOMMStream {
    public let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1024)
    private var closed = false

    /// Adopts a connected stream socket (tests use one end of a Unix socket pair).
    public init(adopting fd: Int32) { self.fd = fd }

    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        _ = Glibc.close(fd)
    }

    /// The bytes that arrive within `timeout` seconds: `[]` when none did. Throws when the link
    /// ends (the strap went out of range or off, or closed the channel).
    public func read(timeout: Double) throws(BlueZError) -> [UInt8] {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN) | pollReadHangUp, revents: 0)
        let (ready, pollError) = pollOnce(&pfd, timeoutMilliseconds: Int32(max(0, min(timeout, 3600)) * 1000))
        if pollError != 0 { throw .system(call: "poll(RFCOMM)", errno: pollError) }
        if ready == 0 { return [] }
        let (count, code) = retryingEINTR { buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
        if count < 0 {
            if code == EAGAIN { return [] }
            throw .linkLost(errno: code)
        }
        // A stream socket reads zero bytes only at its end.
        if count == 0 { throw .linkLost(errno: ECONNRESET) }
        return Array(buffer[0..<count])
    }

    /// The ACL link's handle (RFCOMM_CONNINFO), for HCI commands about this link.
    public var aclHandle: UInt16? {
        var info = rfcomm_conninfo()
        var length = socklen_t(MemoryLayout<rfcomm_conninfo>.size)
        guard getsockopt(fd, SOL_RFCOMM, RFCOMM_CONNINFO, &info, &length) == 0 else { return nil }
        return info.hci_handle
    }

    /// Writes all of `bytes` (some straps take commands).
    public func write(_ bytes: [UInt8]) throws(BlueZError) {
        var sent = 0
        while sent < bytes.count {
            let (n, code) = retryingEINTR {
                bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            guard n > 0 else { throw .linkLost(errno: code) }
            sent += n
        }
    }
}

/// Opens RFCOMM channels and SDP sessions to classic (BR/EDR) devices.
public enum ClassicConnector {
    /// Connects to `channel` (1–30) on `address` within `timeout` seconds. `security` medium makes
    /// the kernel authenticate and encrypt the link first (pairing if there is no link key: the
    /// PIN or confirmation request goes to whoever answers mgmt events, see `PairingResponder`).
    public static func connectRFCOMM(
        to address: BluetoothAddress, channel: UInt8, adapter: BluetoothAdapter? = nil,
        security: LinkSecurity = .medium, timeout: Double, stop: () -> Bool = { false }
    ) throws(BlueZError) -> RFCOMMStream {
        let fd = try openSocket(Int32(SOCK_STREAM.rawValue), BTPROTO_RFCOMM, "RFCOMM")
        var ok = false
        defer { if !ok { close(fd) } }
        var local = sockaddr_rc()
        local.rc_family = sa_family_t(AF_BLUETOOTH)
        if let adapter { local.rc_bdaddr = L2CAPConnector.bdaddr(adapter.address) }
        try bind(fd, &local, "RFCOMM")
        if security != .low {
            var level = bt_security(level: UInt8(security.rawValue), key_size: 0)
            guard setsockopt(fd, SOL_BLUETOOTH, BT_SECURITY, &level, socklen_t(MemoryLayout<bt_security>.size)) == 0
            else { throw .system(call: "setsockopt(BT_SECURITY)", errno: errno) }
        }
        var remote = sockaddr_rc()
        remote.rc_family = sa_family_t(AF_BLUETOOTH)
        remote.rc_bdaddr = L2CAPConnector.bdaddr(address)
        remote.rc_channel = channel
        try connect(fd, &remote, address: address, timeout: timeout, stop: stop)
        ok = true
        return RFCOMMStream(adopting: fd)
    }

    /// Asks the device's SDP server for its Serial Port records (one Service Search Attribute
    /// transaction, following continuations) within `timeout` seconds.
    public static func serialPortRecords(
        of address: BluetoothAddress, adapter: BluetoothAdapter? = nil, timeout: Double = 15,
        stop: () -> Bool = { false }
    ) throws(BlueZError) -> [SDP.Record] {
        let deadline = LEScanner.monotonicSeconds() + timeout
        let fd = try openSocket(Int32(SOCK_SEQPACKET.rawValue), BTPROTO_L2CAP, "L2CAP")
        defer { close(fd) }
        var local = sockaddr_l2()
        local.l2_family = sa_family_t(AF_BLUETOOTH)
        local.l2_bdaddr_type = UInt8(BDADDR_BREDR)
        if let adapter { local.l2_bdaddr = L2CAPConnector.bdaddr(adapter.address) }
        try bind(fd, &local, "L2CAP SDP")
        var remote = sockaddr_l2()
        remote.l2_family = sa_family_t(AF_BLUETOOTH)
        remote.l2_psm = UInt16(1).littleEndian  // SDP
        remote.l2_bdaddr = L2CAPConnector.bdaddr(address)
        remote.l2_bdaddr_type = UInt8(BDADDR_BREDR)
        try connect(fd, &remote, address: address, timeout: timeout, stop: stop)

        var lists: [UInt8] = []
        var continuation: [UInt8] = []
        var transaction: UInt16 = 1
        var reply = [UInt8](repeating: 0, count: 4096)
        repeat {
            let request = SDP.serviceSearchAttributeRequest(
                uuid: SDP.serialPort, transaction: transaction, continuation: continuation)
            let (written, code) = retryingEINTR {
                request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            guard written == request.count else { throw .linkLost(errno: code) }
            var count = 0
            while true {
                if stop() { throw .cancelled }
                let left = deadline - LEScanner.monotonicSeconds()
                guard left > 0 else { throw .connectTimedOut(address: address.description, seconds: timeout) }
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, Int32(min(left, 0.2) * 1000) + 1) > 0 else { continue }
                let (n, readError) = retryingEINTR {
                    reply.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                }
                guard n > 0 else { throw .linkLost(errno: n == 0 ? ECONNRESET : readError) }
                count = n
                break
            }
            do {
                let (part, next) = try SDP.parseResponse(Array(reply[0..<count]), transaction: transaction)
                lists += part
                continuation = next
            } catch {
                throw .sdp(address: address.description, error)
            }
            guard lists.count <= 65_536 else { throw .sdp(address: address.description, .tooLong(bytes: lists.count)) }
            transaction &+= 1
        } while !continuation.isEmpty
        do { return try SDP.parseRecords(lists) } catch { throw .sdp(address: address.description, error) }
    }

    /// The RFCOMM channel of the device's first Serial Port service.
    public static func serialPortChannel(
        of address: BluetoothAddress, adapter: BluetoothAdapter? = nil, timeout: Double = 15,
        stop: () -> Bool = { false }
    ) throws(BlueZError) -> (channel: UInt8, name: String?) {
        let records = try serialPortRecords(of: address, adapter: adapter, timeout: timeout, stop: stop)
        for record in records where record.serviceClasses.contains(BluetoothUUID(SDP.serialPort)) {
            if let channel = record.rfcommChannel { return (channel, record.name) }
        }
        throw .noSerialPort(address: address.description, records: records.count)
    }

    static func openSocket(_ type: Int32, _ proto: Int32, _ name: String) throws(BlueZError) -> Int32 {
        let fd = socket(AF_BLUETOOTH, type | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), proto)
        guard fd >= 0 else {
            let code = errno
            if code == EAFNOSUPPORT || code == EPROTONOSUPPORT { throw .noBluetoothInKernel }
            throw .system(call: "socket(\(name))", errno: code)
        }
        return fd
    }

    static func bind<Address>(_ fd: Int32, _ address: inout Address, _ name: String) throws(BlueZError) {
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
        guard bound == 0 else { throw .system(call: "bind(\(name))", errno: errno) }
    }

    /// Starts a non-blocking connect and waits for it, polling `stop` every 100 ms; `mapError`
    /// says what a failure's errno means (LE and classic links fail differently).
    static func connect<Address>(
        _ fd: Int32, _ remote: inout Address, address: BluetoothAddress, timeout: Double, stop: () -> Bool,
        mapError: ((Int32) -> BlueZError)? = nil
    ) throws(BlueZError) {
        func failure(_ code: Int32) -> BlueZError { mapError?(code) ?? classicConnectError(code, address) }
        let started = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
        if started == 0 { return }
        let code = errno
        guard code == EINPROGRESS || code == EAGAIN else { throw failure(code) }
        let deadline = LEScanner.monotonicSeconds() + timeout
        while true {
            if stop() { throw .cancelled }
            let left = deadline - LEScanner.monotonicSeconds()
            if left <= 0 { throw .connectTimedOut(address: address.description, seconds: timeout) }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let (ready, pollError) = pollOnce(&pfd, timeoutMilliseconds: Int32(min(left, 0.1) * 1000) + 1)
            if pollError != 0 { throw .system(call: "poll(connect)", errno: pollError) }
            if ready > 0 { break }
        }
        var soError: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
        if soError != 0 { throw failure(soError) }
    }

    static func classicConnectError(_ code: Int32, _ address: BluetoothAddress) -> BlueZError {
        switch code {
        case EPERM: .permissionDenied(what: "connect to Bluetooth devices", capability: "CAP_NET_ADMIN")
        case ENETDOWN: .adapterDown("the adapter")
        default: .classicConnectFailed(address: address.description, errno: code)
        }
    }
}

extension ClassicConnector {
    /// Sets the link's supervision timeout (HCI Write Link Supervision Timeout; the central may),
    /// in milliseconds: how long the controllers wait before declaring a silent link lost. The
    /// BR/EDR default is 20 s, far longer than a runner waits to be told the strap is gone.
    /// Returns whether the controller accepted it.
    public static func setSupervisionTimeout(
        _ milliseconds: Double, handle: UInt16, adapter: BluetoothAdapter
    ) -> Bool {
        let dd = hci_open_dev(Int32(adapter.index))
        guard dd >= 0 else { return false }
        defer { hci_close_dev(dd) }
        // Units of 0.625 ms (a baseband slot), 0x0001–0xFFFF.
        let slots = UInt16(max(1, min(65_535, (milliseconds / 0.625).rounded())))
        return hci_write_link_supervision_timeout(dd, handle, slots, 2000) == 0
    }

    /// Pages the device with a Remote Name Request before any socket is opened: `nil` when it
    /// does not answer (page timeout). On Debian's 6.1.0-56 kernel, closing an L2CAP or RFCOMM
    /// socket whose connection failed with Page Timeout corrupts the kernel's connection list
    /// (list_del corruption, Bluetooth gone until reboot), so a strap that may be away is
    /// probed this way first; the name request creates no L2CAP channel.
    public static func probe(_ address: BluetoothAddress, adapter: BluetoothAdapter) -> String? {
        remoteName(of: address, adapter: adapter, timeout: 7)
    }

    /// The device's name (HCI Remote Name Request), quick while a link to it is up; `nil` when
    /// it does not answer in time.
    public static func remoteName(
        of address: BluetoothAddress, adapter: BluetoothAdapter, timeout: Double = 5
    ) -> String? {
        let dd = hci_open_dev(Int32(adapter.index))
        guard dd >= 0 else { return nil }
        defer { hci_close_dev(dd) }
        var target = L2CAPConnector.bdaddr(address)
        var name = [CChar](repeating: 0, count: 249)
        guard hci_read_remote_name(dd, &target, 248, &name, Int32(timeout * 1000)) == 0 else { return nil }
        let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }
}
