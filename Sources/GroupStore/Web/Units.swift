import Foundation

/// Kilometres or miles: every distance, pace and mark on a page is in the person's units.
enum Units: String, Sendable, Equatable, CaseIterable {
    case km, mi

    /// Metres in one unit of distance.
    var meters: Double { self == .km ? 1000 : 1609.344 }
    var name: String { rawValue }

    /// "12.34 km".
    func distance(meters: Double, decimals: Int = 2) -> String {
        String(format: "%.\(decimals)f \(name)", meters / self.meters)
    }

    /// "5:07 /km" for seconds over metres, "–" when no distance was run.
    func pace(seconds: Double, meters: Double) -> String {
        guard meters > 0, seconds > 0 else { return "–" }
        return Self.clock(seconds / (meters / self.meters)) + " /\(name)"
    }

    /// "km/h" or "mph" for a speed in m/s.
    func speed(_ metersPerSecond: Double) -> String {
        String(format: "%.1f \(self == .km ? "km/h" : "mph")", metersPerSecond * 3600 / meters)
    }

    /// "4:05" (minutes:seconds) or "1:04:05" (hours:minutes:seconds).
    static func clock(_ seconds: Double) -> String {
        // A file may say any number of seconds: beyond 30 years it is not a time.
        guard seconds.isFinite, abs(seconds) < 1e9 else { return "–" }
        let total = Int(seconds.rounded())
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}
