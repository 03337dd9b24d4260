import ActivityFormats
import Foundation
import HandoffModel
import Recorder
import RunSimulator
import TestSupport
import Testing

/// The independent decoders (scripts/oracles/activity_oracle.py): Garmin's FIT SDK, fitdecode,
/// xmllint with the shared XSDs, gpxpy. `scripts/setup --test` installs them; where CI requires system
/// programs a missing one fails the test instead of skipping it.
enum Oracle {
    static let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/oracles/activity_oracle.py")

    static var python: URL? { programOnPath("python3") }

    static var installed: Bool {
        guard let python else { return false }
        let r = try? runProcess(python, ["-c", "import garmin_fit_sdk, fitdecode, gpxpy"])
        return r?.status == 0 && systemProgram("xmllint") != nil
    }

    /// Runs when the oracles are installed, and always where CI requires them.
    static var runnable: Bool { SystemPrograms.runnable("xmllint") && (installed || requiredByCI) }

    static var requiredByCI: Bool {
        let v = ProcessInfo.processInfo.environment[SystemPrograms.environmentVariable] ?? ""
        return !v.isEmpty && v != "0"
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// What the oracles decode from each file, one dictionary per file.
    static func decode(_ files: [URL]) throws -> [[String: Any]] {
        guard let python else { throw Failed(description: "python3 is not on PATH") }
        var environment = ProcessInfo.processInfo.environment
        environment["HANDOFF_FIXTURES"] = Fixtures.root.path
        let result = try runProcess(python, [script.path] + files.map(\.path), environment: environment, timeout: 600)
        guard result.status == 0 else {
            throw Failed(
                description:
                    "the oracle failed (\(result.status)): \(result.stderr) — scripts/setup --test installs what it needs"
            )
        }
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return json?["files"] as? [[String: Any]] ?? []
    }
}

extension Dictionary where Key == String, Value == Any {
    subscript(path path: String...) -> Any? {
        var current: Any? = self
        for key in path { current = (current as? [String: Any])?[key] }
        return current
    }
    func double(_ path: String...) -> Double? {
        var current: Any? = self
        for key in path { current = (current as? [String: Any])?[key] }
        return (current as? NSNumber)?.doubleValue
    }
    func list(_ path: String...) -> [[String: Any]] {
        var current: Any? = self
        for key in path { current = (current as? [String: Any])?[key] }
        return current as? [[String: Any]] ?? []
    }
}

/// Activities to write: recorded by the real pipeline from simulated runs, or generated.
enum Activities {
    /// The simulator's run through the recorder, as the pack would export it.
    static func simulated(seed: UInt64 = 0, minutes: Double? = nil, sport: RunSport = .run) -> Activity {
        let run = RunSimulator.simulate(SimulationScenario(seed: seed, minutes: minutes, sport: sport))
        var pipeline = RunPipeline(sensors: run.header.sensors)
        var outputs: [RecorderOutput] = []
        for event in run.events { outputs += pipeline.process(event).outputs }
        var recorded = activity(outputs)
        recorded.sport = Activity.Sport(sport)
        return recorded
    }

    static func activity(_ outputs: [RecorderOutput]) -> Activity {
        var start = WallInstant(nanosecondsSinceEpoch: 0)
        var activity = Activity(
            start: start, summary: RunSummary(elapsedSeconds: 0, statistics: RunStatistics(), splits: []))
        for output in outputs {
            switch output {
            case .started(let s): start = s.wall ?? start
            case .wallClockCorrected(let w): start = w
            case .point(let p): activity.points.append(p)
            case .rrIntervals(let b): activity.rrIntervals.append(b)
            case .event(let e): activity.events.append(e)
            case .lap(let l): activity.laps.append(l)
            case .finished(let s): activity.summary = s
            }
        }
        activity.start = start
        return activity
    }

    enum Shape: String, CaseIterable, CustomTestStringConvertible {
        case empty, onePoint, pauses, noGPS, noHeartRate, ultra
        var testDescription: String { rawValue }
    }

