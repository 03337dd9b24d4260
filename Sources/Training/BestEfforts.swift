/// The fastest time over a distance found anywhere inside one activity (a "best effort"):
/// not only whole runs, but the quickest kilometre of a 10 km run, say.
///
/// The activity is its samples of (elapsed seconds, distance so far), the distance read
/// between samples as changing linearly in time. Over that piecewise-linear curve the fastest
/// stretch of distance D starts or ends at a sample (between two samples the time a stretch
/// takes changes linearly, so it is least at an end of the interval), so two passes find it
/// exactly: every sample as a start, with the end placed where the distance reaches start + D,
/// and every sample as an end, with the start placed where the distance was end − D. Time is
/// elapsed time, pauses included, as a watch's best efforts are.
public enum BestEfforts {
    /// The distances the store keeps records for, shortest first.
    public static let standard: [(name: String, meters: Double)] = [
        ("1 km", 1000), ("Mile", 1609.344), ("5 km", 5000), ("10 km", 10_000), ("Half marathon", 21_097.5),
        ("Marathon", 42_195),
    ]

    /// One best effort: `seconds` over `meters`, starting `start` seconds into the activity.
    public struct Effort: Sendable, Equatable {
        public var meters: Double
        public var seconds: Double
        public var start: Double
    }

    /// The best effort for each of `distances` that the activity covers. `samples` are
    /// (elapsed seconds, distance so far in metres); a sample whose time does not move on, or
    /// whose values are not finite, is left out, and a distance that falls back is read as
    /// staying where it was (a device's distance only grows).
    public static func find(
        _ samples: [(seconds: Double, meters: Double)], distances: [Double] = standard.map(\.meters)
    ) -> [Effort] {
        var t: [Double] = []
        var d: [Double] = []
        t.reserveCapacity(samples.count)
        d.reserveCapacity(samples.count)
        for sample in samples where sample.seconds.isFinite && sample.meters.isFinite {
            if let last = t.last, sample.seconds <= last { continue }
            t.append(sample.seconds)
            d.append(max(sample.meters, d.last ?? sample.meters))
        }
        guard t.count >= 2 else { return [] }
        return distances.compactMap { target in
            guard target > 0, d[d.count - 1] - d[0] >= target else { return nil }
            return fastest(t, d, target)
        }
    }

    private static func fastest(_ t: [Double], _ d: [Double], _ target: Double) -> Effort? {
        var best: Effort?
        func consider(start: Double, end: Double) {
            let seconds = end - start
            if best == nil || seconds < best!.seconds {
                best = Effort(meters: target, seconds: seconds, start: start)
            }
        }
        // Each sample as a start: the end is where the distance first reaches d[i] + target.
        var j = 1
        for i in 0..<t.count {
            let goal = d[i] + target
            if j <= i { j = i + 1 }
            while j < t.count && d[j] < goal { j += 1 }
            guard j < t.count else { break }
            consider(start: t[i], end: time(at: goal, t, d, j - 1, j))
        }
        // Each sample as an end: the start is where the distance last was d[k] − target.
        var i = 0
        for k in 0..<t.count {
            let from = d[k] - target
            guard from >= d[0] else { continue }
            // The last i with d[i] ≤ from; then the start lies between i and i + 1.
            while i + 1 < k && d[i + 1] <= from { i += 1 }
            consider(start: time(at: from, t, d, i, i + 1), end: t[k])
        }
        return best
    }

    /// When the distance was `x`, between samples `a` and `b` (d[a] ≤ x ≤ d[b]): on a stretch
    /// where the distance did not change, its last moment for a start and its first for an end
    /// come out of the callers' choice of `a` and `b`.
    private static func time(at x: Double, _ t: [Double], _ d: [Double], _ a: Int, _ b: Int) -> Double {
        let span = d[b] - d[a]
        guard span > 0 else { return x <= d[a] ? t[a] : t[b] }
        return t[a] + (t[b] - t[a]) * min(1, max(0, (x - d[a]) / span))
    }
}
