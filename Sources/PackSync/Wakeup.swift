import Synchronization

/// Wakes one waiting task: a run finished, the Wi-Fi changed, a person asked to sync. A poke
/// while nobody waits is kept, so none is lost between two waits.
public final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    public init() {}

    public func poke() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns at the next poke (or at once if one is pending), or after `seconds`.
    public func wait(seconds: Double?) async {
        if state.withLock({ state in
            defer { state.pending = false }
            return state.pending
        }) {
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let resumeNow = self.state.withLock { state -> Bool in
                        if state.pending {
                            state.pending = false
                            return true
                        }
                        state.waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
            if let seconds {
                group.addTask {
                    // Cancelled (a real poke came first), it must not poke: that would wake the next
                    // wait for nothing. A spurious poke at worst costs one extra look.
                    if (try? await Task.sleep(for: .milliseconds(Int64(max(0, seconds) * 1000)))) != nil {
                        self.poke()
                    }
                }
            }
            await group.next()
            group.cancelAll()
        }
    }
}
