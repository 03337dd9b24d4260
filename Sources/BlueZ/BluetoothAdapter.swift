import CBlueZ
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// A local Bluetooth controller as the kernel lists it (`hci0`, …).
public struct BluetoothAdapter: Hashable, Sendable {
    /// The kernel's device index (the N of hciN).
    public var index: Int32
    public var name: String
    public var address: BluetoothAddress
    /// Powered on (the kernel's HCI_UP flag).
    public var isUp: Bool

    /// The adapter named (`hci0`), or the first one, preferring one that is powered on.
    public static func find(_ name: String? = nil) throws(BlueZError) -> BluetoothAdapter {
        try checkKernelSupport()
        if let name {
            let index = hci_devid(name)
            guard index >= 0, let adapter = info(index) else { throw .noAdapter(name) }
            return adapter
        }
        var first: BluetoothAdapter?
        for index in Int32(0)..<16 {
            guard let adapter = info(index) else { continue }
            if adapter.isUp { return adapter }
            if first == nil { first = adapter }
        }
        guard let first else { throw .noAdapter(nil) }
        return first
    }

    /// Like `find`, and the adapter must be powered on.
    public static func findUp(_ name: String? = nil) throws(BlueZError) -> BluetoothAdapter {
        let adapter = try find(name)
        guard adapter.isUp else { throw .adapterDown(adapter.name) }
        return adapter
    }

    static func info(_ index: Int32) -> BluetoothAdapter? {
        var di = hci_dev_info()
        guard hci_devinfo(Int32(index), &di) == 0 else { return nil }
        let name = withUnsafeBytes(of: di.name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let address = withUnsafeBytes(of: di.bdaddr.b) { BluetoothAddress(littleEndian: Array($0))! }
        return BluetoothAdapter(
            index: index, name: name.isEmpty ? "hci\(index)" : name, address: address,
            isUp: di.flags & (1 << UInt32(HCI_UP)) != 0)
    }

    /// Throws `noBluetoothInKernel` when the kernel refuses Bluetooth sockets.
    public static func checkKernelSupport() throws(BlueZError) {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        if fd < 0 {
            let code = errno
            if code == EAFNOSUPPORT { throw .noBluetoothInKernel }
            if code == EPERM || code == EACCES {
                throw .permissionDenied(what: "open a Bluetooth HCI socket", capability: "CAP_NET_RAW")
            }
            throw .system(call: "socket(AF_BLUETOOTH)", errno: code)
        }
        close(fd)
    }
}
