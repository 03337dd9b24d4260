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
