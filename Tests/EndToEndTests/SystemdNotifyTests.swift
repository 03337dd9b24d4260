import Foundation
import PackControl
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// systemd's side of `Type=notify` and `WatchdogSec=`, played by the test: a datagram socket
/// named by `NOTIFY_SOCKET`, as sd_notify(3) and systemd.service(5) describe it. (Running handoffd
/// under a real systemd needs systemd as PID 1, which a test process is not; the protocol is the
/// boundary.)
final class NotifyListener: @unchecked Sendable {
    struct Message {
        var at: ContinuousClock.Instant
        var fields: [String: String]
    }

    let path: String
    private let fd: Int32
    private let lock = NSLock()
    private var received: [Message] = []
    private var stopped = false

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard fd >= 0, bound == 0 else { throw DaemonFailure("cannot bind \(path): errno \(errno)") }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !lock.withLock({ stopped }) {
                let n = recv(fd, &buffer, buffer.count, 0)
                guard n > 0 else { continue }
                let text = String(decoding: buffer[0..<n], as: UTF8.self)
                var fields: [String: String] = [:]
                for line in text.split(separator: "\n") {
                    let parts = line.split(separator: "=", maxSplits: 1)
                    fields[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
                }
                let message = Message(at: .now, fields: fields)
                lock.withLock { received.append(message) }
            }
        }
    }

    var messages: [Message] { lock.withLock { received } }

    /// The first message with `key`, waiting up to `timeout`; looked for once more after it (a
    /// machine that stalled past the deadline may have the message queued all along).
    func first(_ key: String, timeout: Duration) async throws -> Message? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let message = messages.first(where: { $0.fields[key] != nil }) { return message }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(300))
        return messages.first { $0.fields[key] != nil }
    }

    func stop() {
        lock.withLock { stopped = true }
        Thread.sleep(forTimeInterval: 0.2)
        close(fd)
    }
}

@Suite(
    "handoffd speaks systemd's notify protocol (real time: the watchdog's pings from a running handoffd)", .serialized)
struct SystemdNotifyTests {
    static let liveConfiguration = """
        [gps]
        source = "none"
        [pedometer]
        sources = ["footpod"]
        [bluetooth]
        enabled = false
        [sync]
        enabled = false
        """

    /// A live handoffd (no sensors) with `NOTIFY_SOCKET` on a listener of the test's, and
    /// `environment` besides.
    static func start(_ environment: [String: String]) throws -> (NotifyListener, Daemon) {
        let dir = try TemporaryDirectory()
        try liveConfiguration.write(toFile: dir.path + "/handoff.toml", atomically: true, encoding: .utf8)
        let listener = try NotifyListener(path: dir.path + "/notify.sock")
        let daemon = try Daemon(
            in: dir, arguments: [], environment: environment.merging(["NOTIFY_SOCKET": listener.path]) { $1 })
        return (listener, daemon)
    }

