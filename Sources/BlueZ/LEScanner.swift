import CBlueZ
import PackSystem
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// An LE scan on a raw HCI socket (the way `hcitool lescan` does it): set the scan parameters,
/// enable scanning, read LE Meta events through a socket filter, then disable scanning and put
/// the socket filter back.
///
/// When the kernel already scans (it scans passively for paired devices it is connecting to), the
/// controller refuses our commands with "command disallowed"; the scan then listens to the
/// reports the kernel's own scan produces instead of failing, and leaves that scan alone.
public struct LEScanner: Sendable {
    public var adapter: BluetoothAdapter
    /// Passive by default. An active scan would also get scan responses (where some sensors put
    /// their name), but a raw active scan leaves the kernel believing a discovery is running, after
    /// which it stops scanning for the devices it should connect to (hw/bluetooth.md).
    public var active = false
    /// Scan interval and window in units of 0.625 ms (Core Vol 4 Part E §7.8.10).
    public var interval: UInt16 = 0x0060
    public var window: UInt16 = 0x0030

    public init(adapter: BluetoothAdapter) { self.adapter = adapter }

    /// How a scan went.
    public struct Outcome: Sendable {
        public var results: ScanResults
        /// The kernel was scanning already and we only listened (no scan responses then).
        public var sharedKernelScan: Bool
        /// Which commands the scan used: `legacy` or `extended`.
        public var commands: String
        /// HCI events that could not be parsed.
        public var malformedEvents: Int
    }

    /// Scans for `seconds`, calling `onReport` with every report as it arrives. `stop` is polled
    /// every 100 ms.
    public func scan(
        seconds: Double, stop: () -> Bool = { false }, onReport: (LEAdvertisingReport) -> Void = { _ in }
    ) throws(BlueZError) -> Outcome {
        let dd = hci_open_dev(Int32(adapter.index))
        guard dd >= 0 else {
            let code = errno
            if code == EAFNOSUPPORT { throw .noBluetoothInKernel }
            throw .system(call: "hci_open_dev(\(adapter.name))", errno: code)
        }
        defer { close(dd) }

        var saved = hci_filter()
        var savedLength = socklen_t(MemoryLayout<hci_filter>.size)
        guard getsockopt(dd, SOL_HCI, HCI_FILTER, &saved, &savedLength) == 0 else {
            throw .system(call: "getsockopt(HCI_FILTER)", errno: errno)
        }

        var commands = "legacy"
        var enabled = false
        var shared = false
        do {
            try send(
                dd, ocf: 0x000B, Self.legacyParameters(active: active, interval: interval, window: window),
                name: "LE Set Scan Parameters")
            try send(dd, ocf: 0x000C, [0x01, 0x00], name: "LE Set Scan Enable")
            enabled = true
        } catch .commandFailed(_, 0x0C) {
            // Disallowed: either the kernel scans right now, or it drove the controller with the
            // extended commands (a controller then refuses the legacy ones until reset).
            do {
                try send(
                    dd, ocf: 0x0041, Self.extendedParameters(active: active, interval: interval, window: window),
                    name: "LE Set Extended Scan Parameters")
                try send(dd, ocf: 0x0042, [0x01, 0x00, 0x00, 0x00, 0x00, 0x00], name: "LE Set Extended Scan Enable")
                enabled = true
                commands = "extended"
            } catch .commandFailed(_, let status) where status == 0x0C || status == 0x01 {
                shared = true
            }
        }
        defer {
            if enabled {
                if commands == "extended" {
                    try? send(
                        dd, ocf: 0x0042, [0x00, 0x00, 0x00, 0x00, 0x00, 0x00], name: "LE Set Extended Scan Enable")
                } else {
                    try? send(dd, ocf: 0x000C, [0x00, 0x00], name: "LE Set Scan Enable")
                }
            }
            var restore = saved
            _ = setsockopt(dd, SOL_HCI, HCI_FILTER, &restore, socklen_t(MemoryLayout<hci_filter>.size))
        }

        var filter = hci_filter()
        hci_filter_clear(&filter)
        hci_filter_set_ptype(HCI_EVENT_PKT, &filter)
        hci_filter_set_event(EVT_LE_META_EVENT, &filter)
        guard setsockopt(dd, SOL_HCI, HCI_FILTER, &filter, socklen_t(MemoryLayout<hci_filter>.size)) == 0 else {
            throw .system(call: "setsockopt(HCI_FILTER)", errno: errno)
        }

        var results = ScanResults()
        var malformed = 0
        var buffer = [UInt8](repeating: 0, count: Int(HCI_MAX_EVENT_SIZE) + 1)
        let deadline = Self.monotonicSeconds() + seconds
        while !stop() {
            let left = deadline - Self.monotonicSeconds()
            if left <= 0 { break }
            var pfd = pollfd(fd: dd, events: Int16(POLLIN), revents: 0)
            let (ready, pollError) = pollOnce(&pfd, timeoutMilliseconds: Int32(min(left, 0.1) * 1000) + 1)
            if pollError != 0 { throw .system(call: "poll(HCI socket)", errno: pollError) }
            if ready == 0 { continue }
            let (count, code) = retryingEINTR { buffer.withUnsafeMutableBytes { read(dd, $0.baseAddress, $0.count) } }
            if count < 0 {
                if code == EAGAIN { continue }
                if code == ENETDOWN || code == ENODEV { throw .adapterDown(adapter.name) }
                throw .system(call: "read(HCI socket)", errno: code)
            }
            do {
                for report in try LEAdvertisingReport.reports(inPacket: Array(buffer[0..<count])) {
                    results.add(report)
                    onReport(report)
                }
            } catch {
                malformed += 1
            }
        }
        return Outcome(results: results, sharedKernelScan: shared, commands: commands, malformedEvents: malformed)
    }

