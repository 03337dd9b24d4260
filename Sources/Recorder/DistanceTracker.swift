import HandoffModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Accumulates the run's distance from increments that each cover a time interval, so that
/// two sources (GPS, footpod) can hand over without counting any moment twice or leaving one
/// out, and so that paused time counts for nothing.
///
/// An increment covering [a, b] counts only for the part of that interval after everything
/// already counted and inside recording time, in proportion.
struct DistanceTracker: Hashable, Sendable {
    private(set) var totalMeters: Double = 0
    private var coveredUntil: MonotonicInstant?
    private var pausedAt: MonotonicInstant?

    mutating func start(at time: MonotonicInstant) {
        coveredUntil = time
        pausedAt = nil
    }

    mutating func pause(at time: MonotonicInstant) { pausedAt = time }

    mutating func resume(at time: MonotonicInstant) {
        pausedAt = nil
        if let covered = coveredUntil { coveredUntil = max(covered, time) }
    }

    /// Adds `meters` run during [`from`, `to`]. Returns the metres counted.
    @discardableResult
    mutating func add(_ meters: Double, from: MonotonicInstant, to: MonotonicInstant) -> Double {
        guard let covered = coveredUntil, to > from, meters > 0, meters.isFinite else { return 0 }
        let start = max(from, covered)
        let end = pausedAt.map { min(to, $0) } ?? to
        guard end > start else { return 0 }
        let counted = meters * Double(end.nanoseconds - start.nanoseconds) / Double(to.nanoseconds - from.nanoseconds)
        totalMeters += counted
        coveredUntil = end
        return counted
    }
}

/// Distance on the Earth's surface (haversine on the WGS-84 mean radius), in metres.
func greatCircleDistance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
    let radius = 6_371_008.8
    let toRadians = Double.pi / 180
    let dLat = (lat2 - lat1) * toRadians
    let dLon = (lon2 - lon1) * toRadians
    let s1 = sin(dLat / 2)
    let s2 = sin(dLon / 2)
    let a = s1 * s1 + cos(lat1 * toRadians) * cos(lat2 * toRadians) * s2 * s2
    return 2 * radius * asin(min(1, a.squareRoot()))
}
