import Foundation
import HandoffModel
import TestSupport
import Testing

@testable import ActivityFormats

/// Issue 32: the route a run's page draws. Checked with spherical geometry of its own (great-circle
/// cross-track distances), not with the plane the simplifier works on.
@Suite("A run's route: Web-Mercator, simplified within 2 m, at most 2,000 points, broken at pauses and gaps")
struct RouteShapeTests {
    /// The distance from `p` to the great-circle arc from `a` to `b`, in metres: the cross-track
    /// distance when `p` projects inside the arc, else the distance to the nearer end.
    static func arcDistance(_ p: Position, _ a: Position, _ b: Position) -> Double {
        let r = RouteShape.earthRadius
        func radians(_ x: Position) -> (Double, Double) { (x.latitude * .pi / 180, x.longitude * .pi / 180) }
        func angle(_ x: Position, _ y: Position) -> Double {
            let (f1, l1) = radians(x)
            let (f2, l2) = radians(y)
            let h = pow(sin((f2 - f1) / 2), 2) + cos(f1) * cos(f2) * pow(sin((l2 - l1) / 2), 2)
            return 2 * asin(min(1, sqrt(h)))
        }
        func bearing(_ x: Position, _ y: Position) -> Double {
            let (f1, l1) = radians(x)
            let (f2, l2) = radians(y)
            return atan2(sin(l2 - l1) * cos(f2), cos(f1) * sin(f2) - sin(f1) * cos(f2) * cos(l2 - l1))
        }
        let d13 = angle(a, p)
        let d12 = angle(a, b)
        if d12 == 0 { return d13 * r }
        let difference = bearing(a, p) - bearing(a, b)
        if cos(difference) <= 0 { return d13 * r }
        let crossTrack = asin(sin(d13) * sin(difference))
        let alongTrack = acos(min(1, cos(d13) / cos(crossTrack)))
        if alongTrack >= d12 { return angle(b, p) * r }
        return abs(crossTrack) * r
    }

    /// The largest distance from a recorded position to the line drawn through the kept ones.
    static func worstError(_ recorded: [Position], kept: [Int]) -> Double {
        var worst = 0.0
        for (first, last) in zip(kept, kept.dropFirst()) where last - first > 1 {
            for index in (first + 1)..<last {
                worst = max(worst, arcDistance(recorded[index], recorded[first], recorded[last]))
            }
        }
        return worst
    }

