#if canImport(Glibc)
    import Glibc
#endif

/// Why the pack could not use Bluetooth, said so that a runner can act on it.
public enum BlueZError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kernel has no Bluetooth (`socket(AF_BLUETOOTH, …)` fails with EAFNOSUPPORT).
    case noBluetoothInKernel
    /// No adapter, or not the one named.
    case noAdapter(String?)
    /// The adapter exists but is powered off (or blocked by rfkill).
    case adapterDown(String)
    /// The process may not do `what` (it needs `capability`).
    case permissionDenied(what: String, capability: String)
    /// The controller refused an HCI command with a status code (Core Vol 1 Part F).
    case commandFailed(command: String, status: UInt8)
    /// A system call failed in a way the cases above do not explain.
    case system(call: String, errno: Int32)
    /// The device did not answer a connection attempt in time: out of range, asleep, or
    /// connected to something else (most straps take one connection at a time).
    case connectTimedOut(address: String, seconds: Double)
    /// A connection attempt failed with `errno`.
    case connectFailed(address: String, errno: Int32)
    /// A classic (BR/EDR) connection attempt failed with `errno`.
    case classicConnectFailed(address: String, errno: Int32)
    /// An established link ended (`errno` says how).
    case linkLost(errno: Int32)
    /// The device's SDP server sent something we could not use.
    case sdp(address: String, SDP.Failure)
    /// The device has no Serial Port service with an RFCOMM channel.
    case noSerialPort(address: String, records: Int)
    /// Stopped by the caller.
    case cancelled

    public var description: String {
        switch self {
        case .noBluetoothInKernel:
            "this kernel has no Bluetooth support (socket(AF_BLUETOOTH) is refused): load it with `sudo modprobe bluetooth` or use a kernel built with CONFIG_BT"
        case .noAdapter(let name?):
            "there is no Bluetooth adapter \(name): list adapters with `btmgmt info` (or `hciconfig`) and set bluetooth.adapter in handoff.toml"
        case .noAdapter(nil):
            "no Bluetooth adapter was found: on a Raspberry Pi check that the on-board Bluetooth is enabled (hciuart.service, no dtoverlay=disable-bt); elsewhere plug in an adapter"
        case .adapterDown(let name):
            "the Bluetooth adapter \(name) is powered off: power it on with `bluetoothctl power on` (or `sudo btmgmt --index \(name.dropFirst(3)) power on`), and check `rfkill list`"
        case .permissionDenied(let what, let capability):
            "no permission to \(what): run handoffd with \(capability) (the systemd unit grants it, see hw/bluetooth.md) or as root"
        case .commandFailed(let command, let status):
            "the Bluetooth controller refused \(command): \(Self.statusText(status)) (HCI status 0x\(String(status, radix: 16, uppercase: true)))"
        case .system(let call, let code):
            "\(call) failed: \(String(cString: strerror(code)))"
        case .connectTimedOut(let address, let seconds):
            "\(address) did not answer within \(Int(seconds)) s: is it awake, in range (a strap wakes when worn or its contacts are wet), and not connected to a phone or watch?"
        case .connectFailed(let address, let code):
            "could not connect to \(address): \(Self.connectReason(code))"
        case .classicConnectFailed(let address, let code):
            "could not connect to \(address): \(Self.classicConnectReason(code))"
        case .linkLost(let code): Self.linkLostReason(code)
        case .sdp(let address, let failure): "service discovery on \(address) failed: \(failure)"
        case .noSerialPort(let address, let records):
            "\(address) offers no Serial Port service (\(records) record\(records == 1 ? "" : "s") found): is it a classic heart-rate strap? Set its RFCOMM channel with `handoff pair ADDRESS --as … --channel N` if you know it"
        case .cancelled: "cancelled"
        }
    }

    /// Why a classic connection failed, and what to do.
    static func classicConnectReason(_ code: Int32) -> String {
        switch code {
        case EHOSTDOWN, ETIMEDOUT:
            "it did not answer (page timeout): wear the strap (it sleeps while its contacts are dry), keep it near the pack, and disconnect it from any phone"
        case ECONNREFUSED:
            "it refused the RFCOMM channel: the channel may have changed; pair again so that it is looked up by SDP"
        case EACCES, EPERM:
            "authentication failed: wrong PIN, or the strap forgot the pairing; pair again (`handoff pair ADDRESS --as … --pin PIN`)"
        case ECONNRESET, ECONNABORTED: "it closed the connection (busy with another device?)"
        case EBUSY, EALREADY: "the adapter is busy with another connection attempt; try again"
        case ENETDOWN, ENODEV: "the adapter went down"
        default: String(cString: strerror(code))
        }
    }

    /// How an established link ended.
    static func linkLostReason(_ code: Int32) -> String {
        switch code {
        case ETIMEDOUT: "the link timed out (supervision timeout: the strap went out of range or off)"
        case ECONNRESET: "the strap closed the connection"
        case ECONNABORTED: "the Bluetooth adapter went down or was reset"
        case EHOSTDOWN, EHOSTUNREACH: "the strap is unreachable"
        case ENETDOWN, ENODEV: "the Bluetooth adapter went down"
        case EACCES: "the link's security was refused (pairing failed)"
        default: "the link ended: \(String(cString: strerror(code)))"
        }
    }

    /// The HCI status codes a scanner or connector meets.
    static func statusText(_ status: UInt8) -> String {
        switch status {
        case 0x01: "unknown command (the controller does not support it)"
        case 0x0C: "command disallowed (the adapter is busy: another scan or connection attempt is running)"
        case 0x11: "unsupported feature or parameter"
        case 0x12: "invalid parameters"
        default: "error"
        }
    }

    static func connectReason(_ code: Int32) -> String {
        switch code {
        case ETIMEDOUT, EHOSTDOWN, EHOSTUNREACH:
            "it is out of range or not advertising (\(String(cString: strerror(code))))"
        case ECONNREFUSED:
            "it did not advertise in time, or LE is off on the adapter (`sudo btmgmt le on`; handoffd turns it on when it may)"
        case EBUSY:
            "another program (bluetoothd?) already holds this sensor's GATT channel: disconnect it there (`bluetoothctl disconnect ADDRESS`)"
        case ENOSYS: "the controller could not establish the link (HCI 0x3E)"
        case ECONNRESET: "it dropped the connection"
        case EALREADY: "the adapter is busy with another connection attempt; try again"
        case ENETDOWN, ENODEV: "the adapter went down"
        case EACCES, EPERM: "no permission (see hw/bluetooth.md)"
        default: String(cString: strerror(code))
        }
    }
}
