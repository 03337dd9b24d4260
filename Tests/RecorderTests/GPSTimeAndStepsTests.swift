import HandoffModel
import Recorder
import SensorCodecs
import Testing

/// GPS time replacing an unsynchronised clock, and steps from a pedometer or the footpod.
@Suite("Recorder: GPS time and steps")
struct GPSTimeAndStepsTests {
    /// 2026-11-22 08:00:00 UTC, the true time at monotonic second 0 of the harness.
    static let trueStart = CivilTime(year: 2026, month: 11, day: 22, hour: 8, minute: 0, second: 0).instant
    /// The pack's clock, a year behind and not synchronised.
    static let wrongWall = trueStart.advanced(byNanoseconds: -365 * 86_400 * 1_000_000_000)

    /// A fix stating the true time of harness second `epoch`, delivered `late` seconds after it.
    static func fix(epoch: Int, late: Double, harness h: inout Harness) {
        let civil = CivilTime(trueStart.advanced(byNanoseconds: Int64(epoch) * 1_000_000_000))
        let value = GNSSFix(
            mode: .threeD, time: NMEATime(hour: civil.hour, minute: civil.minute, second: Double(civil.second)),
            date: NMEADate(year: civil.year, month: civil.month, day: civil.day), latitude: 48, longitude: 11.5,
            speedMetersPerSecond: 0, hdop: 1)
        h.outputs += h.recorder.receive(
            SensorReading(time: Harness.time(Double(epoch) + late), sensor: "gps0", value: .gnss(value)))
    }

    static func corrections(_ h: Harness) -> [WallInstant] {
        h.outputs.compactMap { if case .wallClockCorrected(let w) = $0 { w } else { nil } }
    }

    /// Monotonic second 0 of the harness is `Harness.time(0)`; the run starts at second 2.
    static func startedHarness(synchronized: Bool) throws -> Harness {
        var h = Harness()
        h.recorder.wallClockSynchronized = synchronized
        h.outputs += try h.recorder.handle(
            .start, at: Harness.time(2), wall: wrongWall.advanced(byNanoseconds: 2_000_000_000))
        return h
    }

