import CPackSystem
import HandoffModel

#if canImport(Glibc)
    import Glibc
#endif

/// The pack's clocks, read directly: `CLOCK_MONOTONIC` orders everything, `CLOCK_REALTIME`
/// dates it (and may be wrong on a Pi without a real-time clock until NTP or GPS sets it).
enum PackClock {
    static func monotonic() -> MonotonicInstant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicInstant(nanoseconds: Int64(ts.tv_sec) * nanosecondsPerSecond + Int64(ts.tv_nsec))
    }

    static func wall() -> WallInstant {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return WallInstant(nanosecondsSinceEpoch: Int64(ts.tv_sec) * nanosecondsPerSecond + Int64(ts.tv_nsec))
    }
}

extension PackClock {
    /// Whether the kernel considers the system clock synchronised (NTP, chrony, or
    /// systemd-timesyncd have disciplined it): `adjtimex(2)` returns `TIME_ERROR` and sets
    /// `STA_UNSYNC` until then. A Raspberry Pi boots with the time it last saved
    /// (fake-hwclock) and keeps it unsynchronised until it reaches a time server.
    ///
    /// `HANDOFF_CLOCK_SYNCHRONIZED=0|1` overrides the kernel, for tests and for packs whose
    /// clock is set by other means (an RTC HAT read by `hwclock`, which does not clear the flag).
    static func isSynchronized() -> Bool {
        if let override = getenv("HANDOFF_CLOCK_SYNCHRONIZED").map({ String(cString: $0) }) {
            return override != "0"
        }
        return pack_clock_synchronized() != 0
    }
}
