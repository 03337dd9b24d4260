import CPackSystem
import Foundation
import HandoffModel
import Logging
import PackSensors
import PackSystem
import ServiceLifecycle
import Synchronization

/// Speaks systemd's notify protocol (sd_notify(3)): `READY=1` once the pack answers, `STATUS=`
/// lines for `systemctl status`, `WATCHDOG=1` while the recorder keeps going, `STOPPING=1` when a
/// shutdown begins. Written here rather than linked from libsystemd: it is one datagram to the
/// socket named by `$NOTIFY_SOCKET`, and the pack then needs no libsystemd at all.
///
/// Without `$NOTIFY_SOCKET` (not started by systemd with `Type=notify`) every call does nothing.
public final class SystemdNotifier: Sendable {
    /// The socket's path, or `@name` for the abstract namespace.
    public let socket: String?
    /// `WatchdogSec=` as systemd passed it (`$WATCHDOG_USEC`), when it is meant for this process.
    public let watchdogInterval: Duration?
    private let logger: Logger
    private let failed = Atomic<Bool>(false)

    public init(environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger) {
        self.logger = logger
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socket = path
        // WATCHDOG_PID names the process the watchdog is for; a child that inherited the
        // environment must not ping on its parent's behalf.
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if path != nil, forUs, let usec = environment["WATCHDOG_USEC"].flatMap(Int64.init), usec > 0 {
            watchdogInterval = .microseconds(usec)
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends `fields` (each `KEY=value`) in one datagram. A failure is logged once, not thrown:
    /// the pack records runs whether or not systemd hears about it.
    public func notify(_ fields: [String]) {
        guard let socket else { return }
        let message = fields.joined(separator: "\n")
        let result = message.withCString { pointer in
            pack_unix_datagram_send(socket, pointer, strlen(pointer))
        }
        if result < 0, !failed.exchange(true, ordering: .relaxed) {
            let reason = String(cString: strerror(errno))
            logger.warning(
                "Cannot notify systemd at \(socket): \(reason); the watchdog may restart handoffd",
                metadata: ["notify_socket": "\(socket)"])
        }
    }

    public func ready(status: String) { notify(["READY=1", "STATUS=\(status)"]) }
    public func status(_ text: String) { notify(["STATUS=\(text)"]) }
    public func watchdog() { notify(["WATCHDOG=1"]) }
    public func stopping(status: String) { notify(["STOPPING=1", "STATUS=\(status)"]) }
}

/// When the recorder last made progress: stamped by the loop that drives it (live: each tick;
/// replay: each event), read by the watchdog.
public final class RecorderHeartbeat: Sendable {
    private let stamp = Atomic<Int64>(0)

    public init() { beat() }

    public func beat() { stamp.store(PackClock.system.monotonic().nanoseconds, ordering: .releasing) }

    /// Seconds since the last beat.
    public var age: Double {
        Double(PackClock.system.monotonic().nanoseconds - stamp.load(ordering: .acquiring)) / 1e9
    }
}

/// Pings systemd's watchdog at half its interval while the recorder's heartbeat is fresh, and
/// stops pinging when it is not: a recorder stuck in a hung write to a failing card, or a wedged
/// actor, then gets handoffd restarted by systemd (`Restart=on-failure`) instead of silently
/// recording nothing. The pings come from a thread of their own, so the check does not depend on
/// the cooperative pool that a stall may have eaten.
///
/// Also keeps `STATUS=` current (what `systemctl status handoffd` shows), at most every 5 s.
final class WatchdogService: Service, Sendable {
    let notifier: SystemdNotifier
    let heartbeat: RecorderHeartbeat
    let engine: PackEngine
    let logger: Logger
    /// A heartbeat older than this is a stall.
    let stallLimit: Double
    /// Nothing else beats the heartbeat (a replay has no tick loop): beat it by an actor hop
    /// into the engine every second.
    let probe: Bool

    init(notifier: SystemdNotifier, heartbeat: RecorderHeartbeat, engine: PackEngine, probe: Bool, logger: Logger) {
        self.probe = probe
        self.notifier = notifier
        self.heartbeat = heartbeat
        self.engine = engine
        self.logger = logger
        let interval = notifier.watchdogInterval.map {
            Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18
        }
        // The recorder beats at least once a second; half the interval leaves systemd the other half
        // to see the pings stop, and 3 s keeps a busy moment from counting as a stall.
        stallLimit = max(3, (interval ?? 60) / 2)
    }

    func run() async throws {
        guard let interval = notifier.watchdogInterval else {
            try? await cancelWhenGracefulShutdown { try await self.keepStatus() }
            notifier.stopping(status: "Stopping: finishing the run in progress and closing the journal")
            return
        }
        logger.info(
            "Pinging systemd's watchdog every \(interval / 2) while the recorder's heartbeat is under \(Int(stallLimit)) s old"
        )
        let stopping = StopFlag()
        let thread = Thread { [self] in
            var stalled = false
            while !stopping.isSet {
                let age = heartbeat.age
                if age <= stallLimit {
                    notifier.watchdog()
                    if stalled {
                        logger.notice("The recorder is going again; pinging the watchdog")
                        stalled = false
                    }
                } else if !stalled {
                    stalled = true
                    logger.error(
                        "The recorder has not made progress for \(Int(age)) s: no more watchdog pings, so systemd restarts handoffd",
                        metadata: ["stall_s": "\(Int(age))"])
                    notifier.status("Recorder stalled for \(Int(age)) s")
                }
                Thread.sleep(
                    forTimeInterval: Double(interval.components.seconds) / 2
                        + Double(interval.components.attoseconds) / 2e18)
            }
        }
        thread.name = "watchdog"
        thread.start()
        try? await cancelWhenGracefulShutdown { try await self.keepStatus() }
        stopping.set()
        notifier.stopping(status: "Stopping: finishing the run in progress and closing the journal")
    }

    /// Refreshes STATUS= when the pack's state changes.
    private func keepStatus() async throws {
        var last = ""
        var second = 0
        while !Task.isCancelled {
            if probe {
                await engine.probe()
                heartbeat.beat()
            }
            if second % 5 == 0 {
                let line = await engine.statusLine()
                if line != last {
                    notifier.status(line)
                    last = line
                }
            }
            second += 1
            try await Task.sleep(for: .seconds(1))
        }
    }
}