    /// Sends an LE controller command and checks the status in its Command Complete.
    func send(_ dd: Int32, ocf: UInt16, _ parameters: [UInt8], name: String) throws(BlueZError) {
        var cparam = parameters
        var status: UInt8 = 0xFF
        let result = cparam.withUnsafeMutableBytes { c in
            withUnsafeMutableBytes(of: &status) { r in
                var request = hci_request()
                request.ogf = UInt16(OGF_LE_CTL)
                request.ocf = ocf
                request.cparam = c.baseAddress
                request.clen = Int32(c.count)
                request.rparam = r.baseAddress
                request.rlen = 1
                return hci_send_req(dd, &request, 2000)
            }
        }
        if result < 0 {
            let code = errno
            if code == EPERM || code == EACCES {
                throw .permissionDenied(
                    what: "send Bluetooth HCI commands (to scan)", capability: "CAP_NET_RAW and CAP_NET_ADMIN")
            }
            if code == ENETDOWN { throw .adapterDown(adapter.name) }
            if code == EIO { throw .commandFailed(command: name, status: 0x0C) }  // a Command Status with an error
            throw .system(call: "hci_send_req(\(name))", errno: code)
        }
        guard status == 0 else { throw .commandFailed(command: name, status: status) }
    }

    static func legacyParameters(active: Bool, interval: UInt16, window: UInt16) -> [UInt8] {
        [
            active ? 0x01 : 0x00, UInt8(interval & 0xFF), UInt8(interval >> 8), UInt8(window & 0xFF),
            UInt8(window >> 8),
            0x00,  // own address: public
            0x00,  // accept all advertisements
        ]
    }

    static func extendedParameters(active: Bool, interval: UInt16, window: UInt16) -> [UInt8] {
        [
            0x00,  // own address: public
            0x00,  // accept all
            0x01,  // LE 1M PHY
            active ? 0x01 : 0x00, UInt8(interval & 0xFF), UInt8(interval >> 8), UInt8(window & 0xFF),
            UInt8(window >> 8),
        ]
    }

    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
