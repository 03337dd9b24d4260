import ActivityFormats
import Foundation

extension RunFacts {
    /// How much of a route's start and end only its owner sees: where a run starts and ends is
    /// most often where the runner lives or works (on top of the pack's own privacy zones).
    static let hiddenEnds = 200.0

    /// The facts as someone else sees them: the route without its first and last `ends` metres
    /// along the way (cut exactly there, between two points), and without the marks inside them.
    /// A route no longer than twice `ends` keeps no track at all.
    func withoutEnds(_ ends: Double = RunFacts.hiddenEnds) -> RunFacts {
        guard let track else { return self }
        var total = 0.0
        var previous: [Double]?
        for point in track.segments.joined() {
            if let previous { total += Self.meters(previous, point) }
            previous = point
        }
        let (low, high) = (ends, total - ends)
        var copy = self
        guard high > low else {
            copy.track = nil
            copy.km.marks = []
            copy.mi.marks = []
            return copy
        }
        var segments: [[[Double]]] = []
        var along = 0.0
        previous = nil
        for segment in track.segments {
            var kept: [[Double]] = []
            for (index, point) in segment.enumerated() {
                if let before = previous {
                    let step = Self.meters(before, point)
                    let start = along
                    along += step
                    // The cuts that fall inside this step, in order (only within a segment: a
                    // gap between two segments draws no line to cut).
                    if index > 0 {
                        for cut in [low, high] where start < cut && cut < along {
                            let f = (cut - start) / step
                            kept.append([
                                before[0] + (point[0] - before[0]) * f, before[1] + (point[1] - before[1]) * f,
                            ])
                            if cut == high {
                                segments.append(kept)
                                kept = []
                            }
                        }
                    }
                }
                previous = point
                if low <= along && along <= high { kept.append(point) }
            }
            if kept.count >= 2 { segments.append(kept) }
        }
        segments = segments.filter { $0.count >= 2 }
        copy.track =
            segments.isEmpty
            ? nil
            : Track(
                segments: segments, tolerance: track.tolerance, recorded: track.recorded,
                firstLatitude: track.firstLatitude)
        let last = summary.distance - ends
        copy.km.marks = km.marks.filter { $0.distance > low && $0.distance < last }
        copy.mi.marks = mi.marks.filter { $0.distance > low && $0.distance < last }
        return copy
    }

    private static func meters(_ a: [Double], _ b: [Double]) -> Double {
        Position(latitude: a[0], longitude: a[1]).meters(to: Position(latitude: b[0], longitude: b[1]))
    }
}
