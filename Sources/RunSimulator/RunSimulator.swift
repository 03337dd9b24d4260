import HandoffModel
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Makes captures of realistic runs, with what the pack should find in them known exactly.
///
/// The runner waits for a GPS fix, starts, stops at a road crossing (pausing the recording),
/// passes under a bridge (the GPS loses its fix; the footpod bridges it), and finishes where they
/// began. The strap sends heart rate that follows effort with beat-to-beat RR intervals and drops
/// out for a few seconds mid-run; the footpod sends speed, cadence, stride and its odometer, 2 %
/// optimistic; the receiver's position error wanders like a real one's (a Gauss–Markov process),
/// its Doppler speed is close to the truth.
public enum RunSimulator {
    public static func simulate(_ scenario: SimulationScenario) -> SimulatedRun {
        var simulation = Simulation(scenario: scenario)
        simulation.run()
        return simulation.result()
    }

    /// The sensors a simulated pack has paired.
    public static let sensors: [SensorDescriptor] = [
        SensorDescriptor(id: "gps0", kind: .gps, name: "u-blox NEO-M8N", address: "/dev/serial0", transport: .serial),
        SensorDescriptor(
            id: "hr0", kind: .heartRate, name: "Polar H10 5A1B2C3D", address: "A0:9E:1A:5A:1B:2C", transport: .ble),
        SensorDescriptor(
            id: "pod0", kind: .footpod, name: "Stryd 3E4F", address: "D4:5A:3B:1C:2D:3E", transport: .ble),
    ]
}

/// The simulation's mutable state, stepped at 20 Hz.
struct Simulation {
    static let route = Route()
    static let dt = 0.05
    /// The capture begins this long after boot, on the monotonic clock.
    static let monotonicOrigin: Int64 = 41_318_000_000
    static let startCommandTime = 32.0
    static let firstFixTime = 11.0

    let scenario: SimulationScenario
    var random: SimulationRandom
    // Timeline (seconds since the capture's first moment).
    var t = 0.0
    var endTime = Double.infinity
    var runner: Runner
    var strap: Strap
    var pod = Footpod()
    var bike: BikeSensor
    var receiver: Receiver
    var output = Output()

    /// The runner.
    struct Runner {
        var distance = 0.0
        var speed = 0.0
        var running = false
        var standingUntil: Double?
        var finished = false
        var finishDistance: Double
        var nextCrossing: Double
        var heartRate = 86.0
    }

    /// The strap.
    struct Strap {
        var beats: [(time: Double, rr: Double)] = []
        var nextBeat = 0.4
        var nextHRM = 1.21
        var rrCutoff = 0.0
        let dropoutStart: Double
        let reconnectTime: Double
    }

    /// The footpod.
    struct Footpod {
        var nextRSC = 1.53
        var odometer = 0.0
    }

    /// The receiver.
    struct Receiver {
        var nextEpochWall: Int64
        var epochIndex = 0
        var errorEast: GaussMarkov
        var errorNorth: GaussMarkov
        var errorUp: GaussMarkov
        var lastUnderpassTime = -Double.infinity
        var course = 90.0
        var previousT = 0.0
        var previousDistance = 0.0
    }

    /// What the simulation produced.
    struct Output {
        var events: [(time: Double, sequence: Int, body: CaptureEvent.Body)] = []
        var recording: [(start: Double, end: Double)] = []
        var recordingSince: Double?
        var stopTime: Double?
        var heartRateSamples: [Int] = []
        var rrCount = 0
    }

    init(scenario: SimulationScenario) {
        self.scenario = scenario
        var random = SimulationRandom(seed: scenario.seed)
        let errorEast = GaussMarkov(sigma: 1.8, tau: 50, random: &random)
        let errorNorth = GaussMarkov(sigma: 1.8, tau: 50, random: &random)
        let errorUp = GaussMarkov(sigma: 3.0, tau: 80, random: &random)
        self.random = random
        bike = BikeSensor(seed: scenario.seed)
        runner = Runner(
            finishDistance: scenario.minutes == nil ? Self.route.length * Double(scenario.loops) : .infinity,
            nextCrossing: Self.route.length * Self.route.crossingFraction)
        let dropoutStart = Self.startCommandTime + 840
        strap = Strap(dropoutStart: dropoutStart, reconnectTime: dropoutStart + 7.4)
        let ns = scenario.startWall.nanosecondsSinceEpoch
        receiver = Receiver(
            nextEpochWall: (ns / nanosecondsPerSecond + 1) * nanosecondsPerSecond, errorEast: errorEast,
            errorNorth: errorNorth, errorUp: errorUp)
    }

