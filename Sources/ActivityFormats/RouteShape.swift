import HandoffModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A position on the Earth, in degrees.
public struct Position: Hashable, Sendable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The great-circle distance to `other` in metres (haversine).
    public func meters(to other: Position) -> Double {
        Totals.haversine(latitude, longitude, other.latitude, other.longitude)
    }
}

/// The spherical Web-Mercator projection of OpenStreetMap's tiles (EPSG:3857), in world units: x
/// and y from 0 to 1, x eastward from 180° W, y southward from 85.0511° N, so that tile (z, x, y)
/// covers [x, x+1] × [y, y+1] / 2^z.
public enum WebMercator {
    /// The latitude where the square world ends (atan(sinh(π))).
    public static let maximumLatitude = 85.051_128_779_806_59

    public static func project(_ position: Position) -> (x: Double, y: Double) {
        let latitude = min(max(position.latitude, -maximumLatitude), maximumLatitude) * .pi / 180
        let x = (position.longitude + 180) / 360
        let y = (1 - log(tan(latitude) + 1 / cos(latitude)) / .pi) / 2
        return (x, y)
    }

    public static func unproject(x: Double, y: Double) -> Position {
        let latitude = atan(sinh(.pi * (1 - 2 * y))) * 180 / .pi
        return Position(latitude: latitude, longitude: x * 360 - 180)
    }

    /// Metres on the ground per world unit at `latitude` (the projection's scale, 1/cos φ).
    public static func metersPerUnit(atLatitude latitude: Double) -> Double {
        2 * .pi * RouteShape.earthRadius * cos(latitude * .pi / 180)
    }
}

/// A route as a page draws it: the track's positions in segments (a new one after a pause or a
/// gap in the positions, so that neither is drawn as a straight line), each simplified with
/// Ramer–Douglas–Peucker so that no recorded position lies further than `toleranceMeters` from
/// the line drawn, with `most` points at most in all.
public struct RouteShape: Hashable, Sendable {
    /// The mean Earth radius of the haversine distances elsewhere (`Totals.haversine`).
    public static let earthRadius = 6_371_008.8

    public let segments: [[Position]]
    /// The tolerance the shape keeps: the one asked for, or a larger one when the points it
    /// needed were more than `most`.
    public let toleranceMeters: Double
    /// Positions before simplification.
    public let recordedCount: Int

    public var pointCount: Int { segments.reduce(0) { $0 + $1.count } }

    /// Simplifies `segments` (each in track order).
    public init(segments: [[Position]], toleranceMeters: Double = 2, most: Int = 2000) {
        let kept = segments.filter { !$0.isEmpty }
        recordedCount = kept.reduce(0) { $0 + $1.count }
        let reference = kept.isEmpty ? 0 : kept.joined().reduce(0) { $0 + $1.latitude } / Double(recordedCount)
        // Each point's key: the tolerance below which Ramer–Douglas–Peucker keeps it (the ends
        // never go), so that any tolerance is one pass over the keys.
        let keys = kept.map { Self.keys($0.map { Self.plane($0, reference: reference) }) }
        // Points kept at any tolerance: each segment's ends and its chunks' (`keys`).
        let ends = keys.joined().filter { !$0.isFinite }.count
        var tolerance = toleranceMeters
        let inner = keys.joined().filter(\.isFinite)
        if ends + inner.filter({ $0 > tolerance }).count > most {
            // Too many points at the tolerance asked: the smallest tolerance that leaves `most`.
            let sorted = inner.sorted(by: >)
            tolerance = sorted[max(0, most - ends)]
        }
        self.segments = zip(kept, keys).map { segment, keys in
            segment.indices.filter { keys[$0] > tolerance }.map { segment[$0] }
        }
        self.toleranceMeters = tolerance
    }

    /// The activity's route: positions in segments broken where the run was paused (from a pause
    /// event to the next resume), where points came without a position (the GPS lost its fix),
    /// and where positions are further apart in time than `gapSeconds` and twelve times the
    /// track's usual interval.
    public init(activity: Activity, gapSeconds: Int = 10, toleranceMeters: Double = 2, most: Int = 2000) {
        self.init(
            segments: Self.segments(of: activity, gapSeconds: gapSeconds), toleranceMeters: toleranceMeters,
            most: most)
    }

