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
    let scenario: SimulationScenario
    let route = Route()
    var random: SimulationRandom
    let dt = 0.05
    /// The capture begins this long after boot, on the monotonic clock.
    let monotonicOrigin: Int64 = 41_318_000_000

    // Timeline (seconds since the capture's first moment).
    var t = 0.0
    let startCommandTime = 32.0
    let firstFixTime = 11.0
    var endTime = Double.infinity

    // The runner.
    var distance = 0.0
    var speed = 0.0
    var running = false
    var standingUntil: Double?
    var finished = false
    var finishDistance: Double
    var nextCrossing: Double
    var heartRate = 86.0

    // The strap.
    var beats: [(time: Double, rr: Double)] = []
    var nextBeat = 0.4
    var nextHRM = 1.21
    var rrCutoff = 0.0
    let dropoutStart: Double
    let reconnectTime: Double

    // The footpod.
    var nextRSC = 1.53
    var podOdometer = 0.0

    // The receiver.
    var nextEpochWall: Int64
    var epochIndex = 0
    var errorEast: GaussMarkov
    var errorNorth: GaussMarkov
    var errorUp: GaussMarkov
    var lastUnderpassTime = -Double.infinity
    var course = 90.0
    var previousT = 0.0
    var previousDistance = 0.0

    // Output.
    var events: [(time: Double, sequence: Int, body: CaptureEvent.Body)] = []
    var recording: [(start: Double, end: Double)] = []
    var recordingSince: Double?
    var stopTime: Double?
    var heartRateSamples: [Int] = []
    var rrCount = 0

    init(scenario: SimulationScenario) {
        self.scenario = scenario
        var random = SimulationRandom(seed: scenario.seed)
        errorEast = GaussMarkov(sigma: 1.8, tau: 50, random: &random)
        errorNorth = GaussMarkov(sigma: 1.8, tau: 50, random: &random)
        errorUp = GaussMarkov(sigma: 3.0, tau: 80, random: &random)
        self.random = random
        finishDistance = scenario.minutes == nil ? route.length * Double(scenario.loops) : .infinity
        nextCrossing = route.length * route.crossingFraction
        dropoutStart = startCommandTime + 840
        reconnectTime = dropoutStart + 7.4
        let ns = scenario.startWall.nanosecondsSinceEpoch
        nextEpochWall = (ns / nanosecondsPerSecond + 1) * nanosecondsPerSecond
    }

    mutating func emit(_ time: Double, _ body: CaptureEvent.Body) {
        events.append((time, events.count, body))
    }

    mutating func command(_ command: SessionCommand, at time: Double) {
        emit(time, .command(command))
        switch command {
        case .start, .resume: recordingSince = time
        case .pause, .stop:
            if let since = recordingSince { recording.append((since, time)) }
            recordingSince = nil
            if command == .stop { stopTime = time }
        case .lap: break
        }
    }

    mutating func run() {
        emit(0.62, .link(sensor: "hr0", state: .connected, reason: nil))
        emit(0.93, .link(sensor: "pod0", state: .connected, reason: nil))
        command(.start, at: startCommandTime)
        emit(dropoutStart + 4.0, .link(sensor: "hr0", state: .disconnected, reason: "supervision timeout"))
        emit(reconnectTime, .link(sensor: "hr0", state: .connected, reason: nil))
        while t < endTime {
            previousT = t
            previousDistance = distance
            stepRunner()
            t += dt
            stepHeart()
            while nextHRM <= t { sendHeartRate() }
            while nextRSC <= t { sendRunningSpeed() }
            while Double(nextEpochWall - scenario.startWall.nanosecondsSinceEpoch) / 1e9 <= t { sendGPSEpoch() }
        }
        // A dropout that the run ended before is not in the capture.
        events.removeAll { $0.time > endTime }
    }

    // MARK: The runner

    mutating func stepRunner() {
        if finished { return }
        if let until = standingUntil {
            speed = 0
            if t >= until { standingUntil = nil }
            return
        }
        if !running {
            if t >= startCommandTime + 1.2 { running = true } else { return }
        }
        if let minutes = scenario.minutes, finishDistance == .infinity, t - startCommandTime >= minutes * 60 {
            finishDistance = distance + speed * speed / (2 * 0.9) + 3
        }
        let stopAt = min(nextCrossing, finishDistance)
        let target = min(targetSpeed(), (2 * 0.9 * max(0, stopAt - distance)).squareRoot())
        let acceleration = min(0.6, max(-1.5, (target - speed) / 1.5))
        speed = max(0, speed + acceleration * dt)
        distance += speed * dt
        podOdometer += speed * 1.02 * dt
        if distance >= stopAt || (stopAt - distance < 0.25 && speed < 0.6) {
            podOdometer += (stopAt - distance) * 1.02
            distance = stopAt
            speed = 0
            arrive(at: stopAt)
        }
    }

    mutating func arrive(at stop: Double) {
        let arrival = t + dt
        if stop >= finishDistance {
            finished = true
            command(.stop, at: arrival + 3.0)
            endTime = arrival + 5.0
            return
        }
        // A road crossing: wait for the lights.
        command(.pause, at: arrival + 2.0)
        command(.resume, at: arrival + 23.5)
        standingUntil = arrival + 25.0
        nextCrossing += route.length
    }

    func targetSpeed() -> Double {
        let f = route.fraction(distance)
        var v = 3.05
        if distance < 400 { v = 2.75 + 0.3 * distance / 400 }
        if f >= 0.40 && f <= 0.55 { v = 3.32 }
        let g = route.grade(at: distance)
        v *= g > 0 ? 1 - 4 * g : 1 - 1.5 * g
        v *= 1 + 0.02 * sin(2 * Double.pi * t / 97)
        v *= 1 - 0.00002 * max(0, t - startCommandTime)
        return v
    }

    // MARK: The heart and the strap

    mutating func stepHeart() {
        let g = route.grade(at: distance)
        let effort = speed * (1 + 5 * max(g, 0))
        let minutes = max(0, t - startCommandTime) / 60
        let target = speed > 0.3 ? 70 + 24 * effort + 0.3 * minutes : 94 + 0.15 * minutes
        let tau = target > heartRate ? 20.0 : 32.0
        heartRate += (target - heartRate) * dt / tau
        while nextBeat <= t {
            let rr = 60 / heartRate * (1 + 0.012 * sin(2 * Double.pi * nextBeat / 3.6) + random.gaussian(0.005))
            let previous = beats.last?.time ?? (nextBeat - rr)
            beats.append((nextBeat, nextBeat - previous))
            nextBeat += rr
        }
    }

    mutating func sendHeartRate() {
        let time = nextHRM
        nextHRM += 1.0 + random.gaussian(0.012)
        if time >= dropoutStart && time < reconnectTime + 0.8 {
            rrCutoff = reconnectTime
            return
        }
        let recent = beats.filter { $0.time <= time }.suffix(4)
        guard !recent.isEmpty else { return }
        let meanRR = recent.reduce(0) { $0 + $1.rr } / Double(recent.count)
        let bpm = UInt16((60 / meanRR).rounded())
        let rr = beats.filter { $0.time > rrCutoff && $0.time <= time }.map { UInt16(($0.rr * 1024).rounded()) }
        rrCutoff = time
        beats.removeAll { $0.time < time - 10 }
        let measurement = HeartRateMeasurement(heartRate: bpm, sensorContact: .detected, rrIntervals1024ths: rr)
        emit(time, .payload(sensor: "hr0", kind: .heartRateMeasurement, .bytes(measurement.encoded())))
        if isRecording(at: time) {
            heartRateSamples.append(Int(bpm))
            rrCount += rr.count
        }
    }

    // MARK: The footpod

    mutating func sendRunningSpeed() {
        let time = nextRSC
        nextRSC += 1.0 + random.gaussian(0.012)
        let moving = speed > 0.3
        let measured = moving ? max(0, speed * 1.02 + random.gaussian(0.04)) : 0
        let cadence = moving ? UInt8(min(250, max(0, (148 + 9.5 * speed + random.gaussian(0.8)).rounded()))) : 0
        let stride: UInt16 = cadence > 0 ? UInt16((2 * speed * 60 / Double(cadence) * 100).rounded()) : 0
        let value = RSCMeasurement(
            speed256ths: UInt16(min(65535, (measured * 256).rounded())), cadence: cadence, strideLength100ths: stride,
            totalDistance10ths: UInt32(podOdometer * 10), isRunning: speed > 2.2)
        emit(time, .payload(sensor: "pod0", kind: .rscMeasurement, .bytes(value.encoded())))
    }

    // MARK: The GPS receiver

    mutating func sendGPSEpoch() {
        let wall = WallInstant(nanosecondsSinceEpoch: nextEpochWall)
        let epoch = Double(nextEpochWall - scenario.startWall.nanosecondsSinceEpoch) / 1e9
        nextEpochWall += nanosecondsPerSecond
        epochIndex += 1
        let east = errorEast.step(1, random: &random)
        let north = errorNorth.step(1, random: &random)
        let up = errorUp.step(1, random: &random)

        // Where the runner was at the epoch.
        let f = dt > 0 ? min(1, max(0, (epoch - previousT) / dt)) : 1
        let s = previousDistance + (distance - previousDistance) * f
        if route.isInUnderpass(s) && running { lastUnderpassTime = epoch }
        let reacquired = epoch - lastUnderpassTime
        var fix: NMEAWriter.Fix?
        if epoch >= firstFixTime && reacquired >= 3.5 {
            let settle = reacquired < 20 ? exp(-(reacquired - 3.5) / 5) : 0
            let p = route.position(at: s)
            let x = p.x + east + random.gaussian(0.35) + random.gaussian(4.0 * settle)
            let y = p.y + north + random.gaussian(0.35) + random.gaussian(4.0 * settle)
            let coordinates = route.coordinates(x: x, y: y)
            let reported = speed > 0.05 ? max(0, speed + random.gaussian(0.07)) : abs(random.gaussian(0.04))
            if speed > 0.5 { course = (p.heading + random.gaussian(1.5) + 360).truncatingRemainder(dividingBy: 360) }
            fix = NMEAWriter.Fix(
                latitude: coordinates.latitude, longitude: coordinates.longitude,
                altitude: route.altitude(at: s) + up, speedMetersPerSecond: reported, courseDegrees: course,
                hdop: 0.78 + 0.25 * (1 + sin(epoch / 211)) / 2 + 1.6 * settle,
                satellites: settle > 0.3 ? 6 : 9 + Int((1 + sin(epoch / 173)) * 1.2))
        }
        var rmc = NMEAWriter.rmc(at: wall, fix: fix)
        if epochIndex == 300 || epochIndex == 1100 {
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
        if recording.contains(where: { time >= $0.start && time < $0.end }) { return true }
        if let since = recordingSince, time >= since { return true }
        return false
    }

    func result() -> SimulatedRun {
        let sorted = events.sorted { ($0.time, $0.sequence) < ($1.time, $1.sequence) }
        let captureEvents = sorted.map { event in
            let offset = Int64((event.time * 1e9).rounded())
            return CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: monotonicOrigin + offset),
                wall: scenario.startWall.advanced(byNanoseconds: offset), body: event.body)
        }
        let truth = SimulationTruth(
            seed: scenario.seed, routeDistanceMeters: distance,
            averageHeartRate: heartRateSamples.isEmpty
                ? 0 : Double(heartRateSamples.reduce(0, +)) / Double(heartRateSamples.count),
            heartRateSamples: heartRateSamples.count, rrIntervals: rrCount)
        let header = CaptureHeader(
            sensors: RunSimulator.sensors,
            createdBy: "handoff simulate --seed \(scenario.seed)"
                + (scenario.minutes.map { " --minutes \(NMEAWriter.fixed($0, 1))" } ?? " --loops \(scenario.loops)"),
            simulation: truth)
        return SimulatedRun(header: header, events: captureEvents)
    }
}
