import Foundation
import PackControl
import PackSync
import PackSystem
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Stands in for wpa_supplicant's control interface (this machine has no Wi-Fi): a Unix datagram
/// socket at `DIR/wlan0` that answers ATTACH, STATUS and PING as wpa_supplicant does and sends
/// attached clients `<3>CTRL-EVENT-…` lines. The pack's side is the real code.
final class SimulatedWPASupplicant: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    private let status = Mutex("wpa_state=DISCONNECTED\naddress=02:00:00:00:00:00\n")
    private let attached = Mutex<[String]>([])
    private let stopped = Atomic<Bool>(false)
    let commands = Mutex<[String]>([])

    init(directory: String, interface: String = "wlan0") throws {
        path = directory + "/" + interface
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = try UnixSocket.socketAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
    }

    func associate(ssid: String) {
        status.withLock {
            $0 =
                "bssid=02:00:00:00:01:00\nfreq=2412\nssid=\(ssid)\nid=0\nmode=station\nkey_mgmt=WPA2-PSK\nwpa_state=COMPLETED\nip_address=192.168.1.20\n"
        }
        broadcast("<3>CTRL-EVENT-CONNECTED - Connection to 02:00:00:00:01:00 completed [id=0 id_str=]")
    }

    func disassociate() {
        status.withLock { $0 = "wpa_state=DISCONNECTED\naddress=02:00:00:00:00:00\n" }
        broadcast("<3>CTRL-EVENT-DISCONNECTED bssid=02:00:00:00:01:00 reason=3 locally_generated=1")
    }

    private func broadcast(_ event: String) {
        for client in attached.withLock({ $0 }) { reply(event, to: client) }
    }

    private func reply(_ text: String, to client: String) {
        guard var address = try? UnixSocket.socketAddress(client) else { return }
        let bytes = Array(text.utf8)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    private func serve() {
        defer {
            close(descriptor)
            unlink(path)
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopped.load(ordering: .acquiring) {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            var source = sockaddr_un()
            var length = socklen_t(MemoryLayout<sockaddr_un>.size)
            let count = withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(descriptor, &buffer, buffer.count, 0, $0, &length)
                }
            }
            guard count > 0 else { continue }
            let client = withUnsafeBytes(of: &source.sun_path) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            let command = String(decoding: buffer[..<count], as: UTF8.self)
            commands.withLock { $0.append(command) }
            switch command {
            case "ATTACH":
                attached.withLock { $0.append(client) }
                reply("OK\n", to: client)
            case "DETACH":
                attached.withLock { $0.removeAll { $0 == client } }
                reply("OK\n", to: client)
            case "STATUS": reply(status.withLock { $0 }, to: client)
            case "PING": reply("PONG\n", to: client)
            default: reply("UNKNOWN COMMAND\n", to: client)
            }
        }
    }
}

