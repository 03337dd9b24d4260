import HandoffModel
import Recorder
import Testing

@Suite("Run statistics: what each average counts")
struct StatisticsTests {
    @Test(
        "Cadence is averaged over the seconds with steps; heart rate over the seconds with a reading; the maximum speed is the largest"
    )
    func averages() {
        var accumulator = StatisticsAccumulator()
        // Running at 170 and 174, standing at a light (cadence 0) for two seconds, one second
        // without a footpod reading; the strap drops out for one second.
        let seconds: [(cadence: Int?, heartRate: Int?, speed: Double?, moving: Bool)] = [
            (170, 150, 3.0, true), (0, 148, 0, false), (0, 146, 0, false), (nil, nil, 2.5, true),
            (174, 152, 3.2, true),
        ]
        for (elapsed, second) in seconds.enumerated() {
            accumulator.add(
                RecordPoint(
                    elapsedSeconds: elapsed, speedMetersPerSecond: second.speed, heartRateBPM: second.heartRate,
                    cadenceSPM: second.cadence, isMoving: second.moving))
        }
        let statistics = accumulator.statistics(distanceMeters: 12, timerSeconds: 5)
        #expect(statistics.averageCadence == 172)
        #expect(statistics.averageHeartRate == 149)
        #expect(statistics.maximumHeartRate == 152)
        #expect(statistics.maximumSpeed == 3.2)
        #expect(statistics.movingSeconds == 3)
        #expect(statistics.pointCount == 5)
        #expect(statistics.distanceMeters == 12 && statistics.timerSeconds == 5)
    }

    @Test("The timer stands still in a pause: at an instant inside one, only the part of it so far is left out")
    func timerDuringPause() {
        let second = nanosecondsPerSecond
        var timeline = TimerTimeline()
        timeline.pause(atOffset: 10 * second)
        #expect(timeline.timerSeconds(atOffset: 15 * second) == 10, "an open pause")
        timeline.resume(atOffset: 20 * second)
        #expect(timeline.timerSeconds(atOffset: 5 * second) == 5)
        #expect(timeline.timerSeconds(atOffset: 15 * second) == 10, "inside the closed pause")
        #expect(timeline.timerSeconds(atOffset: 25 * second) == 15)
    }
}
