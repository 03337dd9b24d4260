import HandoffModel
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ride's bike sensor (BLE Cycling Speed and Cadence): cumulative wheel and crank revolutions,
/// each with the exact moment its last revolution ended, sent about once a second. The rider
/// pedals at 80–90 rpm and coasts downhill and when braking; it has its own random stream, so
/// that a ride does not disturb a run's.
struct BikeSensor {
    var random: SimulationRandom
    var nextCSC = 1.41
    /// Revolutions so far (fractional) and when the last whole one ended, in seconds.
    var wheel = 0.0
    var wheelEvent = 0.0
    var crank = 0.0
    var crankEvent = 0.0
    /// The true cadence at each measurement sent while recording and pedalling.
    var cadenceSamples: [Double] = []

    init(seed: UInt64) {
        random = SimulationRandom(seed: seed ^ 0xB1CE_C5C0_0000_0001)
    }

    /// Turns the wheel over `meters` and the crank at `rpm` during the step from `t0` to `t1`,
    /// noting when each whole revolution ended (at a constant rate within the step).
    mutating func step(meters: Double, circumference: Double, rpm: Double, from t0: Double, to t1: Double) {
        let turned = meters / circumference
        if turned > 0, (wheel + turned).rounded(.down) > wheel.rounded(.down) {
            let whole = (wheel + turned).rounded(.down)
            wheelEvent = t0 + (t1 - t0) * (whole - wheel) / turned
        }
        wheel += turned
        let cranked = rpm / 60 * (t1 - t0)
        if cranked > 0, (crank + cranked).rounded(.down) > crank.rounded(.down) {
            let whole = (crank + cranked).rounded(.down)
            crankEvent = t0 + (t1 - t0) * (whole - crank) / cranked
        }
        crank += cranked
    }

    /// The measurement as the sensor sends it: counts wrap, event times in 1/1024 s wrap at 64 s.
    var measurement: CSCMeasurement {
        CSCMeasurement(
            wheel: .init(
                count: UInt32(truncatingIfNeeded: Int64(wheel.rounded(.down))),
                lastEventTime1024ths: UInt16(truncatingIfNeeded: Int64((wheelEvent * 1024).rounded()))),
            crank: .init(
                count: UInt16(truncatingIfNeeded: Int64(crank.rounded(.down))),
                lastEventTime1024ths: UInt16(truncatingIfNeeded: Int64((crankEvent * 1024).rounded()))))
    }
}

extension Simulation {
    var isRide: Bool { scenario.sport == .bike }

    /// How much faster than the runner the rider goes.
    static let rideSpeedFactor = 2.6

    /// The rider's cadence now: 80–90 rpm while moving on the flat or uphill; nothing downhill
    /// (coasting), standing still, or in the last metres before a stop.
    func crankRPM() -> Double {
        guard runner.speed > 1, !runner.finished, runner.standingUntil == nil else { return 0 }
        let stopAt = min(runner.nextCrossing, runner.finishDistance)
        if Self.route.grade(at: runner.distance) < -0.012 || stopAt - runner.distance < 40 { return 0 }
        return 85 + 5 * sin(2 * Double.pi * t / 71)
    }

    /// The bike sensor's revolutions over the step just taken.
    mutating func stepBike(from t0: Double, distanceBefore: Double) {
        bike.step(
            meters: runner.distance - distanceBefore, circumference: scenario.wheelCircumferenceMeters,
            rpm: crankRPM(), from: t0, to: t)
    }

    mutating func sendCyclingSpeedCadence() {
        let time = bike.nextCSC
        bike.nextCSC += 1.0 + bike.random.gaussian(0.01)
        let rpm = crankRPM()
        if rpm > 0, isRecording(at: time) { bike.cadenceSamples.append(rpm) }
        emit(time, .payload(sensor: "bike0", kind: .cscMeasurement, .bytes(bike.measurement.encoded())))
    }

    var rideTruth: RideTruth? {
        guard isRide else { return nil }
        let samples = bike.cadenceSamples
        return RideTruth(
            wheelCircumferenceMeters: scenario.wheelCircumferenceMeters,
            averageCrankRPM: samples.isEmpty ? 0 : samples.reduce(0, +) / Double(samples.count))
    }
}

extension RunSimulator {
    /// The sensors a simulated pack riding a bike has paired: the footpod's place is the bike's.
    public static let rideSensors: [SensorDescriptor] = [
        sensors[0], sensors[1],
        SensorDescriptor(
            id: "bike0", kind: .bike, name: "Wahoo RPM 7C21", address: "E8:4F:2A:7C:21:9D", transport: .ble),
    ]
}
