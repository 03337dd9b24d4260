import Foundation
import HandoffModel
import Logging
import PackControl
import PackStorage
import RunSimulator
import TestSupport
import Testing

@testable import PackService

/// Issue 29: a run shorter than `[recording] discard_shorter_than_s` with no distance is
/// discarded at `handoff stop` (never in the outbox), unless `--keep` or the setting is 0.
@Suite("Runs worth keeping: discarded at stop")
struct DiscardAtStopTests {
    static let wall = CivilTime(year: 2026, month: 6, day: 14, hour: 7).instant

    static func engine(
        _ database: PackDatabase, discardBelow: Double? = nil, sensors: [SensorDescriptor] = []
    ) -> PackEngine {
        var configuration = PackConfiguration()
        if let discardBelow { configuration.recording.discardShorterThanSeconds = discardBelow }
        return PackEngine(
            database: database, configuration: configuration, mode: .replay, sensors: sensors, recoveredRuns: [],
            logger: Logger(label: "test"))
    }

    /// Starts a run and lets `seconds` pass with nothing measured: no distance.
    static func standStill(_ engine: PackEngine, seconds: Int64) async {
        let start = MonotonicInstant(nanoseconds: 1_000_000_000)
        await engine.ingest(CaptureEvent(monotonic: start, wall: wall, body: .command(.start)))
        await engine.ingest(
            CaptureEvent(
                monotonic: start.advanced(byNanoseconds: seconds * nanosecondsPerSecond),
                wall: wall.advanced(byNanoseconds: seconds * nanosecondsPerSecond), body: .clock(synchronized: true)))
    }

    @Test(
        "A 20-second run with no distance is discarded at stop: gone from the journal, never in the outbox; the reply says why and how to keep one"
    )
    func shortEmptyRunDiscarded() async throws {
        let database = try PackDatabase.inMemory()
        let engine = Self.engine(database)
        await Self.standStill(engine, seconds: 20)
        let run = try #require(try database.runs().first?.id)
        await engine.noteBaton(run: run.rawValue, group: 7, mode: .held)
        let report = try await engine.command(.stop)
        #expect(report.discarded == true && report.runId == run.rawValue)
        #expect(report.message.contains("Run \(run.rawValue) discarded"))
        #expect(report.message.contains("--keep") && report.message.contains("discard_shorter_than_s = 0"))
        #expect(report.message.contains("You still hold the baton"), "\(report.message)")
        #expect(try database.runs().isEmpty && database.outboxCount() == 0)
        #expect(await engine.status().state == .finished, "stopped: no run is being recorded")
        let json = try ControlJSON.encode(report)
        #expect(json.contains(#""discarded":true"#))
    }

    @Test("--keep keeps a short run with no distance; so does discard_shorter_than_s = 0; a long one is kept anyway")
    func keptWhenAsked() async throws {
        let kept = try PackDatabase.inMemory()
        let engine = Self.engine(kept)
        await Self.standStill(engine, seconds: 20)
        let report = try await engine.command(.stop, keep: true)
        #expect(report.discarded == nil && report.message.contains("finished"))
        #expect(try kept.runs().count == 1 && kept.outboxCount() == 1)

        let disabled = try PackDatabase.inMemory()
        let never = Self.engine(disabled, discardBelow: 0)
        await Self.standStill(never, seconds: 5)
        #expect(try await never.command(.stop).discarded == nil)
        #expect(try disabled.outboxCount() == 1)

        let long = try PackDatabase.inMemory()
        let standing = Self.engine(long)
        await Self.standStill(standing, seconds: 61)
        #expect(try await standing.command(.stop).discarded == nil)
        #expect(try long.outboxCount() == 1, "61 s on the spot is kept (a warm-up, say)")
    }

    @Test("A short run that went some distance is kept")
    func shortRunWithDistanceKept() async throws {
        let database = try PackDatabase.inMemory()
        let run = RunSimulator.simulate(SimulationScenario(seed: 29, minutes: 3))
        let engine = Self.engine(database, sensors: run.header.sensors)
        let start = try #require(run.events.first { if case .command(.start, _) = $0.body { true } else { false } })
        for event in run.events {
            if case .command(.stop, _) = event.body { break }
            await engine.ingest(event)
            if event.monotonic.seconds(since: start.monotonic) >= 45 { break }
        }
        let distance = try #require(await engine.status().run.distanceM)
        #expect(distance > 0)
        let report = try await engine.command(.stop)
        #expect(report.discarded == nil)
        #expect(try database.outboxCount() == 1)
        #expect(try #require(try database.runs().first?.summary?.elapsedSeconds) < 60)
    }

    @Test("[recording] discard_shorter_than_s is read; 0 turns discarding off")
    func configuration() throws {
        var c = PackConfiguration()
        #expect(c.recording.discardShorterThanSeconds == 60)
        try c.apply(toml: "[recording]\ndiscard_shorter_than_s = 0\n", path: "test.toml")
        #expect(c.recording.discardShorterThanSeconds == 0)
        try c.apply(toml: "[recording]\ndiscard_shorter_than_s = 30\n", path: "test.toml")
        #expect(c.recording.discardShorterThanSeconds == 30)
        #expect(throws: (any Error).self) { try c.apply(toml: "[recording]\ndiscard_shorter_than_s = -1\n", path: "t") }
    }

    @Test("The rule: shorter than the threshold and no distance is not worth keeping")
    func rule() {
        func summary(_ seconds: Double, _ metres: Double) -> RunSummary {
            RunSummary(
                elapsedSeconds: seconds,
                statistics: RunStatistics(
                    distanceMeters: metres, timerSeconds: seconds, movingSeconds: 0, pointCount: 0),
                splits: [])
        }
        #expect(!RecordingSession.worthKeeping(summary(59.9, 0), shorterThan: 60))
        #expect(RecordingSession.worthKeeping(summary(60, 0), shorterThan: 60))
        #expect(RecordingSession.worthKeeping(summary(10, 0.5), shorterThan: 60))
        #expect(RecordingSession.worthKeeping(summary(0, 0), shorterThan: 0))
    }
}
