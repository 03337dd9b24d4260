import Foundation
import GRDB
import HandoffModel
import Logging
import PackStorage
import RunSimulator
import TestSupport
import Testing

@testable import PackService

@Suite("The engine when the journal fails")
struct EngineJournalTests {
    /// Replays `run` into an engine over a journal at `path`; `during(second)` runs after each event.
    static func record(
        _ run: SimulatedRun, path: String, during: (Int) throws -> Void = { _ in }
    ) async throws -> PackDatabase {
        let database = try PackDatabase(path: path)
        let engine = PackEngine(
            database: database, configuration: PackConfiguration(), mode: .replay, sensors: run.header.sensors,
            recoveredRuns: [], logger: Logger(label: "test"))
        let start = run.events.first!.monotonic
        for event in run.events {
            await engine.ingest(event)
            try during(Int(event.monotonic.seconds(since: start)))
        }
        await engine.shutdown()
        return database
    }

    @Test("A journal that refuses writes loses nothing: the run waits in memory and is written when it recovers")
    func refusedWritesAreKept() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let run = RunSimulator.simulate(SimulationScenario(seed: 4, minutes: 3))
        let healthy = try await Self.record(run, path: dir.path + "/healthy.sqlite")

        // Another connection takes tables away under the engine: first the runs table (the run
        // cannot even be created), then the points table for a while.
        let path = dir.path + "/failing.sqlite"
        _ = try PackDatabase(path: path)
        let side = try DatabaseQueue(path: path)
        try await side.write { try $0.execute(sql: "ALTER TABLE session RENAME TO session_away") }
        var step = 0
        let failing = try await Self.record(run, path: path) { second in
            switch (step, second) {
            case (0, 40...):
                try side.write { try $0.execute(sql: "ALTER TABLE session_away RENAME TO session") }
                step = 1
            case (1, 70...):
                try side.write { try $0.execute(sql: "ALTER TABLE point RENAME TO point_away") }
                step = 2
            case (2, 110...):
                try side.write { try $0.execute(sql: "ALTER TABLE point_away RENAME TO point") }
                step = 3
            default: break
            }
        }
        #expect(step == 3)
        let expected = try healthy.runs()
        let got = try failing.runs()
        #expect(got.count == 1)
        #expect(got.first?.state == .finished)
        #expect(got.first?.summary == expected.first?.summary)
        let id = try #require(got.first?.id)
        #expect(try failing.points(of: id) == healthy.points(of: expected[0].id))
        #expect(try failing.rrIntervals(of: id) == healthy.rrIntervals(of: expected[0].id))
        #expect(try failing.integrityCheck() == "ok")
    }
}