    /// A generated run of the given shape: 1 Hz points with plausible values, laps every
    /// kilometre, RR intervals that match the heart rate.
    static func generated(_ shape: Shape, seed: UInt64) -> Activity {
        var random = SeededRandom(seed: seed)
        func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + Double(random.next() % 1_000_000) / 1_000_000 * (range.upperBound - range.lowerBound)
        }
        let seconds: Int =
            switch shape {
            case .empty: 0
            case .onePoint: 1
            case .ultra: 10 * 3600
            default: 1200 + Int(random.next() % 1200)
            }
        let start = WallInstant(
            nanosecondsSinceEpoch: (1_780_000_000 + Int64(random.next() % 10_000_000)) * 1_000_000_000)
        var events = [SessionEvent(offsetNanoseconds: 0, kind: .start)]
        // Paused seconds: no point is recorded in them (a point covers the second ending at it).
        var pauses: [ClosedRange<Int>] = []
        var pauseSpans: [(Double, Double)] = []
        if shape == .pauses {
            var t = 200
            while t < seconds - 200 {
                let length = 5 + Int(random.next() % 120)
                pauses.append((t + 1)...(t + length))
                pauseSpans.append((Double(t) + 0.3, Double(t + length) + 0.6))
                events.append(SessionEvent(offsetNanoseconds: Int64(t) * 1_000_000_000 + 300_000_000, kind: .pause))
                events.append(
                    SessionEvent(offsetNanoseconds: Int64(t + length) * 1_000_000_000 + 600_000_000, kind: .resume))
                t += length + 150 + Int(random.next() % 300)
            }
        }
        func timer(_ from: Int, _ to: Int) -> Double {
            pauseSpans.reduce(Double(to - from)) { total, span in
                total - max(0, min(span.1, Double(to)) - max(span.0, Double(from)))
            }
        }
        var points: [RecordPoint] = []
        var rr: [RRIntervalBatch] = []
        var laps: [Lap] = []
        var lat = uniform(-60...60)
        var lon = uniform(-170...170)
        var distance = 0.0
        var lapStart = 0
        var lapStartDistance = 0.0
        var lapPoints: [RecordPoint] = []
        for t in stride(from: 1, through: seconds, by: 1) where !pauses.contains(where: { $0.contains(t) }) {
            let speed = uniform(2.2...4.2)
            distance += speed
            lat += speed / 111_000 * 0.7
            lon += speed / 111_000 * 0.7
            let hr = 120 + Int(random.next() % 60)
            var p = RecordPoint(
                elapsedSeconds: t, latitude: lat, longitude: lon, altitudeMeters: uniform(-20...2500), gpsFix: .threeD,
                hdop: uniform(0.6...3), speedMetersPerSecond: speed, distanceMeters: distance, heartRateBPM: hr,
                cadenceSPM: 150 + Int(random.next() % 40), isMoving: true)
            if shape == .noGPS {
                p.latitude = nil
                p.longitude = nil
                p.altitudeMeters = nil
                p.hdop = nil
                p.gpsFix = .none
            }
            if shape == .noHeartRate {
                p.heartRateBPM = nil
            } else {
                let beat = UInt16(61_440 / hr)
                rr.append(
                    RRIntervalBatch(
                        sensor: "hr0", offsetNanoseconds: Int64(t) * 1_000_000_000 - 400_000_000,
                        intervals1024ths: [beat, beat &+ 3]))
            }
            points.append(p)
            lapPoints.append(p)
            if Int(distance / 1000) > laps.count {
                let stats = statistics(lapPoints, distance: distance - lapStartDistance, timer: timer(lapStart, t))
                laps.append(
                    Lap(
                        index: laps.count + 1, trigger: .distance, startElapsedSeconds: lapStart, endElapsedSeconds: t,
                        statistics: stats))
                lapStart = t
                lapStartDistance = distance
                lapPoints = []
            }
        }
        let end = seconds
        events.append(SessionEvent(offsetNanoseconds: Int64(end) * 1_000_000_000, kind: .stop))
        if !points.isEmpty || laps.isEmpty {
            laps.append(
                Lap(
                    index: laps.count + 1, trigger: .sessionEnd, startElapsedSeconds: lapStart, endElapsedSeconds: end,
                    statistics: statistics(
                        lapPoints, distance: distance - lapStartDistance, timer: timer(lapStart, end))))
        }
        var activity = Activity(
            start: start, points: points, events: events, laps: laps, rrIntervals: rr,
            summary: RunSummary(elapsedSeconds: Double(end), statistics: RunStatistics(), splits: []))
        activity.summary.statistics = statistics(points, distance: distance, timer: timer(0, end))
        return activity
    }

    static func statistics(_ points: [RecordPoint], distance: Double, timer: Double? = nil) -> RunStatistics {
        var accumulator = StatisticsAccumulator()
        for p in points { accumulator.add(p) }
        return accumulator.statistics(distanceMeters: distance, timerSeconds: timer ?? Double(points.count))
    }
}
