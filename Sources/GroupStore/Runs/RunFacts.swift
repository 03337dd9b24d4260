import ActivityFormats
import Foundation
import HandoffModel
import Training

/// What a run's page and `GET /v1/runs/{uuid}/details` show, computed once from the run's file
/// when it is uploaded and kept beside it (`run_facts`, schema 10), so that showing a run never
/// reads its file again: the summary, the simplified route, the series averaged over equal steps
/// of elapsed time, the splits and marks in both units, the laps, the pauses and the sensors'
/// gaps. The page formats it (`RunPage`, `RunMap`, `RunChart`); the API sends it as numbers
/// (`RunDetails`).
struct RunFacts: Codable, Sendable, Equatable {
    /// Steps of elapsed time the series are averaged over.
    static let steps = 240
    /// What `init(_:)` computes; kept facts of another version are computed again from the file.
    /// 2: heart-rate variability from the strap's RR intervals (issue 34).
    /// 3: a ride's cadence is its crank's (rpm), as FIT counts it for cycling, not doubled into steps.
    static let currentVersion = 3

    var version: Int
    var cycling: Bool
    var summary: Summary
    var track: Track?
    /// Seconds from the first point to the last, at least 1.
    var elapsed: Double
    var series: Series
    var pauses: [Pause]
    var km: Marked
    var mi: Marked
    var laps: [Lap]
    var gaps: [Gap]
    /// From the strap's RR intervals, when the file has enough of them.
    var hrv: HeartRateVariability?

    struct Summary: Codable, Sendable, Equatable {
        var distance: Double
        var moving: Double
        var averageHeartRate: Double?
        var maximumHeartRate: Int?
        /// The highest heart rate of any point: the top of the run's own zones.
        var highestPointHeartRate: Int?
        var climb: Double?
        /// Steps a minute, or a ride's crank revolutions a minute.
        var averageCadence: Double?
        var steps: Int?
    }

    /// The route simplified (`RouteShape`): segments of [latitude, longitude].
    struct Track: Codable, Sendable, Equatable {
        var segments: [[[Double]]]
        var tolerance: Double
        var recorded: Int
        /// The latitude of the first position, where the map's scale is taken.
        var firstLatitude: Double

        var pointCount: Int { segments.reduce(0) { $0 + $1.count } }
        var positions: [[Position]] { segments.map { $0.map { Position(latitude: $0[0], longitude: $0[1]) } } }
    }

    /// One value per step of elapsed time, nil where there is none.
    struct Series: Codable, Sendable, Equatable {
        var speed: [Double?]
        var heartRate: [Double?]
        var altitude: [Double?]
        var cadence: [Double?]
    }

    /// In nanoseconds from the start, as the run's events say; a pause to the end has no resume.
    struct Pause: Codable, Sendable, Equatable {
        var pause: Int64
        var resume: Int64?
    }

    /// The marks along the route and the splits, each `Units.meters` apart.
    struct Marked: Codable, Sendable, Equatable {
        var marks: [Mark]
        var splits: [Split]
    }

    struct Mark: Codable, Sendable, Equatable {
        var distance: Double
        var latitude: Double
        var longitude: Double
    }

    struct Split: Codable, Sendable, Equatable {
        var distance: Double
        var timer: Double
        var heartRate: Double?
        var climb: Double?
    }

    struct Lap: Codable, Sendable, Equatable {
        var trigger: String
        var start: Double
        var end: Double
        var distance: Double
        var timer: Double
        var heartRate: Double?
    }

    /// A sensor that sent nothing from `start` (nanoseconds) to `end` (nil: to the end).
    struct Gap: Codable, Sendable, Equatable {
        var sensor: String
        var start: Int64
        var end: Int64?
    }

    func marked(_ units: Units) -> Marked { units == .km ? km : mi }

    /// The pauses, in seconds from the start; a pause to the end has no end.
    var pauseSeconds: [(start: Double, end: Double?)] {
        pauses.map { (Double($0.pause) / 1e9, $0.resume.map { Double($0) / 1e9 }) }
    }

    /// As kept in `run_facts`: JSON, with a file's infinities and NaNs as strings, so that every
    /// value comes back exactly as it was computed.
    func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        // Only non-finite numbers can fail, and the strategy above writes them.
        return (try? Array(encoder.encode(self))) ?? []
    }

    /// nil when the bytes are not facts this store can read (then they are computed again from
    /// the file): a damaged row, or a route point that is not [latitude, longitude].
    static func decoded(_ bytes: [UInt8]) -> RunFacts? {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let facts = try? decoder.decode(RunFacts.self, from: Data(bytes)),
            facts.track?.segments.allSatisfy({ $0.allSatisfy { $0.count == 2 } }) ?? true
        else { return nil }
        return facts
    }
}

