import ActivityFormats
import Foundation
import HandoffModel

/// Whether two people ran together, from their routes: their runs started within
/// `startWindow` of each other, and each one's way, walked every `step` metres, stays within
/// `near` metres of the other's track for at least `share` of it. Pure: routes in, a share out.
/// Both ways are asked, so one runner's short loop inside another's long run is not "together"
/// unless the long run also stays by the short one.
enum TrackMatch {
    static let startWindowNanoseconds: Int64 = 10 * 60 * nanosecondsPerSecond
    static let near = 100.0
    static let share = 0.8
    static let step = 25.0

    /// The smaller of the two shares (0 for a run without a track).
    static func together(_ a: [[Position]], _ b: [[Position]]) -> Double {
        let a = a.filter { !$0.isEmpty }
        let b = b.filter { !$0.isEmpty }
        guard let origin = (a.first ?? b.first)?.first, !a.isEmpty, !b.isEmpty else { return 0 }
        let plane = Plane(origin: origin)
        let lineA = a.map { $0.map(plane.point) }
        let lineB = b.map { $0.map(plane.point) }
        return min(shareNear(lineA, to: lineB), shareNear(lineB, to: lineA))
    }

    /// Samples a route gets at most: a file may zig-zag across the world in a few points, and
    /// the work must stay bounded whatever it says.
    static let mostSamples = 20_000

    /// The share of `line`'s length, sampled every `step` metres (more on a very long line), within
    /// `near` of `other`.
    static func shareNear(_ line: [[Point]], to other: [[Point]]) -> Double {
        let grid = SegmentGrid(other, cell: near)
        let length = line.reduce(0.0) { total, part in
            zip(part, part.dropFirst()).reduce(total) { $0 + $1.0.distance(to: $1.1) }
        }
        guard length.isFinite else { return 0 }
        let every = max(step, length / Double(mostSamples))
        var samples = 0
        var close = 0
        for part in line {
            for point in resampled(part, every: every) {
                samples += 1
                if grid.distance(from: point, within: near) <= near { close += 1 }
            }
        }
        return samples == 0 ? 0 : Double(close) / Double(samples)
    }

    /// Points every `every` metres along a line, its first and last included.
    static func resampled(_ line: [Point], every: Double = step) -> [Point] {
        guard var previous = line.first else { return [] }
        var points = [previous]
        var carried = 0.0
        for next in line.dropFirst() {
            let length = previous.distance(to: next)
            guard length.isFinite else { continue }
            var at = every - carried
            while at <= length {
                let f = at / length
                points.append(
                    Point(x: previous.x + (next.x - previous.x) * f, y: previous.y + (next.y - previous.y) * f))
                at += every
            }
            carried = length - (at - every)
            previous = next
        }
        if let last = line.last, points.count == 1 || points.last != last { points.append(last) }
        return points
    }

    struct Point: Equatable {
        var x: Double
        var y: Double

        func distance(to other: Point) -> Double {
            ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
        }
    }

    /// Metres east and north of an origin: flat enough over a run's few kilometres (the error
    /// at 10 km is under 0.1 %).
    struct Plane {
        let origin: Position
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        var east: Double { metresPerDegree * cos(origin.latitude * Double.pi / 180) }

        func point(_ p: Position) -> Point {
            Point(x: (p.longitude - origin.longitude) * east, y: (p.latitude - origin.latitude) * metresPerDegree)
        }
    }

    /// A line's segments, filed by the square cells they pass through (a point every quarter
    /// cell along each), so the nearest segment to a point is looked for among a few: any segment
    /// within a cell's size of a point has a filed point within two cells of it.
    struct SegmentGrid {
        let cell: Double
        var cells: [Int64: [(Point, Point)]] = [:]
        /// Cells filed at most, over every segment (a line across the world files no more).
        static let mostFiled = 400_000

        init(_ lines: [[Point]], cell: Double) {
            self.cell = cell
            var budget = Self.mostFiled
            for line in lines {
                let pairs = line.count == 1 ? [(line[0], line[0])] : Array(zip(line, line.dropFirst()))
                for (a, b) in pairs {
                    let length = a.distance(to: b)
                    guard length.isFinite else { continue }
                    let steps = Int(min(length / (cell / 4), Double(budget))) + 1
                    budget -= steps
                    guard budget >= 0 else { return }
                    var filed: Set<Int64> = []
                    for i in 0...steps {
                        let f = Double(i) / Double(steps)
                        let key = Self.key(index(a.x + (b.x - a.x) * f), index(a.y + (b.y - a.y) * f))
                        if filed.insert(key).inserted { cells[key, default: []].append((a, b)) }
                    }
                }
            }
        }

        func index(_ value: Double) -> Int64 {
            let i = (value / cell).rounded(.down)
            return i.isFinite ? Int64(max(-1e9, min(1e9, i))) : 0
        }

        static func key(_ x: Int64, _ y: Int64) -> Int64 { x &* 2_000_003 &+ y }

        /// The distance to the nearest segment, looked for within two cells around (`within` at
        /// most the cell's size); infinity when none is that near.
        func distance(from p: Point, within: Double) -> Double {
            let (cx, cy) = (index(p.x), index(p.y))
            var best = Double.infinity
            for dx in -2...2 {
                for dy in -2...2 {
                    for (a, b) in cells[Self.key(cx + Int64(dx), cy + Int64(dy))] ?? [] {
                        best = min(best, Self.distance(p, a, b))
                    }
                }
            }
            return best
        }

        static func distance(_ p: Point, _ a: Point, _ b: Point) -> Double {
            let (dx, dy) = (b.x - a.x, b.y - a.y)
            let length = dx * dx + dy * dy
            guard length > 0 else { return p.distance(to: a) }
            let t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length))
            return p.distance(to: Point(x: a.x + t * dx, y: a.y + t * dy))
        }
    }
}
