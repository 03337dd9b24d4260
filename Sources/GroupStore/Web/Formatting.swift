import Foundation
import HandoffModel

/// Distances, times and durations as the pages show them.
enum PageFormat {
    static func km(_ mm: Int64) -> String { String(format: "%.1f km", Double(mm) / 1_000_000) }

    /// A time as a person reads it, "Tue 24 Nov 2026, 15:49 UTC", with the exact instant.
    static func time(_ instant: WallInstant) -> TimeText {
        let civil = CivilTime(instant)
        let days = instant.nanosecondsSinceEpoch / nanosecondsPerSecond / 86_400
        // 1 January 1970 was a Thursday.
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][Int(((days % 7) + 7) % 7)]
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][
            civil.month - 1]
        let clock = String(format: "%02d:%02d", civil.hour, civil.minute)
        return TimeText(iso: iso(instant), text: "\(weekday) \(civil.day) \(month) \(civil.year), \(clock) UTC")
    }

    static func duration(_ nanoseconds: Int64) -> String {
        let minutes = max(0, nanoseconds / nanosecondsPerSecond / 60)
        if minutes < 60 { return "\(minutes) min" }
        if minutes < 48 * 60 { return "\(minutes / 60) h \(minutes % 60) min" }
        return "\(minutes / 1440) days"
    }
}
