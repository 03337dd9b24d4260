import HandoffModel
import Recorder
import SensorCodecs
import Testing

/// A run recovered after a crash keeps the laps that closed before it and gets one final lap
/// from the last of them to its last point (issue 28: a final lap given the whole run's distance
/// passed every test, because no recovery test had a lap that closed before the crash).
@Suite("Recovery: the final lap after laps that closed before the crash")
struct RecoveryLapTests {
    /// 3 m a second from 0 s to `last` s, with a pause from 50 s to 60 s.
    static func points(to last: Int) -> [RecordPoint] {
        (0...last).map { RecordPoint(elapsedSeconds: $0, distanceMeters: Double($0) * 3, heartRateBPM: 120 + $0 % 20) }
    }

    static let events = [
        SessionEvent(offsetNanoseconds: 0, kind: .start),
        SessionEvent(offsetNanoseconds: 50_000_000_000, kind: .pause),
        SessionEvent(offsetNanoseconds: 60_000_000_000, kind: .resume),
    ]

    static func closedLap(_ index: Int, from start: Int, to end: Int) -> Lap {
        Lap(
            index: index, trigger: .distance, startElapsedSeconds: start, endElapsedSeconds: end,
            statistics: RunStatistics(
                distanceMeters: Double(end - start) * 3, timerSeconds: Double(end - start), pointCount: end - start + 1)
        )
    }

    @Test("Two laps closed at 40 s and 80 s, crash at 120 s: the final lap covers 80–120 s, 120 m, 40 s of timer")
    func finalLapAfterClosedLaps() throws {
        let laps = [Self.closedLap(1, from: 0, to: 40), Self.closedLap(2, from: 40, to: 80)]
        let result = RunRecovery.finish(points: Self.points(to: 120), events: Self.events, laps: laps)
        let final = try #require(result.finalLap)
        #expect(final.index == 3 && final.trigger == .sessionEnd)
        #expect(final.startElapsedSeconds == 80 && final.endElapsedSeconds == 120)
        #expect(final.statistics.distanceMeters == 120, "360 m in all, 240 m of them in the closed laps")
        #expect(final.statistics.timerSeconds == 40)
        #expect(final.statistics.pointCount == 40, "the points after the last closed lap's end")
        #expect(result.summary.statistics.distanceMeters == 360)
        #expect(result.summary.statistics.timerSeconds == 110, "120 s less the 10 s paused")
        // The laps together make the run.
        let all = laps.map(\.statistics.distanceMeters).reduce(0, +) + final.statistics.distanceMeters
        #expect(all == result.summary.statistics.distanceMeters)
    }

    @Test("A crash right at a lap's end leaves no empty final lap; with no closed lap the final lap is the run")
    func edges() throws {
        let atEnd = RunRecovery.finish(
            points: Self.points(to: 80), events: Self.events,
            laps: [Self.closedLap(1, from: 0, to: 40), Self.closedLap(2, from: 40, to: 80)])
        #expect(atEnd.finalLap == nil)
        let whole = try #require(
            RunRecovery.finish(points: Self.points(to: 30), events: Self.events, laps: []).finalLap)
        #expect(whole.index == 1 && whole.statistics.distanceMeters == 90 && whole.statistics.timerSeconds == 30)
    }
}

/// A capture whose clock jumps centuries (found by fuzzing: a stop at 2^63 ns made the recorder
/// fill memory with a point for every second of 292 years).
@Suite("The pipeline skips events whose clock jumps more than a day")
struct PipelineClockJumpTests {
    @Test("A stop at 2^63 ns after a start is skipped with a reason; the run goes on and stops normally")
    func stopAtTheEndOfTime() throws {
        var pipeline = RunPipeline()
        let start = CaptureEvent(
            monotonic: MonotonicInstant(nanoseconds: 1_000_000_000), wall: nil, body: .command(.start))
        #expect(pipeline.process(start).commandError == nil)
        let far = CaptureEvent(monotonic: MonotonicInstant(nanoseconds: .max), wall: nil, body: .command(.stop))
        let skipped = pipeline.process(far)
        #expect(skipped.decodeError?.contains("cannot jump so far") == true && skipped.outputs.isEmpty)
        #expect(pipeline.advance(to: MonotonicInstant(nanoseconds: .max)).isEmpty)
        // Within a day the clock is followed, and the stop applies.
        let later = MonotonicInstant(nanoseconds: 61_000_000_000)
        _ = pipeline.advance(to: later)
        let stop = pipeline.process(CaptureEvent(monotonic: later, wall: nil, body: .command(.stop)))
        #expect(stop.commandError == nil && stop.decodeError == nil)
        #expect(stop.outputs.contains { if case .finished = $0 { true } else { false } })
    }

    @Test("Events more than a day before the latest are skipped too (found by fuzzing: a run begun centuries back)")
    func backwards() {
        var pipeline = RunPipeline()
        let day: Int64 = 86_400 * 1_000_000_000
        _ = pipeline.advance(to: MonotonicInstant(nanoseconds: 3 * day))
        let early = pipeline.process(
            CaptureEvent(monotonic: MonotonicInstant(nanoseconds: day), wall: nil, body: .command(.start)))
        #expect(early.decodeError?.contains("before the latest") == true && early.outputs.isEmpty)
        let near = pipeline.process(
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 3 * day - 60_000_000_000), wall: nil, body: .command(.start)))
        #expect(near.decodeError == nil && near.commandError == nil)
    }
}
