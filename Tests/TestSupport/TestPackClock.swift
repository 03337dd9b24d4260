import HandoffModel
import Synchronization

/// A pack clock the test moves: no sleeping, no system time. Monotonic time starts at 5 s;
/// wall time is `epoch` plus the monotonic time.
public final class TestPackClock: Sendable {
    private let nanoseconds = Mutex<Int64>(5_000_000_000)
    public let synchronized: Bool
    public static let epoch = CivilTime(year: 2026, month: 6, day: 14, hour: 7).instant

    public init(synchronized: Bool = true) { self.synchronized = synchronized }

    public func advance(seconds: Int64) { nanoseconds.withLock { $0 += seconds * nanosecondsPerSecond } }

    /// Where the monotonic clock stands now.
    public var monotonic: MonotonicInstant { MonotonicInstant(nanoseconds: nanoseconds.withLock { $0 }) }

    /// The wall time that goes with `monotonic`.
    public func wall(at instant: MonotonicInstant) -> WallInstant {
        Self.epoch.advanced(byNanoseconds: instant.nanoseconds)
    }

    public var clock: PackClock {
        PackClock(
            monotonic: { self.monotonic }, wall: { self.wall(at: self.monotonic) },
            isSynchronized: { [synchronized] in synchronized })
    }
}
