import CPackSystem
import Foundation
import PackSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the pack's Wi-Fi is doing, as the system reports it.
public struct WirelessState: Hashable, Sendable {
    /// Associated (and, for wpa_supplicant, authenticated) with an access point.
    public var associated: Bool
    /// The network's name while associated.
    public var ssid: String?
    /// Where this came from and what it said, for `handoff sync status`.
    public var detail: String

    public init(associated: Bool, ssid: String? = nil, detail: String) {
        self.associated = associated
        self.ssid = ssid
        self.detail = detail
    }
}

/// How the pack learns which Wi-Fi it is on (docs/sync.md explains the choice).
public enum NetworkSource: String, Hashable, Sendable, CaseIterable {
    /// wpa_supplicant's control socket when there is one, else `iw`.
    case auto
    /// wpa_supplicant's control socket (`/run/wpa_supplicant/IFACE`): events as they happen.
    /// Raspberry Pi OS up to Bullseye, and any image where wpa_supplicant runs with a control
    /// interface.
    case wpaSupplicant = "wpa_supplicant"
    /// The kernel's own answer (nl80211) through `iw dev IFACE link`, read again whenever the
    /// kernel announces a link or address change over rtnetlink. Works whatever manages Wi-Fi:
    /// NetworkManager (Raspberry Pi OS Bookworm), dhcpcd, systemd-networkd.
    case iw
    /// Always home: a pack on a wired network, or a test bench.
    case always
}

/// Which networks are home.
public struct HomePolicy: Hashable, Sendable {
    public var ssids: [String]
    public var source: NetworkSource
    /// Upload from any network (never, unless a person configured it).
    public var uploadAway: Bool

    public init(ssids: [String], source: NetworkSource, uploadAway: Bool = false) {
        self.ssids = ssids
        self.source = source
        self.uploadAway = uploadAway
    }

    /// Whether uploads may go out on this network.
    public func allowsUpload(_ state: WirelessState) -> Bool {
        if source == .always || uploadAway { return true }
        guard state.associated, let ssid = state.ssid else { return false }
        return ssids.contains(ssid)
    }

    /// In words, for status: "home (HomeNet)", "away (on CafeWifi)", "no Wi-Fi".
    public func describe(_ state: WirelessState) -> String {
        if source == .always { return "home (configured as always home)" }
        guard state.associated else { return "away (not on Wi-Fi)" + (uploadAway ? "; uploads from anywhere" : "") }
        let name = state.ssid ?? "?"
        if ssids.contains(name) { return "home (\(name))" }
        if ssids.isEmpty { return "away (on \(name); no home network is set: `handoff sync home` makes it one)" }
        return "away (on \(name))" + (uploadAway ? "; uploads from anywhere" : "")
    }
}

// MARK: Parsing what the system prints

public enum WirelessText {
    /// wpa_supplicant's `STATUS` reply: associated when `wpa_state=COMPLETED`.
    public static func wpaStatus(_ text: String, interface: String) -> WirelessState {
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        let state = fields["wpa_state"] ?? "UNKNOWN"
        let associated = state == "COMPLETED"
        return WirelessState(
            associated: associated, ssid: associated ? fields["ssid"].map(unescape) : nil,
            detail: "wpa_supplicant on \(interface): \(state)")
    }

