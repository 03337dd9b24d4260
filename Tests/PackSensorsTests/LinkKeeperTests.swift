import HandoffModel
import PackSystem
import Testing

@testable import PackSensors

@Suite("Reconnecting sources warn once, then one attempt in 30")
struct LinkKeeperTests {
    /// Runs `cycles` of up-then-down (each link held `held` seconds) and counts the warnings.
    static func warnings(cycles: Int, held: Double, steadyAfter: Double) -> [Int] {
        var keeper = LinkKeeper(sensor: "gps0", backoff: Backoff(initial: 0.001, maximum: 0.001))
        keeper.steadyAfter = steadyAfter
        let stop = StopFlag()
        var warned: [Int] = []
        for _ in 0..<cycles {
            keeper.up(reason: "gpsd", emit: { _ in })
            if held > 0 { _ = stop.sleep(seconds: held) }
            keeper.down(reason: "gpsd sent nothing for 10 s", emit: { _ in }, stop: stop) { warned.append($0) }
        }
        return warned
    }

    @Test("A link that comes up and drops again at once (gpsd with no receiver) warns at the 1st, 30th, 60th time")
    func flapping() {
        #expect(Self.warnings(cycles: 65, held: 0, steadyAfter: 30) == [1, 30, 60])
    }

    @Test("A link that held steadily warns again at its first failure")
    func steady() {
        #expect(Self.warnings(cycles: 3, held: 0.02, steadyAfter: 0.01) == [1, 1, 1])
    }
}
