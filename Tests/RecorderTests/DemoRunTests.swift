import HandoffModel
import Recorder
import RunSimulator
import SensorCodecs
import Testing

@Suite("Recorder on simulated runs: distance and heart rate against the simulator's truth")
struct DemoRunTests {
    static func record(_ run: SimulatedRun) -> (summary: RunSummary, rr: Int, points: [RecordPoint], rejected: Int) {
        var pipeline = RunPipeline(sensors: run.header.sensors)
        var outputs: [RecorderOutput] = []
        var rejected = 0
        for event in run.events {
            let step = pipeline.process(event)
            outputs += step.outputs
            if step.decodeError != nil { rejected += 1 }
        }
        let summary = outputs.compactMap { if case .finished(let s) = $0 { s } else { nil } }.first!
        let rr = outputs.reduce(0) { if case .rrIntervals(let b) = $1 { $0 + b.intervals1024ths.count } else { $0 } }
        let points = outputs.compactMap { if case .point(let p) = $0 { p } else { nil } }
        return (summary, rr, points, rejected)
    }

    @Test("The demo scenario: distance within 0.5 % of the route, average HR within 1 bpm, every RR interval kept")
    func demoScenario() {
        let run = RunSimulator.simulate(SimulationScenario())
        let truth = run.truth
        let (summary, rr, points, rejected) = Self.record(run)
        let error = (summary.statistics.distanceMeters - truth.routeDistanceMeters) / truth.routeDistanceMeters
        print("route \(truth.routeDistanceMeters) recorded \(summary.statistics.distanceMeters) error \(error * 100) %")
        print("hr truth \(truth.averageHeartRate) recorded \(summary.statistics.averageHeartRate ?? 0)")
        #expect(abs(error) < 0.005)
        #expect(abs(summary.statistics.averageHeartRate! - truth.averageHeartRate) < 1)
        #expect(rr == truth.rrIntervals)
        #expect(rejected == 2, "the two sentences corrupted on purpose")
        #expect(points.contains { $0.gpsFix == .none && $0.isMoving }, "the underpass")
        #expect(points.contains { $0.heartRateBPM == nil && $0.elapsedSeconds > 60 }, "the strap dropout")
    }

    @Test("Other seeds and an hour's run stay within 0.5 % and 1 bpm", arguments: [1, 2, 3] as [UInt64])
    func otherSeeds(seed: UInt64) {
        let run = RunSimulator.simulate(SimulationScenario(seed: seed, minutes: seed == 3 ? 60 : nil))
        let (summary, rr, _, _) = Self.record(run)
        let truth = run.truth
        let error = (summary.statistics.distanceMeters - truth.routeDistanceMeters) / truth.routeDistanceMeters
        #expect(abs(error) < 0.005, "seed \(seed): \(error * 100) %")
        #expect(abs(summary.statistics.averageHeartRate! - truth.averageHeartRate) < 1)
        #expect(rr == truth.rrIntervals)
    }

    @Test(
        "A receiver without speed (GGA alone): distance from jitter-filtered positions within 2 %",
        arguments: [7, 8] as [UInt64])
    func positionsOnly(seed: UInt64) {
        let run = RunSimulator.simulate(SimulationScenario(seed: seed, gpsSendsRMC: false))
        let (summary, _, _, _) = Self.record(run)
        let truth = run.truth.routeDistanceMeters
        let error = (summary.statistics.distanceMeters - truth) / truth
        print("seed \(seed) positions only: \(summary.statistics.distanceMeters) for \(truth): \(error * 100) %")
        #expect(abs(error) < 0.02)
    }

    @Test("Recovery from the points alone gives the live summary (but for the last partial second)")
    func recoveryMatchesLive() throws {
        let run = RunSimulator.simulate(SimulationScenario())
        var pipeline = RunPipeline(sensors: run.header.sensors)
        var outputs: [RecorderOutput] = []
        for event in run.events { outputs += pipeline.process(event).outputs }
        let points = outputs.compactMap { if case .point(let p) = $0 { p } else { nil } }
        let events = outputs.compactMap { if case .event(let e) = $0 { e } else { nil } }
        let laps = outputs.compactMap { if case .lap(let l) = $0 { l } else { nil } }
        let live = outputs.compactMap { if case .finished(let s) = $0 { s } else { nil } }.first!
        let recovered = RunRecovery.finish(points: points, events: events, laps: Array(laps.dropLast()))
        #expect(recovered.summary.statistics.averageHeartRate == live.statistics.averageHeartRate)
        #expect(recovered.summary.statistics.movingSeconds == live.statistics.movingSeconds)
        #expect(abs(recovered.summary.statistics.distanceMeters - live.statistics.distanceMeters) < 4)
        #expect(recovered.summary.splits.count == live.splits.count)
        for (a, b) in zip(recovered.summary.splits.dropLast(), live.splits) { #expect(a == b) }
        // The final lap starts where the last closed one ended, in both; it ends at the last point
        // when recovered, but at the stop (within the next second) when live. So it differs from
        // the live final lap by exactly what the whole run differs by (that partial second, at
        // most a second at the run's top speed), and is otherwise the same lap.
        let liveLap = try #require(laps.last)
        let lap = try #require(recovered.finalLap)
        #expect(lap.index == liveLap.index)
        #expect(lap.trigger == .sessionEnd)
        #expect(lap.startElapsedSeconds == liveLap.startElapsedSeconds)
        #expect(lap.endElapsedSeconds == points.last?.elapsedSeconds)
        let lost = live.statistics.distanceMeters - recovered.summary.statistics.distanceMeters
        #expect(lost >= 0 && lost <= (live.statistics.maximumSpeed ?? 0), "\(lost) m after the last point")
        #expect(
            abs(liveLap.statistics.distanceMeters - lap.statistics.distanceMeters - lost) < 1e-6,
            "final lap \(lap.statistics.distanceMeters) m, live \(liveLap.statistics.distanceMeters) m")
        let lostTimer = live.statistics.timerSeconds - recovered.summary.statistics.timerSeconds
        #expect(lostTimer >= 0 && lostTimer < 1)
        #expect(abs(liveLap.statistics.timerSeconds - lap.statistics.timerSeconds - lostTimer) < 1e-6)
        #expect(lap.statistics.movingSeconds == liveLap.statistics.movingSeconds)
        #expect(lap.statistics.averageHeartRate == liveLap.statistics.averageHeartRate)
        #expect(lap.statistics.maximumHeartRate == liveLap.statistics.maximumHeartRate)
    }
}