    @Test("Unsynchronised clock: the first fix moves the start to GPS time; prompter fixes refine it")
    func firstFixDuringRunAndRefinement() throws {
        var h = try Self.startedHarness(synchronized: false)
        let started = h.outputs.compactMap { if case .started(let s) = $0 { s } else { nil } }
        #expect(started.first?.wallFromGPS == false)
        // The first fix is only known complete when the next epoch begins: 1.05 s late.
        Self.fix(epoch: 5, late: 1.05, harness: &h)
        let expected = Self.trueStart.advanced(byNanoseconds: 2_000_000_000)
        var corrections = Self.corrections(h)
        #expect(corrections.count == 1)
        #expect(
            abs((corrections.last?.nanosecondsSinceEpoch ?? 0) - expected.nanosecondsSinceEpoch - -1_050_000_000) < 1000
        )
        // Later fixes arrive 0.1 s after their second: the start moves to within 0.1 s of the truth.
        for epoch in 6...9 { Self.fix(epoch: epoch, late: 0.1, harness: &h) }
        corrections = Self.corrections(h)
        #expect(corrections.count == 2, "one refinement, not one per fix")
        #expect(
            abs((corrections.last?.nanosecondsSinceEpoch ?? 0) - expected.nanosecondsSinceEpoch + 100_000_000) < 1000)
        // A later, laggier fix does not undo it.
        Self.fix(epoch: 10, late: 0.9, harness: &h)
        #expect(Self.corrections(h).count == 2)
        #expect(h.recorder.start?.wallFromGPS == true)
    }

    @Test("A fix before the start: the run begins in GPS time")
    func fixBeforeStart() throws {
        var h = Harness()
        h.recorder.wallClockSynchronized = false
        Self.fix(epoch: 0, late: 0.2, harness: &h)
        h.outputs += try h.recorder.handle(
            .start, at: Harness.time(2), wall: Self.wrongWall.advanced(byNanoseconds: 2_000_000_000))
        let started = try #require(h.outputs.compactMap { if case .started(let s) = $0 { s } else { nil } }.first)
        #expect(started.wallFromGPS)
        let expected = Self.trueStart.advanced(byNanoseconds: 2_000_000_000 - 200_000_000)
        #expect(started.wall == expected)
    }

    @Test("A synchronised clock is never overridden, and fixes without a position teach no time")
    func synchronisedAndNoFix() throws {
        var h = try Self.startedHarness(synchronized: true)
        Self.fix(epoch: 5, late: 0.1, harness: &h)
        #expect(Self.corrections(h).isEmpty)
        var u = try Self.startedHarness(synchronized: false)
        let noFix = GNSSFix(
            mode: .none, time: NMEATime(hour: 8, minute: 0, second: 5), date: NMEADate(year: 2026, month: 11, day: 22))
        u.outputs += u.recorder.receive(SensorReading(time: Harness.time(5.1), sensor: "gps0", value: .gnss(noFix)))
        #expect(Self.corrections(u).isEmpty, "a receiver's clock before its first fix is a guess")
    }

    @Test("A receiver reset that steps GPS time back is taken afresh")
    func gpsTimeStep() throws {
        var h = try Self.startedHarness(synchronized: false)
        Self.fix(epoch: 5, late: 0.1, harness: &h)
        // The same second stated 10 s later in monotonic time: GPS time went back 10 s.
        let civil = CivilTime(Self.trueStart.advanced(byNanoseconds: 5_000_000_000))
        let value = GNSSFix(
            mode: .threeD, time: NMEATime(hour: civil.hour, minute: civil.minute, second: Double(civil.second)),
            date: NMEADate(year: civil.year, month: civil.month, day: civil.day), latitude: 48, longitude: 11.5)
        h.outputs += h.recorder.receive(SensorReading(time: Harness.time(15.1), sensor: "gps0", value: .gnss(value)))
        #expect(Self.corrections(h).count == 2)
    }

    @Test("Pedometer steps: increments while recording, none while paused, a counter reset loses nothing")
    func pedometerSteps() throws {
        var h = Harness(configuration: RecorderConfiguration(stepsFromFootpodCadence: false))
        h.steps(1000, at: 0.5)  // the counter's value before the run is not the run's
        try h.command(.start, at: 1)
        h.steps(1003, at: 1.5)
        h.steps(1006, at: 2.5)
        try h.command(.pause, at: 2.8)
        h.steps(1010, at: 3.5)  // walking to the car park while paused
        try h.command(.resume, at: 4)
        h.steps(1013, at: 4.5)
        h.steps(2, at: 5.5)  // the driver reloaded: the counter restarts from zero
        h.steps(5, at: 6.5)
        h.advance(to: 7)
        try h.command(.stop, at: 7)
        #expect(h.points.last?.steps == 3 + 3 + 3 + 2 + 3)
        #expect(h.summary?.steps == 14)
    }

    @Test(
        "Steps outside runs: counted before, between and after runs and while paused, never while recording; kept across runs"
    )
    func stepsOutsideRuns() throws {
        var h = Harness(configuration: RecorderConfiguration(stepsFromFootpodCadence: false))
        #expect(h.recorder.stepsOutsideRuns == 0 && !h.recorder.countsSteps)
        h.steps(1000, at: 0.5)  // the first count is where counting starts, not steps taken
        h.steps(1040, at: 0.9)
        #expect(h.recorder.stepsOutsideRuns == 40 && h.recorder.countsSteps)
        try h.command(.start, at: 1)
        h.steps(1043, at: 1.5)
        h.steps(1046, at: 2.5)
        try h.command(.pause, at: 2.8)
        h.steps(1050, at: 3.5)  // paused: outside the run
        try h.command(.resume, at: 4)
        h.steps(1053, at: 4.5)
        h.advance(to: 5)
        try h.command(.stop, at: 5)
        #expect(h.summary?.steps == 9)
        #expect(h.recorder.stepsOutsideRuns == 44)
        h.steps(3, at: 6.5)  // the counter was reset: what it says was counted since
        h.steps(10, at: 7.5)
        try h.command(.start, at: 8)  // a new run keeps the total outside runs
        h.steps(20, at: 8.5)
        #expect(h.recorder.stepsOutsideRuns == 44 + 3 + 7)
        h.advance(to: 9)
        try h.command(.stop, at: 9)
        let summaries = h.outputs.compactMap { if case .finished(let s) = $0 { s } else { nil } }
        #expect(summaries.map(\.steps) == [9, 10])
    }

    @Test("No pedometer: steps come from the footpod's cadence; a fresh pedometer takes over from it")
    func footpodFallback() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        for t in stride(from: 0.0, through: 10, by: 1) { h.footpod(speed: 3, cadence: 180, at: t) }
        h.advance(to: 10)
        // 180 steps a minute: the point at second 10 holds the 9 s up to the reading at second 9
        // (a point is emitted when its second passes, before a reading stamped at it is taken).
        #expect(h.points.last?.elapsedSeconds == 10)
        #expect(h.points.last?.steps == 27)
        h.steps(500, at: 10.5)
        for t in stride(from: 11.0, through: 20, by: 1) {
            h.footpod(speed: 3, cadence: 180, at: t)
            h.steps(500 + Int((t - 10) * 2), at: t + 0.2)
        }
        h.advance(to: 20.5)
        try h.command(.stop, at: 20.5)
        // The pedometer's count, not the cadence, for seconds 10.5–20.2: 20 steps.
        #expect(h.summary?.steps == 30 + 20)
    }

    @Test("Without a step source a run has no steps rather than zero")
    func noStepSource() throws {
        var h = Harness(configuration: RecorderConfiguration(stepsFromFootpodCadence: false))
        try h.command(.start, at: 0)
        h.heartRate(140, at: 0.5)
        h.advance(to: 3)
        try h.command(.stop, at: 3)
        #expect(h.points.allSatisfy { $0.steps == nil })
        #expect(h.summary?.steps == nil)
    }
}
