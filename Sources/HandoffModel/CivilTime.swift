/// A UTC calendar date and time of day, converted to and from Unix time without Foundation
/// (the proleptic Gregorian calendar; H. Hinnant's days-from-civil algorithm).
public struct CivilTime: Hashable, Sendable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var nanosecond: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, nanosecond: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanosecond = nanosecond
    }

    public init(_ instant: WallInstant) {
        let ns = instant.nanosecondsSinceEpoch
        var seconds = ns / nanosecondsPerSecond
        var fraction = ns % nanosecondsPerSecond
        if fraction < 0 {
            fraction += nanosecondsPerSecond
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (y, m, d) = Self.civil(fromDays: Int(days))
        self.init(
            year: y, month: m, day: d, hour: Int(secondOfDay / 3600), minute: Int(secondOfDay % 3600 / 60),
            second: Int(secondOfDay % 60), nanosecond: Int(fraction))
    }

    /// The years a date from outside (a sensor, gpsd, a file, a request) may name. A GPS
    /// receiver, a watch or a person has no business before GPS's own era or past this
    /// century, and every time in that span fits 64-bit nanoseconds with room to spare
    /// (they run out in 2262). Readers refuse dates outside it instead of converting them.
    public static let supportedYears: ClosedRange<Int> = 1980...2100

    /// The same span as instants: 1980-01-01T00:00:00Z up to, not including, 2101-01-01.
    public static let supportedInstants: Range<WallInstant> =
        CivilTime(year: 1980, month: 1, day: 1).instant..<CivilTime(year: 2101, month: 1, day: 1).instant

    /// Days in `month` (1–12) of `year` in the Gregorian calendar.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// A real calendar date and time of day in `supportedYears`: no 31 February, no hour 24, a
    /// leap second (60) allowed.
    public var isSupported: Bool {
        Self.supportedYears.contains(year) && (1...12).contains(month)
            && (1...Self.daysIn(month: month, year: year)).contains(day) && (0..<24).contains(hour)
            && (0..<60).contains(minute) && (0...60).contains(second) && (0..<1_000_000_000).contains(nanosecond)
    }

    /// The instant, or nil when the date is not `isSupported`: what every reader of outside
    /// data uses.
    public var checkedInstant: WallInstant? { isSupported ? instant : nil }

    /// The instant. Meant for dates known to be sane (`isSupported`); arithmetic wraps instead of
    /// trapping on absurd ones, so use `checkedInstant` for anything read from outside.
    public var instant: WallInstant {
        let days = Int64(truncatingIfNeeded: Self.days(fromCivil: year, month, day))
        let seconds = days &* 86_400 &+ Int64(truncatingIfNeeded: hour &* 3600 &+ minute &* 60 &+ second)
        return WallInstant(
            nanosecondsSinceEpoch: seconds &* nanosecondsPerSecond &+ Int64(truncatingIfNeeded: nanosecond))
    }

    /// `2026-06-14T07:00:00Z`, with milliseconds when `milliseconds` is true.
    public func iso8601(milliseconds: Bool = false) -> String {
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
        if milliseconds { text += "." + pad(nanosecond / 1_000_000, 3) }
        return text + "Z"
    }

    static func days(fromCivil y: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y &- 1 : y
        let era = (y >= 0 ? y : y &- 399) / 400
        let yoe = y &- era &* 400
        let doy = (153 &* (m > 2 ? m &- 3 : m &+ 9) &+ 2) / 5 &+ d &- 1
        let doe = yoe &* 365 &+ yoe / 4 &- yoe / 100 &+ doy
        return era &* 146_097 &+ doe &- 719_468
    }

    static func civil(fromDays z: Int) -> (Int, Int, Int) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
