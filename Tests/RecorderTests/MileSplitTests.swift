import HandoffModel
import Recorder
import RunSimulator
import Testing

@Suite("Splits of another length (miles, for handoff show --units mi), from a finished run's points")
struct MileSplitTests {
    /// Points, events and summary of a simulated run, as the recorder gave them.
    static func record(_ run: SimulatedRun) -> (summary: RunSummary, points: [RecordPoint], events: [SessionEvent]) {
        var pipeline = RunPipeline(sensors: run.header.sensors)
        var outputs: [RecorderOutput] = []
        for event in run.events { outputs += pipeline.process(event).outputs }
        let summary = outputs.compactMap { if case .finished(let s) = $0 { s } else { nil } }.first!
        let points = outputs.compactMap { if case .point(let p) = $0 { p } else { nil } }
        let events = outputs.compactMap { if case .event(let e) = $0 { e } else { nil } }
        return (summary, points, events)
    }

    @Test("From the points, kilometre splits are the recorder's own; mile splits add up to the run")
    func fromPoints() throws {
        let run = RunSimulator.simulate(SimulationScenario())
        let (summary, points, events) = Self.record(run)
        let s = summary.statistics
        let kilometres = SplitTracker.splits(
            lengthMeters: 1000, points: points, events: events, distanceMeters: s.distanceMeters,
            timerSeconds: s.timerSeconds)
        #expect(kilometres == summary.splits)

        let miles = SplitTracker.splits(
            lengthMeters: 1609.344, points: points, events: events,
            distanceMeters: s.distanceMeters, timerSeconds: s.timerSeconds)
        let whole = Int(s.distanceMeters / 1609.344)
        #expect(miles.count == whole + 1, "\(whole) whole miles and the rest of \(s.distanceMeters) m")
        #expect(miles.map(\.kilometer) == Array(1...miles.count))
        #expect(miles.dropLast().allSatisfy { $0.distanceMeters == 1609.344 })
        #expect(abs(miles.map(\.distanceMeters).reduce(0, +) - s.distanceMeters) < 1e-6)
        #expect(abs(miles.map(\.seconds).reduce(0, +) - s.timerSeconds) < 1e-6)
        // A mile takes longer than a kilometre at the same pace, and the pace is the same.
        let first = try #require(miles.first?.paceSecondsPerKilometer)
        let kilometrePace = try #require(summary.splits.first?.paceSecondsPerKilometer)
        #expect(abs(first - kilometrePace) / kilometrePace < 0.1)
    }

    @Test("A pause inside a mile is left out of its time; a last bit under 10 m is no split")
    func pausesAndRemainder() {
        // 4 m/s for 500 s with a pause from 100 s to 160 s: 1760 m (a mile and 150.656 m)
        // in 440 timer seconds.
        var points: [RecordPoint] = []
        var distance = 0.0
        for second in 0...500 {
            if second > 0, !(101...160).contains(second) { distance += 4 }
            points.append(RecordPoint(elapsedSeconds: second, distanceMeters: distance))
        }
        let events = [
            SessionEvent(offsetNanoseconds: 100 * nanosecondsPerSecond, kind: .pause),
            SessionEvent(offsetNanoseconds: 160 * nanosecondsPerSecond, kind: .resume),
        ]
        let splits = SplitTracker.splits(
            lengthMeters: 1609.344, points: points, events: events, distanceMeters: distance, timerSeconds: 440)
        #expect(splits.count == 2)
        #expect(abs(splits[0].seconds - 1609.344 / 4) < 1e-9, "402.336 s of running, not the pause")
        #expect(abs(splits[1].distanceMeters - (1760 - 1609.344)) < 1e-9)
        let short = SplitTracker.splits(
            lengthMeters: 1609.344,
            points: Array(points.prefix(1)) + [RecordPoint(elapsedSeconds: 1, distanceMeters: 1615)],
            events: [], distanceMeters: 1615, timerSeconds: 1)
        #expect(short.count == 1, "5.656 m past the mile is not a split")
    }
}
