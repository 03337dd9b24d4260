import ActivityFormats
import Foundation
import HandoffModel

#if canImport(Glibc)
    import Glibc
#endif

/// handoff-bench activity noop|make|write|read FORMAT FILE [REPEAT]
///
///   make   builds a 3-hour marathon at 1 Hz (GPS, altitude, heart rate with RR, cadence, a lap
///          each kilometre) and nothing else: the baseline for `write`;
///   write  builds it and writes FILE in FORMAT;
///   hour   writes its first hour to FILE in FORMAT (the store's upload benchmark sends it);
///   six    writes a six-hour run at the same pace to FILE in FORMAT (the run page's benchmark);
///   read   reads FILE and parses it; `noop` is its baseline (start-up alone).
/// With REPEAT, the operation runs that many times and the fastest wall time is printed.
enum ActivityBench {
    static func run(_ arguments: [String]) throws {
        guard arguments.count >= 3, let format = ActivityFormat(rawValue: arguments[1]) else {
            FileHandle.standardError.write(
                Data("usage: handoff-bench activity noop|make|write|hour|six|read FORMAT FILE [REPEAT]\n".utf8))
            exit(64)
        }
        let mode = arguments[0]
        let path = arguments[2]
        let repeats = arguments.count > 3 ? max(1, Int(arguments[3]) ?? 1) : 1
        var fastest = Duration.seconds(1_000_000)
        var summary = ""
        for _ in 0..<repeats {
            let clock = ContinuousClock()
            switch mode {
            case "noop":
                summary = "nothing"
            case "make":
                summary = "\(marathon().points.count) points"
            case "write":
                let activity = marathon()
                let started = clock.now
                let bytes = format.write(activity)
                fastest = min(fastest, clock.now - started)
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                summary = "\(bytes.count) bytes"
            case "hour":
                // Started two hours ago: it counts in groups joined before it.
                let now = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970.rounded(.down))
                let bytes = format.write(
                    marathon(seconds: 3600, start: now.advanced(byNanoseconds: -7200 * nanosecondsPerSecond)))
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                summary = "\(bytes.count) bytes"
            case "six":
                // Six hours, started seven hours ago: the run page's largest case.
                let now = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970.rounded(.down))
                let bytes = format.write(
                    marathon(seconds: 6 * 3600, start: now.advanced(byNanoseconds: -7 * 3600 * nanosecondsPerSecond)))
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                summary = "\(bytes.count) bytes"
            case "read":
                let started = clock.now
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
                let activity = try format.read(bytes)
                fastest = min(fastest, clock.now - started)
                summary = "\(activity.points.count) points, \(Int(activity.summary.statistics.distanceMeters)) m"
            default:
                FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
                exit(64)
            }
        }
        let ms = Double(fastest.components.seconds) * 1000 + Double(fastest.components.attoseconds) / 1e15
        print("\(mode) \(format.rawValue): \(summary); fastest of \(repeats): \(String(format: "%.1f", ms)) ms")
    }

    /// A marathon in 3 hours at 1 Hz, deterministic.
    static func marathon(
        seconds: Int = 3 * 3600,
        start: WallInstant = WallInstant(nanosecondsSinceEpoch: 1_790_000_000 * nanosecondsPerSecond)
    ) -> Activity {
        var points: [RecordPoint] = []
        points.reserveCapacity(seconds)
        var rr: [RRIntervalBatch] = []
        rr.reserveCapacity(seconds)
        var laps: [Lap] = []
        var distance = 0.0
        var lapStart = 0
        var lapDistance = 0.0
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) - 0.5
        }
        for t in 1...seconds {
            let speed = 42_195.0 / Double(3 * 3600) + 0.3 * sin(Double(t) / 97) + 0.1 * noise()
            distance += speed
            let angle = distance / 6000 * 2 * Double.pi
            let hr = 150 + Int(12 * sin(Double(t) / 1300) + 3 * noise())
            points.append(
                RecordPoint(
                    elapsedSeconds: t, latitude: 52.37 + 0.009 * sin(angle), longitude: 4.89 + 0.014 * cos(angle),
                    altitudeMeters: 10 + 8 * sin(angle * 3), gpsFix: .threeD, hdop: 0.9,
                    speedMetersPerSecond: speed, distanceMeters: distance, heartRateBPM: hr,
                    cadenceSPM: 176 + Int(4 * noise()), isMoving: true))
            let beat = UInt16(61_440 / hr)
            rr.append(
                RRIntervalBatch(
                    sensor: "hr0", offsetNanoseconds: Int64(t) * nanosecondsPerSecond - 300_000_000,
                    intervals1024ths: t % 2 == 0 ? [beat, beat &+ 4, beat &- 3] : [beat, beat &+ 2]))
            if distance - lapDistance >= 1000 || t == seconds {
                let stats = RunStatistics(
                    distanceMeters: distance - lapDistance, timerSeconds: Double(t - lapStart),
                    movingSeconds: t - lapStart,
                    averageHeartRate: Double(hr), maximumHeartRate: hr + 5, averageCadence: 176, maximumSpeed: 4.4,
                    pointCount: t - lapStart)
                laps.append(
                    Lap(
                        index: laps.count + 1, trigger: t == seconds ? .sessionEnd : .distance,
                        startElapsedSeconds: lapStart, endElapsedSeconds: t, statistics: stats))
                lapStart = t
                lapDistance = distance
            }
        }
        let statistics = RunStatistics(
            distanceMeters: distance, timerSeconds: Double(seconds), movingSeconds: seconds, averageHeartRate: 150,
            maximumHeartRate: 170, averageCadence: 176, maximumSpeed: 4.4, pointCount: seconds)
        return Activity(
            start: start, points: points,
            events: [
                SessionEvent(offsetNanoseconds: 0, kind: .start),
                SessionEvent(offsetNanoseconds: Int64(seconds) * nanosecondsPerSecond, kind: .stop),
            ], laps: laps, rrIntervals: rr,
            summary: RunSummary(elapsedSeconds: Double(seconds), statistics: statistics, splits: []))
    }
}
