import Foundation
import HandoffModel
import Logging
import PackSensors
import PackSystem
import ServiceLifecycle
import Synchronization

/// Runs live sensor sources, each on a thread of its own with blocking reads, and hands what they
/// read to the engine in the order it arrived. Sources can be started and stopped while the
/// daemon runs: `handoff pair` starts one, `handoff forget` stops it.
final class SourceRunner: Sendable {
    let stream: AsyncStream<CaptureEvent>
    private let continuation: AsyncStream<CaptureEvent>.Continuation
    private let running = Mutex<[SensorID: StopFlag]>([:])
    private let threads = Atomic<Int>(0)
    let logger: Logger

    init(logger: Logger) {
        (stream, continuation) = AsyncStream.makeStream(of: CaptureEvent.self, bufferingPolicy: .unbounded)
        self.logger = logger
    }

    /// Starts `source` unless one with its id runs already; `false` then.
    @discardableResult
    func start(_ source: any LiveSource) -> Bool {
        let stop = StopFlag()
        let id = source.descriptor.id
        let added = running.withLock { map -> Bool in
            guard map[id] == nil else { return false }
            map[id] = stop
            return true
        }
        guard added else { return false }
        threads.add(1, ordering: .relaxed)
        let continuation = self.continuation
        let logger = self.logger
        let thread = Thread { [self] in
            source.run(emit: { continuation.yield($0) }, stop: stop, logger: logger)
            running.withLock { map in
                if map[id] === stop { map[id] = nil }
            }
            threads.subtract(1, ordering: .relaxed)
        }
        thread.name = "source \(id)"
        thread.start()
        return true
    }

    /// Stops the source with `id` (its thread ends within a fraction of a second).
    func stop(_ id: SensorID) {
        running.withLock { $0.removeValue(forKey: id) }?.set()
    }

    func isRunning(_ id: SensorID) -> Bool { running.withLock { $0[id] != nil } }

    /// Stops every source, waits up to `seconds` for their threads, and ends the stream.
    func stopAll(waiting seconds: Double = 3) async {
        for signal in running.withLock({ Array($0.values) }) { signal.set() }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        while threads.load(ordering: .relaxed) > 0, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        continuation.finish()
    }
}

/// Feeds the engine from the source runner until shutdown.
struct SensorService: Service {
    let engine: PackEngine
    let runner: SourceRunner
    let initial: [any LiveSource]

    func run() async throws {
        for source in initial { runner.start(source) }
        await withGracefulShutdownHandler {
            for await event in runner.stream { await engine.ingest(event) }
        } onGracefulShutdown: {
            Task { await runner.stopAll() }
        }
    }
}
