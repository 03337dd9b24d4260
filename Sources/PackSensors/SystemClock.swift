import CPackSystem
import HandoffModel

#if canImport(Glibc)
    import Glibc
#endif

extension PackClock {
    /// The system's clocks: `CLOCK_MONOTONIC` orders everything, `CLOCK_REALTIME` dates it, and
    /// the kernel's NTP status (`adjtimex(2)`: `TIME_ERROR` or `STA_UNSYNC` until NTP, chrony or
    /// systemd-timesyncd disciplines the clock) says whether the date can be trusted. A Raspberry
    /// Pi boots with the time it last saved (fake-hwclock) and keeps it unsynchronised until it
    /// reaches a time server.
    public static let system = PackClock(
        monotonic: { MonotonicInstant(nanoseconds: read(CLOCK_MONOTONIC)) },
        wall: { WallInstant(nanosecondsSinceEpoch: read(CLOCK_REALTIME)) },
        isSynchronized: { pack_clock_synchronized() == 1 })

    /// Whether the kernel answers `adjtimex(2)` at all (a unit with `ProtectClock=yes` refuses it,
    /// and the clock then always reads as unsynchronised).
    public static var systemCanTellSynchronization: Bool { pack_clock_synchronized() >= 0 }

    private static func read(_ id: clockid_t) -> Int64 {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Int64(ts.tv_sec) * nanosecondsPerSecond + Int64(ts.tv_nsec)
    }
}
