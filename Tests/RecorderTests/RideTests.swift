import HandoffModel
import Recorder
import RunSimulator
import SensorCodecs
import Testing

@Suite("Rides: the bike's CSC sensor gives speed, distance and cadence; GPS the route")
struct RideTests {
    static func ride(seed: UInt64 = 7, loops: Int = 2) -> SimulatedRun {
        RunSimulator.simulate(SimulationScenario(seed: seed, loops: loops, sport: .bike))
    }

    static func record(
        _ run: SimulatedRun, configuration: RecorderConfiguration = RecorderConfiguration()
    )
        -> (summary: RunSummary, points: [RecordPoint], pipeline: RunPipeline, start: SessionStart)
    {
        var pipeline = RunPipeline(configuration: configuration, sensors: run.header.sensors)
        var outputs: [RecorderOutput] = []
        for event in run.events { outputs += pipeline.process(event).outputs }
        let summary = outputs.compactMap { if case .finished(let s) = $0 { s } else { nil } }.first!
        let start = outputs.compactMap { if case .started(let s) = $0 { s } else { nil } }.first!
        return (summary, outputs.compactMap { if case .point(let p) = $0 { p } else { nil } }, pipeline, start)
    }

    @Test(
        "A simulated ride learns its wheel within 0.5 % and records distance within 0.5 % and cadence within 1 rpm",
        arguments: [7, 11] as [UInt64])
    func learntWheel(seed: UInt64) throws {
        let run = Self.ride(seed: seed)
        let truth = run.truth
        let ride = try #require(truth.ride)
        let (summary, points, pipeline, start) = Self.record(run)
        #expect(start.sport == .bike)
        let wheel = try #require(pipeline.recorder.wheelCircumference(of: "bike0"))
        let distanceError = (summary.statistics.distanceMeters - truth.routeDistanceMeters) / truth.routeDistanceMeters
        print(
            "seed \(seed): wheel \(wheel) for \(ride.wheelCircumferenceMeters); distance \(summary.statistics.distanceMeters) for \(truth.routeDistanceMeters); rpm \(summary.statistics.averageCrankCadence ?? -1) for \(ride.averageCrankRPM)"
        )
        #expect(abs(wheel - ride.wheelCircumferenceMeters) / ride.wheelCircumferenceMeters < 0.005)
        #expect(abs(distanceError) < 0.005)
        let rpm = try #require(summary.statistics.averageCrankCadence)
        #expect(abs(rpm - ride.averageCrankRPM) < 1)
        #expect(summary.statistics.averageCadence == nil, "a ride has no steps")
        #expect(points.contains { $0.bikeSensor == "bike0" && $0.cadenceRPM == 0 && $0.isMoving }, "coasting")
        #expect(
            points.contains { $0.gpsFix == .none && $0.isMoving && $0.speedMetersPerSecond != nil }, "the underpass")
        let fastest = summary.statistics.maximumSpeed ?? 0
        #expect(fastest > 8 && fastest < 15, "a rider's speed, not a glitch's: \(fastest) m/s")
    }

    @Test("With the wheel configured, the wheel measures the ride from its first metre")
    func configuredWheel() throws {
        let run = Self.ride(loops: 1)
        let configuration = RecorderConfiguration(bike: BikeConfiguration(wheelCircumferenceMeters: 2.105))
        let (summary, points, _, _) = Self.record(run, configuration: configuration)
        let error = (summary.statistics.distanceMeters - run.truth.routeDistanceMeters) / run.truth.routeDistanceMeters
        #expect(abs(error) < 0.005, "\(error * 100) %")
        // Through the underpass (no GPS) the wheel's speed goes on.
        let blind = points.filter { $0.gpsFix == .none && $0.elapsedSeconds > 60 }
        #expect(!blind.isEmpty && blind.allSatisfy { ($0.speedMetersPerSecond ?? 0) > 3 })
    }

    @Test("A wheel 3 % too large in the configuration gives 3 % more distance: the wheel, not GPS, measures")
    func wrongWheel() throws {
        let run = Self.ride(loops: 1)
        let configuration = RecorderConfiguration(bike: BikeConfiguration(wheelCircumferenceMeters: 2.105 * 1.03))
        let (summary, _, _, _) = Self.record(run, configuration: configuration)
        let ratio = summary.statistics.distanceMeters / run.truth.routeDistanceMeters
        #expect(abs(ratio - 1.03) < 0.005, "\(ratio)")
    }

    @Test("A run with the bike sensor still paired takes nothing from it")
    func runIgnoresBike() throws {
        var harness = Harness(
            configuration: RecorderConfiguration(bike: BikeConfiguration(wheelCircumferenceMeters: 2)))
        try harness.command(.start, at: 0)
        for s in 0...20 {
            harness.csc(
                wheel: UInt32(s * 4), wheelTime: Double(s), crank: UInt16(s), crankTime: Double(s), at: Double(s))
        }
        try harness.command(.stop, at: 20.5)
        #expect(harness.summary?.statistics.distanceMeters == 0)
        #expect(harness.points.allSatisfy { $0.cadenceRPM == nil && $0.bikeSensor == nil })
    }

    @Test("Wrapping counts and event times, coasting, a pause and a sensor reset")
    func countsAndEdges() throws {
        var harness = Harness(
            configuration: RecorderConfiguration(bike: BikeConfiguration(wheelCircumferenceMeters: 2)))
        harness.outputs += try harness.recorder.handle(.start, at: Harness.time(0), sport: .bike)
        // 4 revolutions a second (8 m/s) and 60 rpm, the wheel count wrapping at 2^32, the crank's
        // at 2^16 and the event times at 64 s.
        var wheel = UInt32.max - 10
        var crank = UInt16.max - 2
        for s in 1...70 {
            wheel &+= 4
            crank &+= 1
            harness.csc(wheel: wheel, wheelTime: Double(s), crank: crank, crankTime: Double(s), at: Double(s))
        }
        harness.advance(to: 70.5)
        let riding = harness.points.filter { $0.elapsedSeconds > 2 }
        #expect(riding.allSatisfy { abs(($0.speedMetersPerSecond ?? 0) - 8) < 1e-6 }, "through both wraps")
        #expect(riding.allSatisfy { $0.cadenceRPM == 60 })
        // The point at 70 s holds what came before it: 68 intervals of 8 m.
        #expect(abs((harness.points.last?.distanceMeters ?? 0) - 68 * 8) < 1e-6)
        // Coasting: the crank's last event repeats; after 2 s its cadence is 0, the wheel goes on.
        for s in 71...75 {
            wheel &+= 4
            harness.csc(wheel: wheel, wheelTime: Double(s), crank: crank, crankTime: 70, at: Double(s))
        }
        harness.advance(to: 75.5)
        #expect(harness.points.last?.cadenceRPM == 0)
        #expect(abs((harness.points.last?.speedMetersPerSecond ?? 0) - 8) < 1e-6)
        // Paused at 75.5 s: the wheel turns, nothing counts but the half second before the pause.
        try harness.command(.pause, at: 75.5)
        let before = harness.recorder.snapshot(at: Harness.time(75.5)).distanceMeters ?? 0
        for s in 76...80 {
            wheel &+= 4
            harness.csc(wheel: wheel, wheelTime: Double(s), crank: crank, crankTime: 70, at: Double(s))
        }
        try harness.command(.resume, at: 80.5)
        // The sensor restarts from zero: that interval counts nothing, the next ones again.
        wheel = 0
        harness.csc(wheel: wheel, wheelTime: 81, crank: 0, crankTime: 81, at: 81)
        for s in 82...84 {
            wheel &+= 4
            harness.csc(wheel: wheel, wheelTime: Double(s), crank: 0, crankTime: 81, at: Double(s))
        }
        harness.advance(to: 84.5)
        let afterReset = harness.points.filter { $0.elapsedSeconds >= 81 }
        #expect(afterReset.allSatisfy { ($0.speedMetersPerSecond ?? 0) <= 8 + 1e-6 }, "no speed from the reset")
        #expect(afterReset.allSatisfy { ($0.cadenceRPM ?? 0) <= 250 }, "no cadence from the reset")
        try harness.command(.stop, at: 84.5)
        let after = try #require(harness.summary).statistics.distanceMeters
        #expect(abs(after - before - (4 + 3 * 8)) < 1e-6, "\(after - before)")
    }
}

extension Harness {
    mutating func csc(
        wheel: UInt32, wheelTime: Double, crank: UInt16, crankTime: Double, at seconds: Double,
        sensor: SensorID = "bike0"
    ) {
        let m = CSCMeasurement(
            wheel: .init(
                count: wheel, lastEventTime1024ths: UInt16(truncatingIfNeeded: Int((wheelTime * 1024).rounded()))),
            crank: .init(
                count: crank, lastEventTime1024ths: UInt16(truncatingIfNeeded: Int((crankTime * 1024).rounded()))))
        outputs += recorder.receive(
            SensorReading(time: Harness.time(seconds), sensor: sensor, value: .cyclingSpeedCadence(m)))
    }
}