    mutating func emit(_ time: Double, _ body: CaptureEvent.Body) {
        output.events.append((time, output.events.count, body))
    }

    mutating func command(_ command: SessionCommand, at time: Double) {
        emit(time, .command(command, sport: command == .start && isRide ? .bike : nil))
        switch command {
        case .start, .resume: output.recordingSince = time
        case .pause, .stop:
            if let since = output.recordingSince { output.recording.append((since, time)) }
            output.recordingSince = nil
            if command == .stop { output.stopTime = time }
        case .lap: break
        }
    }

    mutating func run() {
        emit(0.62, .link(sensor: "hr0", state: .connected, reason: nil))
        emit(0.93, .link(sensor: isRide ? "bike0" : "pod0", state: .connected, reason: nil))
        command(.start, at: Self.startCommandTime)
        emit(strap.dropoutStart + 4.0, .link(sensor: "hr0", state: .disconnected, reason: "supervision timeout"))
        emit(strap.reconnectTime, .link(sensor: "hr0", state: .connected, reason: nil))
        while t < endTime {
            receiver.previousT = t
            receiver.previousDistance = runner.distance
            stepRunner()
            t += Self.dt
            if isRide { stepBike(from: receiver.previousT, distanceBefore: receiver.previousDistance) }
            stepHeart()
            while strap.nextHRM <= t { sendHeartRate() }
            if isRide {
                while bike.nextCSC <= t { sendCyclingSpeedCadence() }
            } else {
                while pod.nextRSC <= t { sendRunningSpeed() }
            }
            while Double(receiver.nextEpochWall - scenario.startWall.nanosecondsSinceEpoch) / 1e9 <= t {
                sendGPSEpoch()
            }
        }
        // A dropout that the run ended before is not in the capture.
        output.events.removeAll { $0.time > endTime }
    }

    // MARK: The runner

    mutating func stepRunner() {
        if runner.finished { return }
        if let until = runner.standingUntil {
            runner.speed = 0
            if t >= until { runner.standingUntil = nil }
            return
        }
        if !runner.running {
            if t >= Self.startCommandTime + 1.2 { runner.running = true } else { return }
        }
        if let minutes = scenario.minutes, runner.finishDistance == .infinity, t - Self.startCommandTime >= minutes * 60
        {
            runner.finishDistance = runner.distance + runner.speed * runner.speed / (2 * 0.9) + 3
        }
        let stopAt = min(runner.nextCrossing, runner.finishDistance)
        let target = min(targetSpeed(), (2 * 0.9 * max(0, stopAt - runner.distance)).squareRoot())
        let acceleration = min(0.6, max(-1.5, (target - runner.speed) / 1.5))
        runner.speed = max(0, runner.speed + acceleration * Self.dt)
        runner.distance += runner.speed * Self.dt
        pod.odometer += runner.speed * 1.02 * Self.dt
        if runner.distance >= stopAt || (stopAt - runner.distance < 0.25 && runner.speed < 0.6) {
            pod.odometer += (stopAt - runner.distance) * 1.02
            runner.distance = stopAt
            runner.speed = 0
            arrive(at: stopAt)
        }
    }

    mutating func arrive(at stop: Double) {
        let arrival = t + Self.dt
        if stop >= runner.finishDistance {
            runner.finished = true
            command(.stop, at: arrival + 3.0)
            endTime = arrival + 5.0
            return
        }
        // A road crossing: wait for the lights.
        command(.pause, at: arrival + 2.0)
        command(.resume, at: arrival + 23.5)
        runner.standingUntil = arrival + 25.0
        runner.nextCrossing += Self.route.length
    }

