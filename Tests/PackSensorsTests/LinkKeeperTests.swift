import HandoffModel
import PackSystem
import TestSupport
import Testing

@testable import PackSensors

@Suite("Reconnecting sources warn once, then one attempt in 30")
struct LinkKeeperTests {
    /// Runs `cycles` of up-then-down (each link held `held` seconds of the test's clock, which
    /// the keeper reads) and counts the warnings.
    static func warnings(cycles: Int, held: Int64) -> [Int] {
        let time = TestPackClock()
        var keeper = LinkKeeper(sensor: "gps0", clock: time.clock, backoff: Backoff(initial: 0.001, maximum: 0.001))
        let stop = StopFlag()
        var warned: [Int] = []
        for _ in 0..<cycles {
            keeper.up(reason: "gpsd", emit: { _ in })
            time.advance(seconds: held)
            keeper.down(reason: "gpsd sent nothing for 10 s", emit: { _ in }, stop: stop) { warned.append($0) }
        }
        return warned
    }

    @Test("A link that comes up and drops again at once (gpsd with no receiver) warns at the 1st, 30th, 60th time")
    func flapping() {
        #expect(Self.warnings(cycles: 65, held: 0) == [1, 30, 60])
        #expect(Self.warnings(cycles: 65, held: 29) == [1, 30, 60], "29 s is not yet steady")
    }

    @Test("A link that held steadily (30 s of the keeper's clock, with no sleep) warns again at its first failure")
    func steady() {
        #expect(Self.warnings(cycles: 3, held: 30) == [1, 1, 1])
    }

    @Test("The link events are stamped by the keeper's clock")
    func stamps() {
        let time = TestPackClock(synchronized: false)
        var keeper = LinkKeeper(sensor: "gps0", clock: time.clock, backoff: Backoff(initial: 0.001, maximum: 0.001))
        var events: [CaptureEvent] = []
        keeper.up(reason: "gpsd", emit: { events.append($0) })
        time.advance(seconds: 42)
        keeper.down(reason: "gone", emit: { events.append($0) }, stop: StopFlag()) { _ in }
        #expect(events.map(\.monotonic.nanoseconds) == [5, 47].map { $0 * nanosecondsPerSecond })
        #expect(events.map(\.wall) == events.map { time.wall(at: $0.monotonic) })
    }
}