    @Test("Web-Mercator: the world's corners and centre, and each position back from its projection")
    func projection() {
        let centre = WebMercator.project(Position(latitude: 0, longitude: 0))
        #expect(abs(centre.x - 0.5) < 1e-12 && abs(centre.y - 0.5) < 1e-12)
        let northWest = WebMercator.project(Position(latitude: WebMercator.maximumLatitude, longitude: -180))
        #expect(abs(northWest.x) < 1e-12 && abs(northWest.y) < 1e-9)
        let southEast = WebMercator.project(Position(latitude: -WebMercator.maximumLatitude, longitude: 180))
        #expect(abs(southEast.x - 1) < 1e-12 && abs(southEast.y - 1) < 1e-9)
        // Beyond the square world, a latitude is drawn at its edge.
        #expect(WebMercator.project(Position(latitude: 89.9, longitude: 0)).y == northWest.y)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let p = Position(
                latitude: .random(in: -85...85, using: &generator),
                longitude: .random(in: -180...180, using: &generator))
            let (x, y) = WebMercator.project(p)
            let back = WebMercator.unproject(x: x, y: y)
            #expect(abs(back.latitude - p.latitude) < 1e-9 && abs(back.longitude - p.longitude) < 1e-9)
            // Ten metres north moves y by ten metres at the projection's scale there (to 0.1 %).
            let north = Position(latitude: p.latitude + 10 / RouteShape.earthRadius * 180 / .pi, longitude: p.longitude)
            let moved = (y - WebMercator.project(north).y) * WebMercator.metersPerUnit(atLatitude: p.latitude)
            #expect(abs(moved - 10) < 0.01, "at \(p.latitude)°: \(moved) m")
        }
    }

    static let tracks = [
        "fit/activity-small-fenix2-run.fit", "tcx/tcxreader-vivoactiveHR-sup_activity_1.tcx",
        "gpx/opentracks-gpx_timezone.gpx", "gpx/gpxpy-gpx1.1_with_all_fields.gpx",
    ]

    @Test(
        "Real tracks: every recorded position within 2 m of the line drawn, the ends kept, fewer points",
        .enabled(if: Fixtures.available, "needs ../shared/fixtures"), arguments: tracks)
    func realTracks(_ name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: try Fixtures.url("files/" + name)))
        let activity: Activity =
            switch name.split(separator: ".").last {
            case "fit": try FITReader.read(bytes)
            case "tcx": try TCXReader.read(bytes)
            default: try GPXReader.read(bytes)
            }
        let segments = RouteShape.segments(of: activity, gapSeconds: 10)
        let positioned = activity.points.filter { $0.latitude != nil && $0.longitude != nil }.count
        #expect(positioned > 0, "\(name) has a track")
        #expect(segments.reduce(0) { $0 + $1.count } == positioned, "every position is in one segment")
        if name.hasPrefix("tcx/") {
            #expect(segments.count == 1, "a point every 5 s, up to 53 s apart (smart recording), is no gap")
        }
        let shape = RouteShape(segments: segments)
        #expect(shape.toleranceMeters == 2)
        #expect(shape.pointCount <= 2000 && shape.pointCount <= positioned)
        print("route \(name): \(positioned) positions in \(segments.count) segments, \(shape.pointCount) drawn")
        #expect(shape.segments.count == segments.count)
        for (recorded, drawn) in zip(segments, shape.segments) {
            #expect(drawn.first == recorded.first && drawn.last == recorded.last)
            let kept = Self.keptIndices(recorded)
            #expect(kept.map { recorded[$0] } == drawn)
            #expect(Self.worstError(recorded, kept: kept) <= 2.01, "\(name)")
        }
    }

    /// The indices the simplifier keeps for a segment, through its own plane.
    static func keptIndices(_ recorded: [Position], tolerance: Double = 2) -> [Int] {
        let reference = recorded.reduce(0) { $0 + $1.latitude } / Double(recorded.count)
        return RouteShape.simplify(recorded.map { RouteShape.plane($0, reference: reference) }, tolerance: tolerance)
    }

    @Test("A six-hour zigzag that needs every point at 2 m is drawn with 2,000 at most, its tolerance said")
    func mostPoints() {
        // 21,600 points a second apart along a meridian, each 5 m east or west of it.
        let metre = 1 / RouteShape.earthRadius * 180 / .pi
        let track = (0..<21_600).map { i in
            Position(
                latitude: 48 + Double(i) * 3 * metre,
                longitude: 11 + (i % 2 == 0 ? 5.0 : -5.0) * metre / cos(48 * Double.pi / 180))
        }
        let shape = RouteShape(segments: [track])
        #expect(shape.recordedCount == 21_600)
        #expect(shape.pointCount <= 2000)
        #expect(shape.toleranceMeters > 2)
        let kept = Self.keptIndices(track, tolerance: shape.toleranceMeters)
        #expect(kept.count == shape.pointCount)
        #expect(Self.worstError(track, kept: kept) <= shape.toleranceMeters * 1.01)
        // A straight line needs its two ends only, and the ends of the 512-point chunks that bound
        // the simplifier's work.
        let line = (0..<5000).map { Position(latitude: 48 + Double($0) * metre, longitude: 11) }
        let ends = Array(stride(from: 0, to: 4999, by: 512)) + [4999]
        #expect(RouteShape(segments: [line]).segments == [ends.map { line[$0] }])
    }

    @Test("A pause, a lost fix and a gap of positions each start a new segment; nothing is drawn across them")
    func breaks() {
        func point(_ second: Int, _ position: Bool = true) -> RecordPoint {
            RecordPoint(
                elapsedSeconds: second, latitude: position ? 48 + Double(second) * 1e-4 : nil,
                longitude: position ? 11 : nil, distanceMeters: Double(second))
        }
        // 0–9 s; paused from 9.5 to 20 s; 20–29 s; no fix 30–34 s; 35–39 s; nothing 40–59 s; 60–64 s.
        let points =
            (0..<10).map { point($0) } + (20..<30).map { point($0) } + (30..<35).map { point($0, false) }
            + (35..<40).map { point($0) } + (60..<65).map { point($0) }
        let activity = Activity(
            start: WallInstant(nanosecondsSinceEpoch: 0), points: points,
            events: [
                SessionEvent(offsetNanoseconds: 0, kind: .start),
                SessionEvent(offsetNanoseconds: 9_500_000_000, kind: .pause),
                SessionEvent(offsetNanoseconds: 20_000_000_000, kind: .resume),
            ],
            summary: RunSummary(elapsedSeconds: 65, statistics: RunStatistics(), splits: []))
        let segments = RouteShape.segments(of: activity, gapSeconds: 10)
        #expect(segments.map(\.count) == [10, 10, 5, 5])
        let shape = RouteShape(activity: activity)
        #expect(shape.segments.count == 4)
        #expect(shape.segments.allSatisfy { $0.count == 2 }, "each segment is straight: its two ends")
    }
}