@Suite("Home Wi-Fi (real time: netlink and wpa_supplicant's socket, and the worker waking on them)", .serialized)
struct HomeWifiTests {
    /// Waits until `condition` holds, up to `seconds`; returns how long it took, or nil.
    static func within(_ seconds: Double, _ condition: () async throws -> Bool) async throws -> Double? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(seconds) {
            if try await condition() {
                let elapsed = (ContinuousClock.now - start).components
                return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// A test that finds, once running, that this machine cannot do what it needs (no root for a
    /// veth pair): it fails where system programs are required (scripts/test, CI), and elsewhere
    /// records the reason as a warning and is cancelled, so that the run reports a skip, not a pass.
    static func cannotRun(_ reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Never {
        if SystemPrograms.required {
            Issue.record("\(reason) (\(SystemPrograms.environmentVariable) is set)", sourceLocation: sourceLocation)
        } else {
            Issue.record("Not run: \(reason)", severity: .warning, sourceLocation: sourceLocation)
        }
        try Test.cancel("Not run: \(reason)", sourceLocation: sourceLocation)
    }

    @Test(
        "Joining home Wi-Fi starts a sync (the join itself: away, the worker has no timer); away (no Wi-Fi, or another network) nothing is attempted (wpa_supplicant simulated at its control socket)"
    )
    func leavingAndRejoining() async throws {
        try await LiveStore.run { store in
            let token = try await store.signUp("wanda")
            let proxy = try FaultProxy(upstreamPort: store.port, seed: 1)
            proxy.setFaults(false)
            defer { proxy.stop() }
            let pack = try TestPack("wanda", policy: HomePolicy(ssids: ["HomeNet"], source: .wpaSupplicant))
            let wpa = try SimulatedWPASupplicant(directory: pack.directory.path)
            defer { wpa.stop() }
            try await pack.link(to: LiveStore(client: store.client, port: proxy.port), approvingWith: token)
            let worker = pack.worker
            let monitor = NetworkMonitor(source: .auto, interface: "wlan0", wpaDirectory: pack.directory.path) {
                state in
                Task { await worker.networkChanged(state) }
            }
            #expect(monitor.effectiveSource == .wpaSupplicant)
            monitor.start()
            defer { monitor.stop() }
            let running = Task { await worker.run() }
            let requestsAfterLinking = proxy.requests.withLock { $0.count }
            var random = SeededRandom(seed: 5)
            let first = try pack.addRuns(1, first: nowWall, random: &random)
            worker.wakeup.poke()

            // Away: not on Wi-Fi, then on a café's. The worker looks (a whole pass after the run
            // was added, each time), and not one request leaves the pack.
            #expect(try await worker.lookedAgain(), "the worker made no pass without Wi-Fi")
            #expect(proxy.requests.withLock { $0.count } == requestsAfterLinking)
            wpa.associate(ssid: "CafeWifi")
            let onCafe = try await Self.within(60) { await worker.status().network.description == "away (on CafeWifi)" }
            #expect(onCafe != nil)
            #expect(try await worker.lookedAgain(), "the worker made no pass on CafeWifi")
            #expect(proxy.requests.withLock { $0.count } == requestsAfterLinking)
            #expect(await worker.status().phase == .away)

            // Home: the run goes. Away, the worker sleeps until poked (no retry falls due), so the
            // sync is the join's doing; the deadline is only how long the test waits.
            wpa.associate(ssid: "HomeNet")
            let firstSync = try await Self.within(120) { try pack.database.outboxTotals().waiting == 0 }
            #expect(firstSync != nil, "no sync within 120 s of joining home Wi-Fi")
            #expect(Set(try await store.runs(token).keys) == Set(first.keys))

            // Leave, record another run: it waits. Come back: it goes.
            wpa.disassociate()
            let left = try await Self.within(60) { await worker.status().network.home == false }
            #expect(left != nil, "the worker did not see the pack leave home")
            let requestsWhileAway = proxy.requests.withLock { $0.count }
            let second = try pack.addRuns(1, first: nowWall, random: &random)
            #expect(try await worker.lookedAgain(), "the worker made no pass after leaving home")
            #expect(proxy.requests.withLock { $0.count } == requestsWhileAway)
            #expect(try pack.database.outboxTotals().waiting == 1)
            wpa.associate(ssid: "HomeNet")
            let secondSync = try await Self.within(120) { try pack.database.outboxTotals().waiting == 0 }
            #expect(secondSync != nil, "no sync within 120 s of rejoining home Wi-Fi")
            #expect(Set(try await store.runs(token).keys) == Set(first.keys).union(second.keys))
            #expect(wpa.commands.withLock { $0.contains("ATTACH") })
            await worker.stop()
            await running.value
        }
    }

    @Test(
        "Without wpa_supplicant, the kernel's rtnetlink events (real, from a veth pair) make the pack read iw again at once (iw's output simulated)",
        .enabled(if: SystemPrograms.runnable("ip"), "needs ip (apt-get install iproute2)")
    )
    func kernelEventsWakeTheIWReader() async throws {
        let ip = try SystemPrograms.require("ip", package: "iproute2")
        let directory = try TemporaryDirectory("handoff-iw")
        defer { directory.remove() }
        let state = directory.file("link.txt").path
        let iw = directory.file("iw").path
        try "Not connected.\n".write(toFile: state, atomically: true, encoding: .utf8)
        // Prints what `iw dev wlan0 link` would, from the state file.
        try "#!/bin/sh\ncat \(state)\n".write(toFile: iw, atomically: true, encoding: .utf8)
        chmod(iw, 0o755)
        let seen = Mutex<[WirelessState]>([])
        let monitor = NetworkMonitor(source: .auto, interface: "wlan0", wpaDirectory: directory.path, iwPath: iw) {
            state in seen.withLock { $0.append(state) }
        }
        #expect(monitor.effectiveSource == .iw)
        monitor.start()
        defer { monitor.stop() }
        #expect(try await Self.within(60) { seen.withLock { $0.last?.associated == false } } != nil)
        let name = "hdv\(getpid() % 100_000)"
        defer { _ = try? runProcess(ip, ["link", "del", name]) }
        try """
        Connected to 02:00:00:00:01:00 (on wlan0)
        \tSSID: HomeNet
        \tfreq: 2412
        """.write(toFile: state, atomically: true, encoding: .utf8)
        // A link appearing is a kernel event like Wi-Fi associating: the reader looks again now,
        // not at its 5-minute check.
        let added = try await runProcessAsync(ip, ["link", "add", name, "type", "veth", "peer", "name", name + "p"])
        guard added.status == 0 else { try Self.cannotRun("cannot add a veth pair (needs root): \(added.stderr)") }
        // Well inside the reader's 5-minute check: only the kernel's event can have made it look.
        let home = try await Self.within(120) { seen.withLock { $0.last?.ssid == "HomeNet" } }
        #expect(home != nil, "no read of iw after the kernel's event: \(seen.withLock { $0 })")
        try "Not connected.\n".write(toFile: state, atomically: true, encoding: .utf8)
        _ = try await runProcessAsync(ip, ["link", "set", name, "up"])
        let away = try await Self.within(120) { seen.withLock { $0.last?.associated == false } }
        #expect(away != nil)
    }
}
