import HandoffModel
import Logging
import PackStorage
import TestSupport
import Testing

@testable import PackService

/// Issue 30: the engine reads one injected clock; `[recording] system_clock` replaces the old
/// `HANDOFF_CLOCK_SYNCHRONIZED` environment override.
@Suite("One injected clock")
struct InjectedClockTests {
    @Test("[recording] system_clock: kernel by default; synchronized and unsynchronized override the kernel")
    func configuration() throws {
        var c = PackConfiguration()
        #expect(c.recording.systemClock == .kernel)
        try c.apply(toml: "[recording]\nsystem_clock = \"synchronized\"\n", path: "t.toml")
        #expect(c.recording.clock.isSynchronized())
        try c.apply(toml: "[recording]\nsystem_clock = \"unsynchronized\"\n", path: "t.toml")
        #expect(!c.recording.clock.isSynchronized())
        #expect {
            try c.apply(toml: "[recording]\nsystem_clock = \"sometimes\"\n", path: "t.toml")
        } throws: { "\($0)".contains("system_clock") && "\($0)".contains("kernel, synchronized, unsynchronized") }
    }

    @Test("A live engine on a test clock: a minute of points from ticks alone, dated by that clock, with no sleep")
    func liveEngineOnATestClock() async throws {
        for synchronized in [true, false] {
            let time = TestPackClock(synchronized: synchronized)
            let database = try PackDatabase.inMemory()
            let engine = PackEngine(
                database: database, configuration: PackConfiguration(), mode: .live, sensors: [], recoveredRuns: [],
                logger: Logger(label: "test"), clock: time.clock)
            await engine.checkClock()
            _ = try await engine.command(.start)
            for _ in 0..<60 {
                time.advance(seconds: 1)
                await engine.tick()
            }
            let status = await engine.status()
            #expect(status.run.points == 61, "a point at 0 s and one for each of the 60 seconds ticked")
            #expect(status.gps.clock == (synchronized ? .system : .unsynchronized))
            _ = try await engine.command(.stop, keep: true)
            let run = try #require(try database.runs().first)
            #expect(run.startWall == TestPackClock.epoch.advanced(byNanoseconds: 5 * nanosecondsPerSecond))
            #expect(run.summary?.elapsedSeconds == 60)
        }
    }
}