    @Test("READY after start-up, WATCHDOG every half interval, none while the recorder is stalled, STOPPING on SIGTERM")
    func watchdog() async throws {
        // WatchdogSec=1s: pings every 0.5 s; a heartbeat older than 3 s is a stall.
        let (listener, daemon) = try Self.start(["WATCHDOG_USEC": "1000000", "HANDOFF_DEBUG_COMMANDS": "1"])
        defer {
            daemon.terminate()
            listener.stop()
        }

        let ready = try await listener.first("READY", timeout: .seconds(30))
        #expect(ready != nil, "no READY=1: \(daemon.log)")
        #expect(ready?.fields["STATUS"]?.hasPrefix("Ready") == true)
        // READY means the pack answers: the control socket is there when it arrives.
        let status = try daemon.client.send(.status, expecting: StatusReport.self)
        #expect(status.state == .idle)

        // Pinging at half the interval.
        try await Task.sleep(for: .seconds(3))
        let normal = listener.messages.filter { $0.fields["WATCHDOG"] == "1" }.map(\.at)
        #expect(normal.count >= 4, "\(normal.count) pings in the first 3 s")
        let normalGaps = zip(normal, normal.dropFirst()).map { $1 - $0 }
        #expect(normalGaps.allSatisfy { $0 < .milliseconds(900) }, "gaps \(normalGaps)")
        #expect(listener.messages.contains { $0.fields["STATUS"]?.hasPrefix("Idle; GPS none") == true })

        // Stall the recorder (the engine blocks, as on a hung write) for 8 s.
        let stallStart = ContinuousClock.now
        let client = daemon.client
        let stalled = Task.detached {
            try? ControlClient(socketPath: client.socketPath, timeoutSeconds: 20).send(
                .debugStall(seconds: 8), expecting: String.self)
        }
        _ = await stalled.value
        try await Task.sleep(for: .seconds(3))
        let pings = listener.messages.filter { $0.fields["WATCHDOG"] == "1" }.map(\.at)
        // The heartbeat is at most ~1 s old when the stall starts; 3 s later it is a stall and the
        // next ping (0.5 s on) is not sent. Nothing from 4.6 s into the stall until its end.
        let silent = pings.filter { $0 > stallStart + .milliseconds(4600) && $0 < stallStart + .seconds(8) }
        #expect(silent.isEmpty, "pinged during the stall at \(silent.map { $0 - stallStart })")
        let during = pings.filter { $0 > stallStart && $0 < stallStart + .seconds(8) }
        #expect(during.count <= 10)
        let resumed = pings.filter { $0 > stallStart + .seconds(8) }
        #expect(resumed.count >= 2, "the pings did not resume after the stall: \(daemon.log)")
        #expect(
            listener.messages.contains { $0.fields["STATUS"]?.hasPrefix("Recorder stalled") == true },
            "no STATUS about the stall")
        #expect(daemon.log.contains("no more watchdog pings"))

        // SIGTERM: STOPPING=1, then a clean exit.
        daemon.process.terminate()
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 0)
        let stopping = try await listener.first("STOPPING", timeout: .seconds(2))
        #expect(stopping != nil, "no STOPPING=1")
    }

    @Test("WATCHDOG_PID naming another process: READY but no pings (sd_notify(3))")
    func watchdogForAnotherProcess() async throws {
        let (listener, daemon) = try Self.start(["WATCHDOG_USEC": "500000", "WATCHDOG_PID": "1"])
        defer {
            daemon.terminate()
            listener.stop()
        }
        #expect(try await listener.first("READY", timeout: .seconds(30)) != nil, "no READY=1: \(daemon.log)")
        try await Task.sleep(for: .seconds(2))
        #expect(!listener.messages.contains { $0.fields["WATCHDOG"] != nil })
    }
}

@Suite("handoffd logs to the journal natively, with STYLE.md's metadata keys as fields")
struct JournalLoggingTests {
    @Test("Each message is a datagram of fields: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, and sensor.id as SENSOR_ID")
    func fields() async throws {
        let dir = try TemporaryDirectory()
        // gpsd on a port where nothing listens: the GPS source warns, naming its sensor.
        let port = freeLoopbackPort()
        try """
        [gps]
        gpsd = "127.0.0.1:\(port)"
        [bluetooth]
        enabled = false
        [sync]
        enabled = false
        """.write(toFile: dir.path + "/handoff.toml", atomically: true, encoding: .utf8)
        let journal = try NotifyListener(path: dir.path + "/journal.sock")
        defer { journal.stop() }
        let daemon = try Daemon(in: dir, arguments: [], environment: ["HANDOFF_JOURNAL_SOCKET": journal.path])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        try await Task.sleep(for: .milliseconds(500))

        let messages = journal.messages.map(\.fields)
        #expect(messages.allSatisfy { $0["SYSLOG_IDENTIFIER"] == "handoffd" && $0["PRIORITY"] != nil })
        let ready = messages.first { $0["MESSAGE"]?.hasPrefix("Control socket ready") == true }
        #expect(ready?["PRIORITY"] == "6")
        #expect(ready?["SOCKET"] == daemon.socket)
        let gps = messages.first { $0["MESSAGE"]?.hasPrefix("gpsd is not reachable") == true }
        #expect(gps?["PRIORITY"] == "4", "\(messages)")
        #expect(gps?["SENSOR_ID"] == "gps0")
        #expect(gps?["GPSD"] == "127.0.0.1:\(port)")
        #expect(gps?["CODE_FILE"]?.hasSuffix("GpsdSource.swift") == true)
        // Nothing went to standard error while the journal took it.
        #expect(!daemon.log.contains("Control socket ready"))
    }
}
