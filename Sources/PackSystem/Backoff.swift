/// When to try again after a failure: exponential backoff.
///
/// The delay after the n-th consecutive failure has the ceiling min(maximum, minimum × 2ⁿ⁻¹): it
/// doubles with each failure and never exceeds the cap. Jittered (the sync worker's), the delay
/// is drawn uniformly from the upper half of that ceiling, so two packs that failed together (a
/// store restarting) do not come back in step, and a store's Retry-After, when longer, wins.
/// Exact (a sensor's reconnection: 0.5 s doubling to a ceiling), it is the ceiling itself.
///
/// The stateful form (`delay()`, `reset()`) counts the failures itself: a reconnecting source
/// asks for the next delay after each failed attempt and resets after a connection that worked.
public struct Backoff: Sendable, Hashable {
    public var minimumSeconds: Double
    public var maximumSeconds: Double
    /// Draw each delay from the upper half of its ceiling.
    public var jittered: Bool
    private var failures = 0

    /// The longest delay any backoff gives: 30 days. Callers turn delays into nanoseconds
    /// (`Int64(delay * 1e9)`), which traps past 292 years; every delay is finite and at most this,
    /// whatever the configuration or a store's Retry-After says.
    public static let longestSeconds = 30 * 86_400.0

    /// Jittered, for retries against a server.
    public init(minimumSeconds: Double = 5, maximumSeconds: Double = 3600) {
        (self.minimumSeconds, self.maximumSeconds) = Self.bounded(minimumSeconds, maximumSeconds)
        jittered = true
    }

    /// Exact, for reconnecting to hardware: `initial` doubling up to `maximum`. A pack's sources
    /// wait for hardware, so they never give up.
    public init(initial: Double, maximum: Double) {
        (minimumSeconds, maximumSeconds) = Self.bounded(initial, maximum)
        jittered = false
    }

    /// Both within 0…`longestSeconds` (not a number counts as the longest), the maximum not below
    /// the minimum.
    static func bounded(_ minimum: Double, _ maximum: Double) -> (Double, Double) {
        func clamp(_ value: Double) -> Double {
            value >= 0 ? min(value, longestSeconds) : value < 0 ? 0 : longestSeconds
        }
        let low = clamp(minimum)
        return (low, max(low, clamp(maximum)))
    }

    /// A source's reconnection: 0.5 s doubling to 10 s.
    public static let reconnecting = Backoff(initial: 0.5, maximum: 10)

    /// The longest delay after `failures` consecutive failures (1 for the first).
    public func ceiling(afterFailures failures: Int) -> Double {
        let exponent = min(max(failures, 1) - 1, 40)
        var ceiling = minimumSeconds
        for _ in 0..<exponent where ceiling < maximumSeconds { ceiling *= 2 }
        return min(maximumSeconds, ceiling)
    }

    /// The delay after `failures` consecutive failures (1 for the first).
    public func delay(
        afterFailures failures: Int, retryAfter: Double? = nil, using generator: inout some RandomNumberGenerator
    ) -> Double {
        let ceiling = ceiling(afterFailures: failures)
        let delay = jittered ? Double.random(in: (ceiling / 2)...ceiling, using: &generator) : ceiling
        if let retryAfter, retryAfter.isFinite, retryAfter > delay { return min(retryAfter, maximumSeconds) }
        return delay
    }

    public func delay(afterFailures failures: Int, retryAfter: Double? = nil) -> Double {
        var generator = SystemRandomNumberGenerator()
        return delay(afterFailures: failures, retryAfter: retryAfter, using: &generator)
    }

    /// The delay after one more failure.
    public mutating func delay() -> Double {
        failures += 1
        return delay(afterFailures: failures)
    }

    /// A connection worked: the next failure starts from `minimumSeconds` again.
    public mutating func reset() { failures = 0 }
}
