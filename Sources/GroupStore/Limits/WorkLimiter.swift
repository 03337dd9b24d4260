import Dispatch

/// Runs slow, blocking work (bcrypt, reading an uploaded activity file) on threads of its own,
/// off Swift's cooperative pool, at most `permits` at once. Up to `queueLimit` callers wait in
/// order; one more is told the store is busy (`503` with `Retry-After`), so a flood queues or is
/// turned away instead of starving everyone else.
actor WorkLimiter {
    /// Every permit is taken and the queue is full.
    struct Busy: Error {}

    let name: String
    let permits: Int
    let queueLimit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private let queue: DispatchQueue

    init(name: String, permits: Int, queueLimit: Int) {
        self.name = name
        self.permits = max(1, permits)
        self.queueLimit = max(0, queueLimit)
        queue = DispatchQueue(label: "handoff.store.\(name)", attributes: .concurrent)
    }

    /// Runs `work` on the limiter's threads once a permit is free.
    nonisolated func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws(Busy) -> T {
        try await acquire()
        let value = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
        await release()
        return value
    }

    private func acquire() async throws(Busy) {
        if running < permits {
            running += 1
            return
        }
        guard waiting.count < queueLimit else { throw Busy() }
        // The permit is handed over by `release`, so `running` stays counted.
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

extension StoreError {
    /// The answer when a `WorkLimiter` is full.
    static func busy(_ what: String) -> StoreError {
        StoreError(
            .serviceUnavailable, "busy", "the store is busy \(what) for others: try again in a few seconds",
            retryAfter: 5)
    }
}
