import ActivityFormats
import HandoffModel

#if canImport(Glibc)
    import Glibc
#endif

/// A circle the runner keeps private: home, work, a friend's door.
public struct PrivacyZone: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var latitude: Double
    public var longitude: Double
    public var radiusMeters: Double

    public init(name: String, latitude: Double, longitude: Double, radiusMeters: Double) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.radiusMeters = radiusMeters
    }

    public var description: String { "\(name) (\(radiusMeters) m)" }

    /// Whether a position is inside (or on the edge of) the circle, by great-circle distance.
    public func contains(latitude lat: Double, longitude lon: Double) -> Bool {
        Self.distanceMeters(latitude, longitude, lat, lon) <= radiusMeters
    }

    /// Haversine on a sphere of the Earth's mean radius: within 0.5 % of the ellipsoid, far
    /// less than a zone's radius needs.
    static func distanceMeters(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = 6_371_008.8
        let toRadians = Double.pi / 180
        let dLat = (lat2 - lat1) * toRadians
        let dLon = (lon2 - lon1) * toRadians
        let a =
            sin(dLat / 2) * sin(dLat / 2)
            + cos(lat1 * toRadians) * cos(lat2 * toRadians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * r * asin(min(1, sqrt(a)))
    }
}

/// Takes the private places out of a run before it leaves the pack.
public struct PrivacyFilter: Sendable {
    public var zones: [PrivacyZone]

    public init(zones: [PrivacyZone]) { self.zones = zones }

    public struct Result: Sendable {
        public var activity: Activity
        public var removedPoints: Int
        /// The zones the run touched, by name.
        public var zonesTouched: [String]
    }

    /// The activity without the points inside a zone. A point without a position goes too when
    /// the nearest positioned point before or after it is inside a zone (before the first fix, a
    /// run starting at home is at home). Distances, the summary, laps and heart rate are kept: the
    /// run's distance still counts in full. The pack's own copy is not changed.
    public func apply(_ activity: Activity) -> Result {
        guard !zones.isEmpty else { return Result(activity: activity, removedPoints: 0, zonesTouched: []) }
        var touched = Set<String>()
        // nil: no position; otherwise whether the point is inside a zone.
        let inside: [Bool?] = activity.points.map { point in
            guard let lat = point.latitude, let lon = point.longitude else { return nil }
            for zone in zones where zone.contains(latitude: lat, longitude: lon) {
                touched.insert(zone.name)
                return true
            }
            return false
        }
        var drop = inside.map { $0 ?? false }
        var previous: Bool?
        for i in inside.indices {
            if let known = inside[i] { previous = known } else if previous == true { drop[i] = true }
        }
        var next: Bool?
        for i in inside.indices.reversed() {
            if let known = inside[i] { next = known } else if next == true { drop[i] = true }
        }
        var filtered = activity
        filtered.points = zip(activity.points, drop).filter { !$0.1 }.map(\.0)
        return Result(
            activity: filtered, removedPoints: activity.points.count - filtered.points.count,
            zonesTouched: touched.sorted())
    }
}