extension RouteShapeTests {
    @Test("Kilometre and mile marks fall where the distance crosses each multiple, none across a gap")
    func marks() {
        // 1 m/s due north for 2,500 s, one point a second; no position from 1,200 to 1,300 s.
        let metre = 1 / RouteShape.earthRadius * 180 / .pi
        let points = (0...2500).map { second in
            let lost = (1200..<1300).contains(second)
            return RecordPoint(
                elapsedSeconds: second, latitude: lost ? nil : 48 + Double(second) * metre, longitude: lost ? nil : 11,
                distanceMeters: Double(second))
        }
        let activity = Activity(
            start: WallInstant(nanosecondsSinceEpoch: 0), points: points,
            summary: RunSummary(elapsedSeconds: 2500, statistics: RunStatistics(), splits: []))
        let kilometres = RouteShape.marks(of: activity, every: 1000)
        #expect(kilometres.map(\.distance) == [1000, 2000])
        for mark in kilometres {
            #expect(abs(mark.position.latitude - (48 + mark.distance * metre)) < 1e-9)
        }
        let miles = RouteShape.marks(of: activity, every: 1609.344)
        #expect(miles.map(\.distance) == [1609.344])
        #expect(abs(miles[0].position.latitude - (48 + 1609.344 * metre)) < 1e-9)
        // Every 100 m: none at 1,200 m (no position from there until 1,300 m) nor at 1,300 m (where
        // the positions start again: no segment leads to it).
        let hundreds = RouteShape.marks(of: activity, every: 100).map(\.distance)
        #expect(
            hundreds == Array(stride(from: 100.0, through: 1100, by: 100))
                + Array(stride(from: 1400.0, through: 2500, by: 100)))
    }

    @Test("A point that says 1e300 m (a TCX may) is not marked: the marking stays bounded, not 1e297 steps")
    func absurdDistance() {
        let metre = 1 / RouteShape.earthRadius * 180 / .pi
        let points = (0...3000).map { second in
            RecordPoint(
                elapsedSeconds: second, latitude: 48 + Double(second) * metre, longitude: 11,
                distanceMeters: second == 1500 ? 1e300 : Double(second))
        }
        let activity = Activity(
            start: WallInstant(nanosecondsSinceEpoch: 0), points: points,
            summary: RunSummary(elapsedSeconds: 3000, statistics: RunStatistics(), splits: []))
        // The jump to 1e300 m and the fall back are not marked; the rest of the run is.
        #expect(RouteShape.marks(of: activity, every: 1000).map(\.distance) == [1000, 2000, 3000])
    }
}
