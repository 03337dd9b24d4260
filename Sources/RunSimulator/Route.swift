#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A closed running loop in a local east/north plane (metres), with its altitude profile and the
/// places where something happens: a road crossing where the runner stops, and an underpass
/// where the GPS loses its fix.
struct Route {
    /// Vertices of the loop, the last equal to the first.
    private let points: [(x: Double, y: Double)]
    /// Cumulative length at each vertex.
    private let cumulative: [Double]
    let length: Double

    /// Where the runner stops to cross a road, as a fraction of a loop.
    let crossingFraction = 0.35
    /// The underpass (GPS outage), as fractions of a loop.
    let underpassFractions = (0.582, 0.594)
    let origin = (latitude: 48.1180, longitude: 11.5890)

    /// An egg-shaped loop with a few bends, about 5 km around.
    init(samples: Int = 20_000) {
        var pts: [(x: Double, y: Double)] = []
        pts.reserveCapacity(samples + 1)
        for i in 0...samples {
            let theta = 2 * Double.pi * Double(i) / Double(samples)
            let r = 1 + 0.12 * sin(3 * theta + 0.4) + 0.06 * cos(5 * theta)
            pts.append((x: 930 * r * (cos(theta) - 1), y: 540 * r * sin(theta)))
        }
        pts[samples] = pts[0]
        var cum = [0.0]
        cum.reserveCapacity(pts.count)
        for i in 1..<pts.count {
            let dx = pts[i].x - pts[i - 1].x
            let dy = pts[i].y - pts[i - 1].y
            cum.append(cum[i - 1] + (dx * dx + dy * dy).squareRoot())
        }
        points = pts
        cumulative = cum
        length = cum[cum.count - 1]
    }

    /// Position and heading (degrees clockwise from north) at `distance` along the route
    /// (wrapping round the loop).
    func position(at distance: Double) -> (x: Double, y: Double, heading: Double) {
        var s = distance.truncatingRemainder(dividingBy: length)
        if s < 0 { s += length }
        var low = 0
        var high = cumulative.count - 1
        while high - low > 1 {
            let mid = (low + high) / 2
            if cumulative[mid] <= s { low = mid } else { high = mid }
        }
        let segment = cumulative[high] - cumulative[low]
        let f = segment > 0 ? (s - cumulative[low]) / segment : 0
        let a = points[low]
        let b = points[high]
        var heading = atan2(b.x - a.x, b.y - a.y) * 180 / Double.pi
        if heading < 0 { heading += 360 }
        return (a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f, heading)
    }

    /// Altitude above sea level: a 22 m hill up and down in the second half of the loop.
    func altitude(at distance: Double) -> Double {
        let f = fraction(distance)
        return 519.0 + 22 * ramp(f, 0.64, 0.74) - 22 * ramp(f, 0.82, 0.92)
    }

    /// Rise over run at `distance`.
    func grade(at distance: Double) -> Double {
        (altitude(at: distance + 1) - altitude(at: distance - 1)) / 2
    }

    func fraction(_ distance: Double) -> Double {
        var f = (distance / length).truncatingRemainder(dividingBy: 1)
        if f < 0 { f += 1 }
        return f
    }

    func isInUnderpass(_ distance: Double) -> Bool {
        let f = fraction(distance)
        return f >= underpassFractions.0 && f <= underpassFractions.1
    }

    /// A smooth step from 0 at `a` to 1 at `b`.
    private func ramp(_ f: Double, _ a: Double, _ b: Double) -> Double {
        if f <= a { return 0 }
        if f >= b { return 1 }
        return (1 - cos(Double.pi * (f - a) / (b - a))) / 2
    }

    /// Latitude and longitude of a local point (metres east and north of the origin).
    func coordinates(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        let radius = 6_371_008.8
        let lat = origin.latitude + y / radius * 180 / Double.pi
        let lon = origin.longitude + x / (radius * cos(origin.latitude * Double.pi / 180)) * 180 / Double.pi
        return (lat, lon)
    }
}
