import Foundation
import HandoffModel
import Logging
import PackSensors
import PackSync
import PackSystem
import SensorCodecs
import ServiceLifecycle
import Synchronization

/// Owns the engine's lifetime: first to start, last to stop, so that every other service has
/// stopped feeding it before it finishes the run in progress and checkpoints the journal.
struct EngineService: Service {
    let engine: PackEngine

    func run() async throws {
        try? await gracefulShutdown()
        await engine.shutdown()
    }
}

/// Ticks the recorder while live, so that points are written even when no sensor speaks: at
/// each second of the run's grid as it ends (a notification is then on the card within a second
/// plus a commit), and once a second between runs.
struct TickService: Service {
    let engine: PackEngine
    /// Beaten after each tick: the watchdog's proof that the recorder is going.
    var heartbeat: RecorderHeartbeat?

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var due: MonotonicInstant?
            while !Task.isCancelled {
                var wait: Int64 = 1_000_000_000
                if let due {
                    // 5 ms after the grid moment: the point is due, and a notification stamped just
                    // before it has had time to reach the engine and be in it.
                    wait = min(
                        wait, max(10_000_000, due.nanoseconds - engine.clock.monotonic().nanoseconds + 5_000_000))
                }
                try await Task.sleep(for: .nanoseconds(wait))
                due = await engine.tick()
                heartbeat?.beat()
            }
        }
    }
}

/// Replays a capture file into the engine at a speed factor (or as fast as it records).
struct ReplayService: Service {
    let engine: PackEngine
    let path: String
    let speed: ReplaySpeed
    /// Stamp events with the engine's clock as they are played (live replay), instead of their own.
    var restamp = false
    /// Move wall-clock times so that the capture's first one is now.
    var startNow = false
    /// Replay only these sensors' events (commands always).
    var sensors: Set<String>?
    let logger: Logger

    func run() async throws {
        let reader: CaptureFileReader
        do { reader = try CaptureFileReader(path: path) } catch {
            logger.error("Cannot replay \(path): \(error)")
            throw error
        }
        await engine.beginReplay(header: reader.header, file: path, speed: speed)
        logger.info("Replaying \(path) at \(speed)", metadata: ["sensors": "\(reader.header.sensors.count)"])
        let clock = ContinuousClock()
        let realStart = clock.now
        var firstMonotonic: MonotonicInstant?
        var count = 0
        var wallShift: Int64?
        let size = max(1, reader.size)
        let stopping = StopFlag()
        await withGracefulShutdownHandler {
            do {
                // Between events at most a second passes at 1x, so the flag is seen promptly.
                while !stopping.isSet, var event = try reader.next() {
                    if let sensors {
                        switch event.body {
                        case .payload(let sensor, _, _), .link(let sensor, _, _):
                            if !sensors.contains(sensor.rawValue) { continue }
                        case .command, .clock: break
                        }
                    }
                    if case .factor(let factor) = speed {
                        let first = firstMonotonic ?? event.monotonic
                        firstMonotonic = first
                        let offset = Double(event.monotonic.nanoseconds - first.nanoseconds) / factor
                        let due = realStart.advanced(by: .nanoseconds(Int64(offset)))
                        while !stopping.isSet, due > clock.now {
                            try await clock.sleep(until: min(due, clock.now.advanced(by: .milliseconds(250))))
                        }
                    }
                    if startNow, let wall = event.wall {
                        let shift =
                            wallShift ?? (engine.clock.wall().nanosecondsSinceEpoch - wall.nanosecondsSinceEpoch)
                        wallShift = shift
                        event.wall = wall.advanced(byNanoseconds: shift)
                    }
                    if restamp {
                        event.monotonic = engine.clock.monotonic()
                        event.wall = engine.clock.wall()
                    }
                    await engine.ingest(event)
                    count += 1
                    if count % 200 == 0 {
                        await engine.replayProgress(events: count, progress: Double(reader.position) / Double(size))
                    }
                }
            } catch {
                logger.error("Replay stopped: \(error)")
            }
        } onGracefulShutdown: {
            stopping.set()
        }
        await engine.endReplay(events: count, skippedLines: reader.skipped)
    }
}

/// Runs the sync worker and the Wi-Fi monitor that wakes it. On shutdown an upload in flight is
/// cancelled: the run stays in the outbox and goes at the next start (the store recognises a
/// repeat by its UUID and bytes).
struct SyncService: Service {
    let worker: SyncWorker
    let monitor: NetworkMonitor
    let logger: Logger

    func run() async throws {
        monitor.start()
        let running = Task { await worker.run() }
        let (stopRequested, stop) = AsyncStream<Void>.makeStream()
        // The worker may be asleep on its wake-up (which cancellation alone does not end) or in an
        // upload (which it does): both are ended, and waited for 5 s at most.
        await withGracefulShutdownHandler {
            await awaitStop(running, stopRequested: stopRequested, grace: .seconds(5), logger: logger, what: "Sync")
        } onGracefulShutdown: {
            running.cancel()
            Task { await worker.stop() }
            stop.finish()
        }
        monitor.stop()
    }
}

/// Waits for `task` to end; once `stopRequested` ends, for `grace` more at most. Foundation's
/// URLSession on Linux was seen to leave a request's `data(for:)` waiting for ever when its task
/// was cancelled: a pack told to stop during a request then never stopped, and the engine's
/// shutdown (the journal's checkpoint) never ran. Such a task is left behind; the process is
/// about to exit.
func awaitStop(
    _ task: Task<Void, Never>, stopRequested: AsyncStream<Void>, grace: Duration, logger: Logger, what: String
) async {
    let first = FirstResume()
    let finished: Bool = await withCheckedContinuation { continuation in
        first.set(continuation)
        Task {
            await task.value
            first.resume(true)
        }
        Task {
            for await _ in stopRequested {}
            try? await Task.sleep(for: grace)
            first.resume(false)
        }
    }
    if !finished { logger.warning("\(what) did not stop within \(grace) of being asked; handoffd stops without it") }
}

/// A continuation resumed once, by whichever racer comes first.
private final class FirstResume: Sendable {
    private let pending = Mutex<CheckedContinuation<Bool, Never>?>(nil)

    func set(_ continuation: CheckedContinuation<Bool, Never>) { pending.withLock { $0 = continuation } }

    func resume(_ value: Bool) {
        pending.withLock { pending -> CheckedContinuation<Bool, Never>? in
            defer { pending = nil }
            return pending
        }?.resume(returning: value)
    }
}

/// Sends live runs to the store (`LiveSender`, on a thread of its own) beside the recording,
/// never in its way.
struct LiveService: Service {
    let sender: LiveSender

    func run() async throws {
        sender.start()
        try? await gracefulShutdown()
        sender.stop()
    }
}
