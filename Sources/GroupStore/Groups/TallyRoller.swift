import Logging
import ServiceLifecycle

/// Rolls the tally up (`StoreRepository.rollUp`) while the store runs: every `interval`, at
/// once again while a whole batch was pending, and after a failure in `afterError`. It starts
/// once the schema is up to date (`ready` yields) and stops at graceful shutdown. Every
/// instance runs one; on PostgreSQL one rolls at a time and the others skip their turn.
struct TallyRoller: Service {
    let repository: StoreRepository
    let logger: Logger
    let ready: AsyncStream<Void>
    var interval: Duration = .milliseconds(200)
    var afterError: Duration = .seconds(1)

    func run() async throws {
        await cancelWhenGracefulShutdown { await self.roll() }
    }

    private func roll() async {
        var started = ready.makeAsyncIterator()
        guard await started.next() != nil else { return }
        var failing = false
        while !Task.isCancelled {
            var pause = interval
            do {
                if try await repository.rollUp() >= StoreRepository.rollUpBatch { pause = .zero }
                if failing {
                    logger.info("The tally rolls up again")
                    failing = false
                }
            } catch {
                if !Task.isCancelled && !failing {
                    logger.warning(
                        "Rolling up the tally failed: every total shown stays exact, the pending rows wait; trying again every second",
                        metadata: ["error": "\(error)"])
                    failing = true
                }
                pause = afterError
            }
            try? await Task.sleep(for: pause)
        }
    }
}
