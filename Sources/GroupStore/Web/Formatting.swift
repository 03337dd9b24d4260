import Foundation
import HandoffModel

/// How a person reads pages: their units and time zone (from `/settings`).
struct Reader: Sendable, Equatable {
    var units: Units
    /// An IANA time zone name.
    var zone: String

    static let standard = Reader(units: .km, zone: "UTC")

    init(units: Units, zone: String) {
        self.units = units
        self.zone = zone
    }

    init(_ account: Account) {
        units = Units(rawValue: account.units) ?? .km
        zone = account.timeZone
    }
}

/// Distances, times and durations as the pages show them.
enum PageFormat {
    static func km(_ mm: Int64) -> String { String(format: "%.1f km", Double(mm) / 1_000_000) }

    /// A distance in the reader's units, one decimal: "12.3 km".
    static func distance(_ mm: Int64, _ units: Units) -> String {
        units.distance(meters: Double(mm) / 1000, decimals: 1)
    }

    /// Names as a sentence: "bob", "bob and cleo", "bob, cleo and dan"; past `most`, the rest
    /// as a count ("… and 4 others").
    static func list(_ names: [String], most: Int = 5) -> String {
        var shown = Array(names.prefix(most))
        if names.count > most { shown.append("\(names.count - most) others") }
        guard let last = shown.popLast() else { return "" }
        return shown.isEmpty ? last : shown.joined(separator: ", ") + " and " + last
    }

    /// The instant's wall-clock time in `zone` (UTC for a zone Foundation does not know).
    static func local(_ instant: WallInstant, zone: String) -> CivilTime {
        let date = Date(timeIntervalSince1970: Double(instant.nanosecondsSinceEpoch) / 1e9)
        let offset = Int64((zone == "UTC" ? nil : TimeZone(identifier: zone))?.secondsFromGMT(for: date) ?? 0)
        return CivilTime(instant.advanced(byNanoseconds: offset * nanosecondsPerSecond))
    }

    /// A time as a person reads it in their time zone, "Tue 24 Nov 2026, 16:49 CET", with the
    /// exact instant. A zone Foundation does not know reads as UTC.
    static func time(_ instant: WallInstant, zone: String = "UTC") -> TimeText {
        let date = Date(timeIntervalSince1970: Double(instant.nanosecondsSinceEpoch) / 1e9)
        let timeZone = zone == "UTC" ? nil : TimeZone(identifier: zone)
        let offset = Int64(timeZone?.secondsFromGMT(for: date) ?? 0)
        let local = instant.advanced(byNanoseconds: offset * nanosecondsPerSecond)
        let civil = CivilTime(local)
        let days = Int64((Double(local.nanosecondsSinceEpoch) / 1e9 / 86_400).rounded(.down))
        // 1 January 1970 was a Thursday.
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][Int(((days % 7) + 7) % 7)]
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][
            civil.month - 1]
        let clock = String(format: "%02d:%02d", civil.hour, civil.minute)
        let name = timeZone.map { $0.abbreviation(for: date) ?? $0.identifier } ?? "UTC"
        return TimeText(iso: iso(instant), text: "\(weekday) \(civil.day) \(month) \(civil.year), \(clock) \(name)")
    }

    /// A day as a person reads it: "23 Nov 2026" (of the instant in UTC).
    static func day(_ instant: WallInstant) -> String {
        let civil = CivilTime(instant)
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][
            civil.month - 1]
        return "\(civil.day) \(month) \(civil.year)"
    }

    /// A whole number from a file's value, "–" when it is not finite or not one an `Int` holds:
    /// a file may say 1e300, which must not take the store down.
    static func whole(_ value: Double) -> String {
        value.isFinite && abs(value) < 1e15 ? String(Int(value.rounded())) : "–"
    }

    /// How much of a goal is done, "25.0": at most 100, 0 for no goal.
    static func percent(_ done: Int64, of goal: Int64) -> String {
        String(format: "%.1f", goal > 0 ? min(1, Double(done) / Double(goal)) * 100 : 0)
    }

    static func duration(_ nanoseconds: Int64) -> String {
        let minutes = max(0, nanoseconds / nanosecondsPerSecond / 60)
        if minutes < 60 { return "\(minutes) min" }
        if minutes < 48 * 60 { return "\(minutes / 60) h \(minutes % 60) min" }
        return "\(minutes / 1440) days"
    }

    /// Time zone names a person may choose (IANA), "UTC" first.
    static let zones: [String] = ["UTC"] + TimeZone.knownTimeZoneIdentifiers.filter { $0 != "UTC" }.sorted()
}