    func targetSpeed() -> Double {
        let f = Self.route.fraction(runner.distance)
        var v = 3.05
        if runner.distance < 400 { v = 2.75 + 0.3 * runner.distance / 400 }
        if f >= 0.40 && f <= 0.55 { v = 3.32 }
        let g = Self.route.grade(at: runner.distance)
        v *= g > 0 ? 1 - 4 * g : 1 - 1.5 * g
        v *= 1 + 0.02 * sin(2 * Double.pi * t / 97)
        v *= 1 - 0.00002 * max(0, t - Self.startCommandTime)
        return isRide ? v * Self.rideSpeedFactor : v
    }

    // MARK: The heart and the strap

    mutating func stepHeart() {
        let g = Self.route.grade(at: runner.distance)
        let effort = runner.speed / (isRide ? Self.rideSpeedFactor : 1) * (1 + 5 * max(g, 0))
        let minutes = max(0, t - Self.startCommandTime) / 60
        let target = runner.speed > 0.3 ? 70 + 24 * effort + 0.3 * minutes : 94 + 0.15 * minutes
        let tau = target > runner.heartRate ? 20.0 : 32.0
        runner.heartRate += (target - runner.heartRate) * Self.dt / tau
        while strap.nextBeat <= t {
            let rr =
                60 / runner.heartRate * (1 + 0.012 * sin(2 * Double.pi * strap.nextBeat / 3.6) + random.gaussian(0.005))
            let previous = strap.beats.last?.time ?? (strap.nextBeat - rr)
            strap.beats.append((strap.nextBeat, strap.nextBeat - previous))
            strap.nextBeat += rr
        }
    }

    mutating func sendHeartRate() {
        let time = strap.nextHRM
        strap.nextHRM += 1.0 + random.gaussian(0.012)
        if time >= strap.dropoutStart && time < strap.reconnectTime + 0.8 {
            strap.rrCutoff = strap.reconnectTime
            return
        }
        let recent = strap.beats.filter { $0.time <= time }.suffix(4)
        guard !recent.isEmpty else { return }
        let meanRR = recent.reduce(0) { $0 + $1.rr } / Double(recent.count)
        let bpm = UInt16((60 / meanRR).rounded())
        let rr = strap.beats.filter { $0.time > strap.rrCutoff && $0.time <= time }.map {
            UInt16(($0.rr * 1024).rounded())
        }
        strap.rrCutoff = time
        strap.beats.removeAll { $0.time < time - 10 }
        let measurement = HeartRateMeasurement(heartRate: bpm, sensorContact: .detected, rrIntervals1024ths: rr)
        emit(time, .payload(sensor: "hr0", kind: .heartRateMeasurement, .bytes(measurement.encoded())))
        if isRecording(at: time) {
            output.heartRateSamples.append(Int(bpm))
            output.rrCount += rr.count
        }
    }

    // MARK: The footpod

    mutating func sendRunningSpeed() {
        let time = pod.nextRSC
        pod.nextRSC += 1.0 + random.gaussian(0.012)
        let moving = runner.speed > 0.3
        let measured = moving ? max(0, runner.speed * 1.02 + random.gaussian(0.04)) : 0
        let cadence = moving ? UInt8(min(250, max(0, (148 + 9.5 * runner.speed + random.gaussian(0.8)).rounded()))) : 0
        let stride: UInt16 = cadence > 0 ? UInt16((2 * runner.speed * 60 / Double(cadence) * 100).rounded()) : 0
        let value = RSCMeasurement(
            speed256ths: UInt16(min(65535, (measured * 256).rounded())), cadence: cadence, strideLength100ths: stride,
            totalDistance10ths: UInt32(pod.odometer * 10), isRunning: runner.speed > 2.2)
        emit(time, .payload(sensor: "pod0", kind: .rscMeasurement, .bytes(value.encoded())))
    }

    // MARK: The GPS receiver

