import HandoffModel
import Logging
import PackSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A sensor the pack reads on a thread of its own, with blocking reads and short timeouts: it
/// reports what it reads, stamped as it arrives, until stopped; when its device goes away it
/// says so and tries again with backoff, forever.
public protocol LiveSource: Sendable {
    var descriptor: SensorDescriptor { get }
    func run(emit: @escaping @Sendable (CaptureEvent) -> Void, stop: StopFlag, logger: Logger)
}

/// The link bookkeeping every reconnecting source shares: one `connected` event when the device
/// answers, one `disconnected` when it is lost, a warning on the first failed attempt and every
/// 30th after (a pack waits for hardware for hours; its log must not fill), and the backoff
/// between attempts.
///
/// A link that comes up and goes again within `steadyAfter` seconds (gpsd with no receiver: it
/// answers, then says nothing) does not start the warnings afresh: they stay one in 30. Both the
/// link events' stamps and that steadiness read `clock`; the backoff between attempts is real time.
struct LinkKeeper {
    let sensor: SensorID
    let clock: PackClock
    var backoff: Backoff
    private(set) var linked = false
    private(set) var attempts = 0
    private var upSince: MonotonicInstant?
    var steadyAfter = 30.0

    init(sensor: SensorID, clock: PackClock, backoff: Backoff = .reconnecting) {
        self.sensor = sensor
        self.clock = clock
        self.backoff = backoff
    }

    /// The device answered.
    mutating func up(reason: String, emit: (CaptureEvent) -> Void) {
        if !linked {
            emit(clock.stamp(.link(sensor: sensor, state: .connected, reason: reason)))
            upSince = clock.monotonic()
        }
        linked = true
        backoff.reset()
    }

    /// The device is gone or did not answer: says so once, warns now and then (with the number
    /// of attempts so far), and waits before the next attempt.
    mutating func down(
        reason: String, emit: (CaptureEvent) -> Void, stop: StopFlag, warn: (_ attempts: Int) -> Void
    ) {
        if linked, let upSince, clock.monotonic().seconds(since: upSince) >= steadyAfter { attempts = 0 }
        attempts += 1
        if linked {
            emit(clock.stamp(.link(sensor: sensor, state: .disconnected, reason: reason)))
            linked = false
        }
        if attempts == 1 || attempts % 30 == 0 { warn(attempts) }
        _ = stop.sleep(seconds: backoff.delay())
    }
}

extension LinkKeeper {
    /// The loop every reconnecting Bluetooth source runs until stopped: `attempt` connects and
    /// follows the device, and returns why the link ended (`nil`: it was cancelled, stop now);
    /// then the link is reported down and the next attempt waits its backoff. `warn` gets the
    /// reason and the number of attempts so far.
    mutating func keepUp(
        emit: (CaptureEvent) -> Void, stop: StopFlag, warn: (_ reason: String, _ attempts: Int) -> Void,
        attempt: (inout LinkKeeper) -> String?
    ) {
        while !stop.isSet {
            guard let reason = attempt(&self), !stop.isSet else { break }
            down(reason: reason, emit: emit, stop: stop) { warn(reason, $0) }
        }
    }
}

/// Waits until `fd` is readable or `timeout` passes; `false` on timeout.
func waitReadable(_ fd: Int32, timeout: Double) -> Bool {
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let result = poll(&pfd, 1, Int32(timeout * 1000))
    return result > 0
}
