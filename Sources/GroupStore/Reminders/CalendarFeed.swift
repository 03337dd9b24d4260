import Foundation
import HandoffModel

/// A person's calendar feed (RFC 5545), which a phone's calendar subscribes to: one weekly
/// event at their reminder's days and time, in their time zone (with its VTIMEZONE, worked out
/// from Foundation's zone data for a year back and two ahead), an alarm 15 minutes before, and
/// their goals' progress as of when the phone last read it.
enum CalendarFeed {
    static func ics(
        reminder: Reminder, account: Account, progress: [String], origin: String, now: WallInstant
    ) -> String {
        let zone = TimeZone(identifier: account.timeZone) ?? TimeZone(identifier: "UTC")!
        let utc = zone.identifier == "UTC" || zone.identifier == "GMT"
        let host = URLComponents(string: origin)?.host ?? "handoff"
        // The first time, at or after the start of this week, so the series starts in the past.
        let weekAgo = now.advanced(byNanoseconds: -7 * 86_400 * nanosecondsPerSecond)
        let first = reminder.next(after: weekAgo, zone: zone.identifier) ?? now
        let days = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Handoff//Group store//EN", "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH", "X-WR-CALNAME:" + text("Handoff: time to run"), "REFRESH-INTERVAL;VALUE=DURATION:PT6H",
            "X-PUBLISHED-TTL:PT6H",
        ]
        if !utc { lines += timezone(zone, around: now) }
        let description =
            (progress.isEmpty ? ["No goals set yet."] : progress) + ["", "Your goals: " + origin + SitePath.goals.path]
        lines += [
            "BEGIN:VEVENT",
            "UID:reminder-\(account.id)@\(host)",
            "DTSTAMP:" + stamp(now, zone: nil),
            utc ? "DTSTART:" + stamp(first, zone: nil) : "DTSTART;TZID=\(zone.identifier):" + stamp(first, zone: zone),
            "DURATION:PT1H",
            "RRULE:FREQ=WEEKLY;BYDAY=" + reminder.days.sorted().map { days[$0 - 1] }.joined(separator: ","),
            "SUMMARY:" + text("Run (Handoff)"),
            "DESCRIPTION:" + text(description.joined(separator: "\n")),
            "URL:" + origin + SitePath.goals.path,
            "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M", "DESCRIPTION:" + text("Time to run"), "END:VALARM",
            "END:VEVENT", "END:VCALENDAR",
        ]
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    /// TEXT as RFC 5545 §3.3.11 escapes it.
    static func text(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ";", with: "\\;")
            .replacingOccurrences(of: ",", with: "\\,").replacingOccurrences(of: "\r\n", with: "\\n")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A content line folded at 75 octets (§3.1), never inside a UTF-8 character.
    static func fold(_ line: String) -> String {
        var out: [String] = []
        var current = ""
        var octets = 0
        for character in line {
            let size = String(character).utf8.count
            if octets + size > (out.isEmpty ? 75 : 74) {
                out.append(current)
                current = ""
                octets = 0
            }
            current.append(character)
            octets += size
        }
        out.append(current)
        return out.joined(separator: "\r\n ")
    }

    /// "20261130T073000" in `zone`'s local time, or "20261130T063000Z" in UTC (zone nil).
    static func stamp(_ instant: WallInstant, zone: TimeZone?) -> String {
        let date = Date(timeIntervalSince1970: Double(instant.nanosecondsSinceEpoch) / 1e9)
        let offset = zone.map { Int64($0.secondsFromGMT(for: date)) } ?? 0
        let civil = CivilTime(instant.advanced(byNanoseconds: offset * nanosecondsPerSecond))
        return String(
            format: "%04d%02d%02dT%02d%02d%02d%@", civil.year, civil.month, civil.day, civil.hour, civil.minute,
            civil.second, zone == nil ? "Z" : "")
    }

    /// The zone's VTIMEZONE: each offset change from a year before `now` to two after, each an
    /// observance of its own (its onset in the local time before it, §3.6.5), or one standard
    /// observance for a zone without changes.
    static func timezone(_ zone: TimeZone, around now: WallInstant) -> [String] {
        let start = Date(timeIntervalSince1970: Double(now.nanosecondsSinceEpoch) / 1e9 - 366 * 86_400)
        let end = start.addingTimeInterval(3 * 366 * 86_400)
        func offset(_ seconds: Int) -> String {
            let sign = seconds < 0 ? "-" : "+"
            let minutes = abs(seconds) / 60
            return String(format: "%@%02d%02d", sign, minutes / 60, minutes % 60)
        }
        func onset(_ date: Date, before: Int) -> String {
            stamp(
                WallInstant(secondsSinceEpoch: date.timeIntervalSince1970),
                zone: TimeZone(secondsFromGMT: before) ?? TimeZone(identifier: "UTC")!)
        }
        var lines = ["BEGIN:VTIMEZONE", "TZID:\(zone.identifier)"]
        // The offset in force at the window's start, as an observance from then.
        var before = zone.secondsFromGMT(for: start)
        lines += [
            "BEGIN:" + (zone.isDaylightSavingTime(for: start) ? "DAYLIGHT" : "STANDARD"),
            "DTSTART:" + onset(start, before: before), "TZOFFSETFROM:" + offset(before), "TZOFFSETTO:" + offset(before),
            "END:" + (zone.isDaylightSavingTime(for: start) ? "DAYLIGHT" : "STANDARD"),
        ]
        var cursor = start
        while let change = zone.nextDaylightSavingTimeTransition(after: cursor), change < end {
            let after = zone.secondsFromGMT(for: change)
            let kind = zone.isDaylightSavingTime(for: change) ? "DAYLIGHT" : "STANDARD"
            lines += [
                "BEGIN:" + kind, "DTSTART:" + onset(change, before: before), "TZOFFSETFROM:" + offset(before),
                "TZOFFSETTO:" + offset(after), "TZNAME:" + (zone.abbreviation(for: change) ?? zone.identifier),
                "END:" + kind,
            ]
            before = after
            cursor = change
        }
        return lines + ["END:VTIMEZONE"]
    }
}
