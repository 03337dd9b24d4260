import HandoffModel
import Recorder
import SensorCodecs

/// Builds inputs for the recorder in seconds, to keep tests readable.
struct Harness {
    var recorder: Recorder
    var outputs: [RecorderOutput] = []

    init(configuration: RecorderConfiguration = RecorderConfiguration()) {
        recorder = Recorder(configuration: configuration)
    }

    static func time(_ seconds: Double) -> MonotonicInstant { MonotonicInstant(seconds: 100 + seconds) }

    mutating func command(_ command: SessionCommand, at seconds: Double) throws(RecorderError) {
        outputs += try recorder.handle(command, at: Self.time(seconds))
    }

    mutating func heartRate(_ bpm: UInt16, rr: [UInt16] = [], at seconds: Double, sensor: SensorID = "hr0") {
        let m = HeartRateMeasurement(heartRate: bpm, sensorContact: .detected, rrIntervals1024ths: rr)
        outputs += recorder.receive(SensorReading(time: Self.time(seconds), sensor: sensor, value: .heartRate(m)))
    }

    mutating func footpod(
        speed: Double, cadence: UInt8 = 170, total: UInt32? = nil, at seconds: Double, sensor: SensorID = "pod0"
    ) {
        let m = RSCMeasurement(
            speed256ths: UInt16((speed * 256).rounded()), cadence: cadence, totalDistance10ths: total, isRunning: true)
        outputs += recorder.receive(
            SensorReading(time: Self.time(seconds), sensor: sensor, value: .runningSpeedCadence(m)))
    }

    /// A fix (with speed, as every RMC has) at `north` metres north of a fixed origin.
    mutating func gps(north: Double, speed: Double?, fix: Bool = true, at seconds: Double, sensor: SensorID = "gps0") {
        let value =
            fix
            ? GNSSFix(
                mode: .threeD, latitude: 48 + north / 111_194.93, longitude: 11.5, altitudeMeters: 500,
                speedMetersPerSecond: speed, trackDegrees: 0, hdop: 1)
            : GNSSFix(mode: .none)
        outputs += recorder.receive(SensorReading(time: Self.time(seconds), sensor: sensor, value: .gnss(value)))
    }

    /// A fix without speed (a receiver that sends GGA alone) at (`north`, `east`) metres from a
    /// fixed origin.
    mutating func gga(north: Double, east: Double, hdop: Double = 1.0, at seconds: Double, sensor: SensorID = "gps0") {
        // 1 km north and east of 48°N 11°E, rounded as a receiver's sentence would be (1e-6').
        let lat = 48 + ((((north + 1000) / 111_194.93) * 60 * 1e6).rounded() / 1e6) / 60
        let lon = 11 + ((((east + 1000) / (111_194.93 * 0.66913060635885824)) * 60 * 1e6).rounded() / 1e6) / 60
        let value = GNSSFix(
            mode: .threeD, latitude: lat, longitude: lon, altitudeMeters: 500, hdop: hdop, satellitesUsed: 9)
        outputs += recorder.receive(SensorReading(time: Self.time(seconds), sensor: sensor, value: .gnss(value)))
    }

    mutating func steps(_ count: Int, at seconds: Double, sensor: SensorID = "steps0") {
        outputs += recorder.receive(SensorReading(time: Self.time(seconds), sensor: sensor, value: .steps(count)))
    }

    mutating func link(_ state: LinkState, at seconds: Double, sensor: SensorID = "hr0") {
        outputs += recorder.receive(
            SensorReading(time: Self.time(seconds), sensor: sensor, value: .link(state, reason: nil)))
    }

    mutating func advance(to seconds: Double) {
        outputs += recorder.advance(to: Self.time(seconds))
    }

    var points: [RecordPoint] { outputs.compactMap { if case .point(let p) = $0 { p } else { nil } } }
    var events: [SessionEvent] { outputs.compactMap { if case .event(let e) = $0 { e } else { nil } } }
    var laps: [Lap] { outputs.compactMap { if case .lap(let l) = $0 { l } else { nil } } }
    var rr: [RRIntervalBatch] { outputs.compactMap { if case .rrIntervals(let r) = $0 { r } else { nil } } }
    var summary: RunSummary? { outputs.lazy.compactMap { if case .finished(let s) = $0 { s } else { nil } }.first }
}
