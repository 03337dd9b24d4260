/// A point on the pack's monotonic clock, in nanoseconds since an arbitrary origin (boot).
///
/// Every reading, command and record point is ordered by this clock; it never jumps when the
/// wall clock is set (a Raspberry Pi has no real-time clock and may learn the date late).
public struct MonotonicInstant: Hashable, Comparable, Sendable {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public init(seconds: Double) { self.nanoseconds = Int64((seconds * 1e9).rounded()) }

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public static func < (a: Self, b: Self) -> Bool { a.nanoseconds < b.nanoseconds }

    /// `self` moved by `nanoseconds`.
    public func advanced(byNanoseconds delta: Int64) -> Self { Self(nanoseconds: nanoseconds &+ delta) }

    /// Seconds from `earlier` to `self` (negative when `earlier` is later).
    public func seconds(since earlier: Self) -> Double { Double(nanoseconds &- earlier.nanoseconds) / 1e9 }
}

/// A wall-clock time: nanoseconds since the Unix epoch (UTC).
public struct WallInstant: Hashable, Comparable, Sendable {
    public var nanosecondsSinceEpoch: Int64

    public init(nanosecondsSinceEpoch: Int64) { self.nanosecondsSinceEpoch = nanosecondsSinceEpoch }

    public init(secondsSinceEpoch: Double) {
        self.nanosecondsSinceEpoch = Int64((secondsSinceEpoch * 1e9).rounded())
    }

    public var secondsSinceEpoch: Double { Double(nanosecondsSinceEpoch) / 1e9 }

    public static func < (a: Self, b: Self) -> Bool { a.nanosecondsSinceEpoch < b.nanosecondsSinceEpoch }

    public func advanced(byNanoseconds delta: Int64) -> Self {
        Self(nanosecondsSinceEpoch: nanosecondsSinceEpoch &+ delta)
    }
}

public let nanosecondsPerSecond: Int64 = 1_000_000_000