    static func segments(of activity: Activity, gapSeconds: Int) -> [[Position]] {
        var paused: [ClosedRange<Int64>] = []
        var pausedAt: Int64?
        for event in activity.events {
            if event.kind == .pause, pausedAt == nil { pausedAt = event.offsetNanoseconds }
            if event.kind == .resume, let from = pausedAt {
                paused.append(from...max(from, event.offsetNanoseconds))
                pausedAt = nil
            }
        }
        // Watches that record "smartly" send a point every few seconds, up to a minute apart while
        // moving (a vívoactive's: 5 s usually, 53 s at most): a gap is more than `gapSeconds` and
        // more than twelve times the track's usual interval.
        let seconds = activity.points.filter { $0.latitude != nil && $0.longitude != nil }.map(\.elapsedSeconds)
        let intervals = zip(seconds, seconds.dropFirst()).map { $1 - $0 }.sorted()
        let usual = intervals.isEmpty ? 1 : intervals[intervals.count / 2]
        let gap = max(gapSeconds, 12 * usual)
        var segments: [[Position]] = [[]]
        var last: (second: Int, pausedIndex: Int)?
        for point in activity.points {
            guard let latitude = point.latitude, let longitude = point.longitude else {
                if !(segments.last?.isEmpty ?? true) { segments.append([]) }
                continue
            }
            let nanoseconds = Int64(point.elapsedSeconds) * nanosecondsPerSecond
            // How many pauses began at or before this point: a change breaks the line.
            let pausesBefore = paused.prefix { $0.lowerBound <= nanoseconds }.count
            if let last, point.elapsedSeconds - last.second > gap || pausesBefore != last.pausedIndex,
                !(segments.last?.isEmpty ?? true)
            {
                segments.append([])
            }
            segments[segments.count - 1].append(Position(latitude: latitude, longitude: longitude))
            last = (point.elapsedSeconds, pausesBefore)
        }
        return segments.filter { !$0.isEmpty }
    }

    /// Where the runner passed each multiple of `every` metres (1,000 for kilometres, 1,609.344
    /// for miles), from the points' distances, interpolated between the two positions around it.
    /// A mark that falls in a pause or a gap of positions is left out: nothing there to place it,
    /// and so is one inside a jump of more than a thousand marks between two points.
    public static func marks(of activity: Activity, every: Double) -> [(distance: Double, position: Position)] {
        guard every > 0 else { return [] }
        var marks: [(distance: Double, position: Position)] = []
        var previous: (distance: Double, position: Position)?
        for point in activity.points {
            guard let latitude = point.latitude, let longitude = point.longitude else {
                previous = nil
                continue
            }
            let here = (distance: point.distanceMeters, position: Position(latitude: latitude, longitude: longitude))
            // A file's point may say any distance (a TCX's 1e300 m): a jump of more than a
            // thousand marks between two points is no run's, and is not marked, so the loop
            // below stays bounded.
            if let before = previous, here.distance > before.distance,
                (here.distance - before.distance) / every <= 1000
            {
                var next = (before.distance / every).rounded(.down) * every + every
                while next <= here.distance {
                    let t = (next - before.distance) / (here.distance - before.distance)
                    marks.append(
                        (
                            next,
                            Position(
                                latitude: before.position.latitude + t * (latitude - before.position.latitude),
                                longitude: before.position.longitude + t * (longitude - before.position.longitude))
                        ))
                    next += every
                }
            }
            previous = here
        }
        return marks
    }

    /// A position in metres on a plane tangent at latitude `reference` (equirectangular). Over a
    /// run's extent the scale differs from the true one by under 0.5 %, of distances of metres.
    static func plane(_ position: Position, reference: Double) -> (x: Double, y: Double) {
        let radians = Double.pi / 180
        return (
            earthRadius * position.longitude * radians * cos(reference * radians),
            earthRadius * position.latitude * radians
        )
    }

    /// Ramer–Douglas–Peucker without recursion, to the last point: each point's key is the
    /// distance at which it splits its span, capped by the keys of the spans it lies in, so that
    /// the points a tolerance `t` keeps are those whose key exceeds `t` (the ends: infinity).
    /// Worst-case work is quadratic in a span's length (a zigzag whose farthest point is always
    /// near an end), so a segment is simplified in chunks of `chunk` points that share their ends:
    /// a few more points kept, and a bounded time for any track.
    static func keys(_ points: [(x: Double, y: Double)], chunk: Int = 512) -> [Double] {
        var keys = [Double](repeating: 0, count: points.count)
        guard !points.isEmpty else { return keys }
        var start = 0
        while true {
            let end = min(start + chunk, points.count - 1)
            keys[start] = .infinity
            keys[end] = .infinity
            var spans = [(start, end, Double.infinity)]
            while let (first, last, cap) = spans.popLast() {
                guard last - first > 1 else { continue }
                var farthest = first + 1
                var distance = -1.0
                for index in (first + 1)..<last {
                    let d = segmentDistance(points[index], points[first], points[last])
                    if d > distance {
                        distance = d
                        farthest = index
                    }
                }
                let key = min(distance, cap)
                keys[farthest] = key
                spans.append((first, farthest, key))
                spans.append((farthest, last, key))
            }
            if end == points.count - 1 { return keys }
            start = end
        }
    }

    /// The indices kept at `tolerance`, in order (for tests and callers with their own points).
    static func simplify(_ points: [(x: Double, y: Double)], tolerance: Double) -> [Int] {
        let keys = keys(points)
        return keys.indices.filter { keys[$0] > tolerance }
    }

    /// The distance from `p` to the segment from `a` to `b` (to the nearer end beyond either).
    static func segmentDistance(
        _ p: (x: Double, y: Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)
    ) -> Double {
        let dx = b.x - a.x
        let dy = b.y - a.y
        let length = dx * dx + dy * dy
        let t = length > 0 ? min(1, max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length)) : 0
        return hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy))
    }
}
