/// When to try again after a failure: exponential backoff with jitter.
///
/// The delay before attempt n+1 is drawn uniformly from the upper half of
/// min(maximum, minimum × 2ⁿ⁻¹): it doubles with each failure, never exceeds the cap, and two
/// packs that failed together (a store restarting) do not come back in step. A store's
/// Retry-After, when longer, wins.
public struct Backoff: Sendable, Hashable {
    public var minimumSeconds: Double
    public var maximumSeconds: Double

    public init(minimumSeconds: Double = 5, maximumSeconds: Double = 3600) {
        self.minimumSeconds = minimumSeconds
        self.maximumSeconds = max(minimumSeconds, maximumSeconds)
    }

    /// The delay after `failures` consecutive failures (1 for the first).
    public func delay(
        afterFailures failures: Int, retryAfter: Double? = nil, using generator: inout some RandomNumberGenerator
    ) -> Double {
        let exponent = Double(min(max(failures, 1) - 1, 40))
        let ceiling = min(maximumSeconds, minimumSeconds * Double.pow2(exponent))
        let delay = Double.random(in: (ceiling / 2)...ceiling, using: &generator)
        if let retryAfter, retryAfter.isFinite, retryAfter > delay { return min(retryAfter, maximumSeconds) }
        return delay
    }

    public func delay(afterFailures failures: Int, retryAfter: Double? = nil) -> Double {
        var generator = SystemRandomNumberGenerator()
        return delay(afterFailures: failures, retryAfter: retryAfter, using: &generator)
    }
}

extension Double {
    static func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        for _ in 0..<Int(exponent) { value *= 2 }
        return value
    }
}
