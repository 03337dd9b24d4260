import ActivityFormats
import Foundation
import HandoffAPI
import HandoffModel

extension Services {
    /// The run's file read again, on the upload workers; nil when it can no longer be read.
    func activity(uuid: String, account: Int64) async throws -> Activity? {
        let (format, bytes) = try await repository.runFile(uuid: uuid, account: account)
        guard let format = ActivityFormat(rawValue: format) else { return nil }
        do {
            return try await uploads.run { try? format.read(bytes) }
        } catch {
            throw StoreError.busy("reading runs")
        }
    }
}

/// What a run's page and `GET /v1/runs/{uuid}/details` show, computed once from the run's file:
/// the simplified route, the series averaged over equal steps of elapsed time, the splits in the
/// reader's units, the laps and the pauses. The page formats it (`RunPage`, `RunMap`, `RunChart`);
/// the API sends it as numbers (`RunDetails`).
struct RunFacts: Sendable {
    /// Steps of elapsed time the series are averaged over.
    static let steps = 240

    let activity: Activity
    let shape: RouteShape
    let elapsed: Double
    let speed: [Double?]
    let heartRate: [Double?]
    let altitude: [Double?]
    let cadence: [Double?]

    init(_ activity: Activity) {
        self.activity = activity
        shape = RouteShape(activity: activity)
        elapsed = max(1, Double(activity.points.last?.elapsedSeconds ?? 0))
        let elapsed = elapsed
        func series(_ value: (RecordPoint) -> Double?) -> [Double?] {
            var sums = [Double](repeating: 0, count: Self.steps)
            var counts = [Int](repeating: 0, count: Self.steps)
            for point in activity.points {
                guard let v = value(point), v.isFinite else { continue }
                // Clamped as a Double first: a point's time is the file's, whatever it says.
                let step = Double(point.elapsedSeconds) / elapsed * Double(Self.steps)
                let index = Int(min(Double(Self.steps - 1), max(0, step)))
                sums[index] += v
                counts[index] += 1
            }
            return zip(sums, counts).map { sum, count in
                guard count > 0, (sum / Double(count)).isFinite else { return nil }
                return sum / Double(count)
            }
        }
        // Under half a metre a second is standing, not a pace.
        speed = series { $0.speedMetersPerSecond.flatMap { $0 >= 0.5 ? $0 : nil } }
        heartRate = series { $0.heartRateBPM.map(Double.init) }
        altitude = series(Self.altitude)
        cadence = series { $0.cadenceSPM.flatMap { $0 > 0 ? Double($0) : nil } }
    }

    /// A point's altitude where it is one on Earth (a file may say anything): from the Dead
    /// Sea's shore to above Everest.
    static func altitude(_ point: RecordPoint) -> Double? {
        point.altitudeMeters.flatMap { (-500...9_000).contains($0) ? $0 : nil }
    }

    /// The pauses, in seconds from the start; a pause to the end has no end.
    var pauses: [(start: Double, end: Double?)] {
        activity.pauses.map { (Double($0.pause) / 1e9, $0.resume.map { Double($0) / 1e9 }) }
    }

    struct Split {
        var distance: Double
        var timer: Double
        var heartRate: Double?
        var climb: Double?
    }

    /// One per `unit` metres (the last one partial), from the points' distances: timer time
    /// (pauses left out), average heart rate and the change in height.
    func splits(every unit: Double) -> [Split] {
        let paused = pauses
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

    /// The API's view: metric, marks each kilometre.
    func details(uuid: String) -> RunDetails {
        let marks = RouteShape.marks(of: activity, every: 1000).map {
            RunDetails.Mark(distanceM: $0.distance, latitude: $0.position.latitude, longitude: $0.position.longitude)
        }
        return RunDetails(
            uuid: uuid,
            track: shape.segments.isEmpty
                ? nil
                : RunDetails.Track(
                    toleranceM: shape.toleranceMeters, recordedPoints: shape.recordedCount,
                    segments: shape.segments.map { $0.map { [$0.latitude, $0.longitude] } }, marks: marks),
            series: RunDetails.Series(
                elapsedS: elapsed, stepS: elapsed / Double(Self.steps), speedMS: speed, heartRateBpm: heartRate,
                altitudeM: altitude, cadenceSpm: cadence),
            splits: splits(every: 1000).map {
                RunDetails.Split(distanceM: $0.distance, timerS: $0.timer, heartRateBpm: $0.heartRate, climbM: $0.climb)
            },
            // JSON has no infinity: a file's absurd lap totals go as 0 (or null).
            laps: activity.laps.map {
                RunDetails.Lap(
                    trigger: $0.trigger.rawValue, startS: Double($0.startElapsedSeconds),
                    endS: Double($0.endElapsedSeconds),
                    distanceM: $0.statistics.distanceMeters.isFinite ? $0.statistics.distanceMeters : 0,
                    timerS: $0.statistics.timerSeconds.isFinite ? $0.statistics.timerSeconds : 0,
                    heartRateBpm: $0.statistics.averageHeartRate.flatMap { $0.isFinite ? $0 : nil })
            },
            pauses: pauses.map { RunDetails.Pause(startS: $0.start, endS: $0.end) })
    }
}