    /// `iw dev IFACE link`: "Connected to … (on wlan0)" and a tab-indented "SSID: name", or
    /// "Not connected.".
    public static func iwLink(_ text: String, interface: String) -> WirelessState {
        if text.hasPrefix("Connected to") {
            let ssid = text.split(separator: "\n").lazy.map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix("SSID: ") }.map { unescape(String($0.dropFirst(6))) }
            return WirelessState(associated: true, ssid: ssid, detail: "iw on \(interface): connected")
        }
        let first = text.split(separator: "\n").first.map(String.init) ?? "no answer"
        return WirelessState(associated: false, detail: "iw on \(interface): \(first)")
    }

    /// Both tools print unusual SSID bytes as `\xNN` (and wpa_supplicant `\\`, `\"`, `\n`, `\t`,
    /// `\r`, `\e`); the name compared with home_ssids is the bytes, as UTF-8.
    public static func unescape(_ text: String) -> String {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "\\"), let next = input.first else {
                bytes.append(byte)
                continue
            }
            switch next {
            case UInt8(ascii: "x"):
                let hex = input.dropFirst().prefix(2)
                if hex.count == 2, let value = UInt8(String(decoding: hex, as: UTF8.self), radix: 16) {
                    bytes.append(value)
                    input = input.dropFirst(3)
                } else {
                    bytes.append(byte)
                }
            case UInt8(ascii: "n"): bytes.append(10); input = input.dropFirst()
            case UInt8(ascii: "t"): bytes.append(9); input = input.dropFirst()
            case UInt8(ascii: "r"): bytes.append(13); input = input.dropFirst()
            case UInt8(ascii: "e"): bytes.append(27); input = input.dropFirst()
            case UInt8(ascii: "\\"), UInt8(ascii: "\""): bytes.append(next); input = input.dropFirst()
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

// MARK: Watching

/// Watches the Wi-Fi association from a thread of its own and calls `onChange` when it changes.
/// Event-driven: it sleeps in `poll(2)` until wpa_supplicant or the kernel says something
/// happened, so an idle pack wakes no more than once a minute (a liveness check).
public final class NetworkMonitor: Sendable {
    public let source: NetworkSource
    public let interface: String
    /// wpa_supplicant's control directory (`/run/wpa_supplicant`).
    public let wpaDirectory: String
    /// The `iw` program.
    public let iwPath: String
    private let onChange: @Sendable (WirelessState) -> Void
    private let latest: Mutex<WirelessState>
    private let stopped = Atomic<Bool>(false)

    public init(
        source: NetworkSource, interface: String, wpaDirectory: String = "/run/wpa_supplicant", iwPath: String = "iw",
        onChange: @escaping @Sendable (WirelessState) -> Void
    ) {
        self.source = source
        self.interface = interface
        self.wpaDirectory = wpaDirectory
        self.iwPath = iwPath
        self.onChange = onChange
        latest = Mutex(
            source == .always
                ? WirelessState(associated: true, detail: "always home")
                : WirelessState(associated: false, detail: "not read yet"))
    }

    public var state: WirelessState { latest.withLock { $0 } }

    /// The source `auto` resolves to on this system.
    public var effectiveSource: NetworkSource {
        guard source == .auto else { return source }
        var info = stat()
        let path = wpaDirectory + "/" + interface
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK ? .wpaSupplicant : .iw
    }

    public func start() {
        let source = effectiveSource
        guard source != .always else { return }
        let thread = Thread { [self] in
            switch source {
            case .wpaSupplicant: watchWPASupplicant()
            default: watchKernel()
            }
        }
        thread.name = "wifi-monitor"
        thread.start()
    }

    public func stop() { stopped.store(true, ordering: .releasing) }

    /// The association now, read once (`handoffd --doctor`, which runs no monitor).
    public func readOnce() -> WirelessState {
        switch effectiveSource {
        case .always: return WirelessState(associated: true, detail: "always home")
        case .wpaSupplicant:
            let server = wpaDirectory + "/" + interface
            do {
                let control = try WPAControlSocket(server: server)
                return WirelessText.wpaStatus(try control.request("STATUS"), interface: interface)
            } catch {
                return WirelessState(
                    associated: false, detail: "wpa_supplicant's control socket \(server) does not answer (\(error))")
            }
        default: return readIW()
        }
    }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    private func publish(_ state: WirelessState) {
        let changed = latest.withLock { old in
            defer { old = state }
            return old != state
        }
        if changed { onChange(state) }
    }

    /// Sleeps up to `seconds`, waking early when stopped.
    private func pause(seconds: Int) {
        for _ in 0..<(seconds * 5) where !isStopped { usleep(200_000) }
    }

    private func watchWPASupplicant() {
        let server = wpaDirectory + "/" + interface
        while !isStopped {
            do {
                let events = try WPAControlSocket(server: server)
                let control = try WPAControlSocket(server: server)
                guard try events.request("ATTACH").hasPrefix("OK") else {
                    throw SystemError(call: "ATTACH", errno: EPROTO, subject: server)
                }
                publish(WirelessText.wpaStatus(try control.request("STATUS"), interface: interface))
                var quietSeconds = 0
                while !isStopped {
                    if let event = try events.receive(timeoutMilliseconds: 1000) {
                        quietSeconds = 0
                        if event.contains("CTRL-EVENT-TERMINATING") {
                            throw SystemError(call: "wpa_supplicant", errno: ECONNRESET, subject: "terminating")
                        }
                        if event.contains("CTRL-EVENT-CONNECTED") || event.contains("CTRL-EVENT-DISCONNECTED")
                            || event.contains("CTRL-EVENT-SSID-") || event.contains("CTRL-EVENT-NETWORK-NOT-FOUND")
                        {
                            publish(WirelessText.wpaStatus(try control.request("STATUS"), interface: interface))
                        }
                    } else {
                        quietSeconds += 1
                        // A wpa_supplicant that restarted forgets who attached: ask it now and then.
                        if quietSeconds >= 60 {
                            quietSeconds = 0
                            publish(WirelessText.wpaStatus(try control.request("STATUS"), interface: interface))
                            _ = try events.request("PING")
                        }
                    }
                }
            } catch {
                publish(
                    WirelessState(
                        associated: false,
                        detail:
                            "wpa_supplicant's control socket \(server) does not answer (\(error)); trying again every 5 s"
                    ))
                pause(seconds: 5)
            }
        }
    }

    private func watchKernel() {
        let netlink = pack_netlink_route_socket()
        defer { if netlink >= 0 { close(netlink) } }
        publish(readIW())
        var sinceRead = 0
        var buffer = [UInt8](repeating: 0, count: 8192)
        while !isStopped {
            var changed = false
            if netlink >= 0 {
                var descriptor = pollfd(fd: netlink, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, 1000) > 0 {
                    while recv(netlink, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
                    changed = true
                }
            } else {
                usleep(1_000_000)
            }
            sinceRead += 1
            // Association finishes a moment after the link comes up: read after things settle,
            // and every 5 minutes in case a change was missed.
            if changed {
                usleep(500_000)
                while recv(netlink, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
            }
            if changed || sinceRead >= 300 {
                sinceRead = 0
                publish(readIW())
            }
        }
    }

    private func readIW() -> WirelessState {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [iwPath, "dev", interface, "link"]
        process.standardOutput = output
        process.standardError = output
        do { try process.run() } catch {
            return WirelessState(
                associated: false, detail: "cannot run iw (\(error)): install it with `apt install iw`")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        if process.terminationStatus != 0 {
            let said = text.split(separator: "\n").first.map(String.init) ?? "exit \(process.terminationStatus)"
            return WirelessState(associated: false, detail: "iw dev \(interface) link failed: \(said)")
        }
        return WirelessText.iwLink(text, interface: interface)
    }
}

/// A client of wpa_supplicant's control interface: a Unix datagram socket bound to a path of our
/// own and connected to `/run/wpa_supplicant/IFACE`. Replies come back to the bound path;
/// unsolicited events (after ATTACH) start with `<level>`.
final class WPAControlSocket {
    let descriptor: Int32
    let localPath: String
    static let counter = Atomic<Int>(0)

    init(server: String) throws(SystemError) {
        descriptor = try syscall("socket") {
            socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        let number = Self.counter.wrappingAdd(1, ordering: .relaxed).newValue
        localPath = "\(NSTemporaryDirectory())handoff-wpa-\(getpid())-\(number)"
        unlink(localPath)
        do {
            var local = try UnixSocket.socketAddress(localPath)
            try syscall("bind", subject: localPath) {
                withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
            var remote = try UnixSocket.socketAddress(server)
            try syscall("connect", subject: server) {
                withUnsafePointer(to: &remote) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
        } catch {
            close(descriptor)
            unlink(localPath)
            throw error
        }
    }

    deinit {
        close(descriptor)
        unlink(localPath)
    }

    /// Sends a command and returns its reply, skipping events that arrive meanwhile.
    func request(_ command: String, timeoutMilliseconds: Int32 = 2000) throws(SystemError) -> String {
        let bytes = Array(command.utf8)
        try syscall("send", subject: command) { send(descriptor, bytes, bytes.count, 0) }
        while true {
            guard let reply = try receive(timeoutMilliseconds: timeoutMilliseconds) else {
                throw SystemError(call: command, errno: ETIMEDOUT, subject: localPath)
            }
            if !reply.hasPrefix("<") { return reply }
        }
    }

    /// One datagram, or `nil` after the timeout.
    func receive(timeoutMilliseconds: Int32) throws(SystemError) -> String? {
        var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
        let ready = try syscall("poll") { poll(&descriptor, 1, timeoutMilliseconds) }
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = try syscall("recv") { recv(self.descriptor, &buffer, buffer.count, 0) }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}