extension RunFacts {
    /// Computes the facts from the run's file.
    init(_ activity: Activity) {
        version = Self.currentVersion
        cycling = activity.sport == .cycling
        let statistics = activity.summary.statistics
        summary = Summary(
            distance: statistics.distanceMeters, moving: Double(statistics.movingSeconds),
            averageHeartRate: statistics.averageHeartRate, maximumHeartRate: statistics.maximumHeartRate,
            highestPointHeartRate: activity.points.compactMap(\.heartRateBPM).max(),
            climb: Self.climb(activity.points.compactMap(Self.altitude)),
            averageCadence: statistics.averageCadence ?? statistics.averageCrankCadence,
            steps: activity.summary.steps ?? activity.points.last(where: { $0.steps != nil })?.steps)
        let shape = RouteShape(activity: activity)
        track = activity.points.first { $0.latitude != nil }?.latitude.map { first in
            Track(
                segments: shape.segments.map { $0.map { [$0.latitude, $0.longitude] } },
                tolerance: shape.toleranceMeters, recorded: shape.recordedCount, firstLatitude: first)
        }
        elapsed = max(1, Double(activity.points.last?.elapsedSeconds ?? 0))
        series = Self.series(activity, elapsed: elapsed)
        pauses = activity.pauses.map { Pause(pause: $0.pause, resume: $0.resume) }
        km = Self.marked(activity, every: Units.km.meters)
        mi = Self.marked(activity, every: Units.mi.meters)
        laps = activity.laps.map {
            Lap(
                trigger: $0.trigger.rawValue, start: Double($0.startElapsedSeconds),
                end: Double($0.endElapsedSeconds), distance: $0.statistics.distanceMeters,
                timer: $0.statistics.timerSeconds, heartRate: $0.statistics.averageHeartRate)
        }
        gaps = Self.gaps(activity.events)
        hrv = HeartRateVariability(batches: activity.rrIntervals, laps: activity.laps)
    }

    private static func series(_ activity: Activity, elapsed: Double) -> Series {
        func series(_ value: (RecordPoint) -> Double?) -> [Double?] {
            var sums = [Double](repeating: 0, count: steps)
            var counts = [Int](repeating: 0, count: steps)
            for point in activity.points {
                guard let v = value(point), v.isFinite else { continue }
                // Clamped as a Double first: a point's time is the file's, whatever it says.
                let step = Double(point.elapsedSeconds) / elapsed * Double(steps)
                let index = Int(min(Double(steps - 1), max(0, step)))
                sums[index] += v
                counts[index] += 1
            }
            return zip(sums, counts).map { sum, count in
                guard count > 0, (sum / Double(count)).isFinite else { return nil }
                return sum / Double(count)
            }
        }
        // Under half a metre a second is standing, not a pace.
        return Series(
            speed: series { $0.speedMetersPerSecond.flatMap { $0 >= 0.5 ? $0 : nil } },
            heartRate: series { $0.heartRateBPM.map(Double.init) }, altitude: series(Self.altitude),
            cadence: series { ($0.cadenceSPM ?? $0.cadenceRPM).flatMap { $0 > 0 ? Double($0) : nil } })
    }

    /// A point's altitude where it is one on Earth (a file may say anything): from the Dead
    /// Sea's shore to above Everest.
    static func altitude(_ point: RecordPoint) -> Double? {
        point.altitudeMeters.flatMap { (-500...9_000).contains($0) ? $0 : nil }
    }

    /// The climb, counting a rise only once it passes 3 m, so that a barometer's noise adds nothing.
    static func climb(_ altitudes: [Double]) -> Double? {
        guard var low = altitudes.first else { return nil }
        var gain = 0.0
        var high = low
        for altitude in altitudes.dropFirst() {
            if altitude > high { high = altitude }
            if altitude < high - 3 || altitude < low {
                if high - low >= 3 { gain += high - low }
                low = altitude
                high = altitude
            }
        }
        if high - low >= 3 { gain += high - low }
        return gain
    }

    /// The sensors' gaps: each closed one as it closes, then those open to the end by start.
    private static func gaps(_ events: [SessionEvent]) -> [Gap] {
        var out: [Gap] = []
        var open: [String: Int64] = [:]
        for event in events {
            let sensor = event.sensor.map { "\($0)" } ?? "a sensor"
            if event.kind == .gapStart { open[sensor] = event.offsetNanoseconds }
            if event.kind == .gapEnd, let from = open.removeValue(forKey: sensor) {
                out.append(Gap(sensor: sensor, start: from, end: event.offsetNanoseconds))
            }
        }
        for (sensor, from) in open.sorted(by: { $0.value < $1.value }) {
            out.append(Gap(sensor: sensor, start: from, end: nil))
        }
        return out
    }

    /// Marks along the route and splits, one per `unit` metres.
    private static func marked(_ activity: Activity, every unit: Double) -> Marked {
        Marked(
            marks: RouteShape.marks(of: activity, every: unit).map {
                Mark(distance: $0.distance, latitude: $0.position.latitude, longitude: $0.position.longitude)
            },
            splits: splits(activity, every: unit))
    }

    /// One per `unit` metres (the last one partial), from the points' distances: timer time
    /// (pauses left out), average heart rate and the change in height.
    private static func splits(_ activity: Activity, every unit: Double) -> [Split] {
        let paused = activity.pauses.map { (start: Double($0.pause) / 1e9, end: $0.resume.map { Double($0) / 1e9 }) }
        func timer(_ second: Int) -> Double {
            let s = Double(second)
            return s - paused.reduce(0) { sum, pause in sum + max(0, min(s, pause.end ?? s) - pause.start) }
        }
        var rows: [Split] = []
        var from = activity.points.first
        var beats: [Int] = []
        for (index, point) in activity.points.enumerated() {
            if let heart = point.heartRateBPM { beats.append(heart) }
            guard let start = from else { continue }
            let ran = point.distanceMeters - start.distanceMeters
            let isLast = index == activity.points.count - 1
            guard ran >= unit || (isLast && ran >= unit * 0.05) else { continue }
            rows.append(
                Split(
                    distance: ran, timer: timer(point.elapsedSeconds) - timer(start.elapsedSeconds),
                    heartRate: beats.isEmpty ? nil : beats.reduce(0.0) { $0 + Double($1) } / Double(beats.count),
                    climb: Self.altitude(start).flatMap { a in Self.altitude(point).map { $0 - a } }))
            from = point
            beats = []
        }
        return rows
    }
}
