import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A one-way flag: set by whoever stops a loop (a shutdown handler, a source's owner), read by
/// the loop on its own thread.
public final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public var isSet: Bool { flag.load(ordering: .acquiring) }
    public func set() { flag.store(true, ordering: .releasing) }

    /// Sleeps up to `seconds`, returning early (false) when stopped.
    public func sleep(seconds: Double) -> Bool {
        var left = seconds
        while left > 0 {
            if isSet { return false }
            let step = min(left, 0.1)
            usleep(UInt32(step * 1_000_000))
            left -= step
        }
        return !isSet
    }
}
