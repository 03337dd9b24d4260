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

    public var instant: WallInstant {
        let days = Int64(Self.days(fromCivil: year, month, day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return WallInstant(nanosecondsSinceEpoch: seconds * nanosecondsPerSecond + Int64(nanosecond))
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
        let y = m <= 2 ? y - 1 : y
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
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