    mutating func sendGPSEpoch() {
        let wall = WallInstant(nanosecondsSinceEpoch: receiver.nextEpochWall)
        let epoch = Double(receiver.nextEpochWall - scenario.startWall.nanosecondsSinceEpoch) / 1e9
        receiver.nextEpochWall += nanosecondsPerSecond
        receiver.epochIndex += 1
        let east = receiver.errorEast.step(1, random: &random)
        let north = receiver.errorNorth.step(1, random: &random)
        let up = receiver.errorUp.step(1, random: &random)

        // Where the runner was at the epoch.
        let f = Self.dt > 0 ? min(1, max(0, (epoch - receiver.previousT) / Self.dt)) : 1
        let s = receiver.previousDistance + (runner.distance - receiver.previousDistance) * f
        if Self.route.isInUnderpass(s) && runner.running { receiver.lastUnderpassTime = epoch }
        let reacquired = epoch - receiver.lastUnderpassTime
        var fix: NMEAWriter.Fix?
        if epoch >= Self.firstFixTime && reacquired >= 3.5 {
            let settle = reacquired < 20 ? exp(-(reacquired - 3.5) / 5) : 0
            let p = Self.route.position(at: s)
            let x = p.x + east + random.gaussian(0.35) + random.gaussian(4.0 * settle)
            let y = p.y + north + random.gaussian(0.35) + random.gaussian(4.0 * settle)
            let coordinates = Self.route.coordinates(x: x, y: y)
            let reported =
                runner.speed > 0.05 ? max(0, runner.speed + random.gaussian(0.07)) : abs(random.gaussian(0.04))
            if runner.speed > 0.5 {
                receiver.course = (p.heading + random.gaussian(1.5) + 360).truncatingRemainder(dividingBy: 360)
            }
            fix = NMEAWriter.Fix(
                latitude: coordinates.latitude, longitude: coordinates.longitude,
                altitude: Self.route.altitude(at: s) + up, speedMetersPerSecond: reported,
                courseDegrees: receiver.course,
                hdop: 0.78 + 0.25 * (1 + sin(epoch / 211)) / 2 + 1.6 * settle,
                satellites: settle > 0.3 ? 6 : 9 + Int((1 + sin(epoch / 173)) * 1.2))
        }
        var rmc = NMEAWriter.rmc(at: wall, fix: fix)
        if receiver.epochIndex == 300 || receiver.epochIndex == 1100 {
            rmc = Self.corrupt(rmc)  // line noise on the serial port: the checksum no longer matches
        }
        let rmcDelay = 0.082 + abs(random.gaussian(0.002))
        if scenario.gpsSendsRMC { emit(epoch + rmcDelay, .payload(sensor: "gps0", kind: .nmea, .text(rmc))) }
        emit(
            epoch + 0.128 + abs(random.gaussian(0.002)),
            .payload(sensor: "gps0", kind: .nmea, .text(NMEAWriter.gga(at: wall, fix: fix))))
    }

    /// Flips one bit of a digit in the sentence body, keeping its checksum.
    static func corrupt(_ sentence: String) -> String {
        var bytes = Array(sentence.utf8)
        if let i = bytes.indices.dropFirst(20).first(where: { bytes[$0] >= 0x30 && bytes[$0] <= 0x39 }) {
            bytes[i] ^= 0x01
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Result

    func isRecording(at time: Double) -> Bool {
        if output.recording.contains(where: { time >= $0.start && time < $0.end }) { return true }
        if let since = output.recordingSince, time >= since { return true }
        return false
    }

    func result() -> SimulatedRun {
        let sorted = output.events.sorted { ($0.time, $0.sequence) < ($1.time, $1.sequence) }
        let captureEvents = sorted.map { event in
            let offset = Int64((event.time * 1e9).rounded())
            return CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: Self.monotonicOrigin + offset),
                wall: scenario.startWall.advanced(byNanoseconds: offset), body: event.body)
        }
        var truth = SimulationTruth(
            seed: scenario.seed, routeDistanceMeters: runner.distance,
            averageHeartRate: output.heartRateSamples.isEmpty
                ? 0 : Double(output.heartRateSamples.reduce(0, +)) / Double(output.heartRateSamples.count),
            heartRateSamples: output.heartRateSamples.count, rrIntervals: output.rrCount)
        truth.ride = rideTruth
        let header = CaptureHeader(
            sensors: isRide ? RunSimulator.rideSensors : RunSimulator.sensors,
            createdBy: "handoff simulate --seed \(scenario.seed)"
                + (scenario.minutes.map { " --minutes \(NMEAWriter.fixed($0, 1))" } ?? " --loops \(scenario.loops)")
                + (isRide ? " --sport bike" : ""),
            simulation: truth)
        return SimulatedRun(header: header, events: captureEvents)
    }
}
