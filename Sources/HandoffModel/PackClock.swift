/// The pack's clocks, passed to whatever reads time: `monotonic` orders everything, `wall` dates it
/// (and may be wrong on a Pi without a real-time clock until NTP or GPS sets it), and
/// `isSynchronized` says whether the system has disciplined `wall`.
///
/// The system's clocks (`PackClock.system`, in PackSensors) in the daemon; a test's own clock,
/// moved by the test, everywhere a test would otherwise sleep.
public struct PackClock: Sendable {
    public var monotonic: @Sendable () -> MonotonicInstant
    public var wall: @Sendable () -> WallInstant
    public var isSynchronized: @Sendable () -> Bool

    public init(
        monotonic: @escaping @Sendable () -> MonotonicInstant, wall: @escaping @Sendable () -> WallInstant,
        isSynchronized: @escaping @Sendable () -> Bool
    ) {
        self.monotonic = monotonic
        self.wall = wall
        self.isSynchronized = isSynchronized
    }

    /// An event body stamped now.
    public func stamp(_ body: CaptureEvent.Body) -> CaptureEvent {
        CaptureEvent(monotonic: monotonic(), wall: wall(), body: body)
    }

    /// The same clocks with the synchronisation given instead of asked (a pack whose clock is
    /// set from a real-time clock by `hwclock`, which leaves the kernel's flag unset).
    public func synchronized(_ value: Bool) -> PackClock {
        PackClock(monotonic: monotonic, wall: wall, isSynchronized: { value })
    }
}
