import HandoffModel
import SensorCodecs

/// Writes the NMEA sentences a u-blox M8 receiver (NMEA 4.10, GNSS talker `GN`) sends.
enum NMEAWriter {
    struct Fix {
        var latitude: Double
        var longitude: Double
        var altitude: Double
        var speedMetersPerSecond: Double
        var courseDegrees: Double
        var hdop: Double
        var satellites: Int
    }

    static func rmc(at wall: WallInstant, fix: Fix?) -> String {
        let c = CivilTime(wall)
        let time = "\(pad(c.hour))\(pad(c.minute))\(pad(c.second)).\(pad(c.nanosecond / 10_000_000))"
        let date = "\(pad(c.day))\(pad(c.month))\(pad(c.year % 100))"
        guard let fix else { return NMEASentence.frame("GNRMC,\(time),V,,,,,,,\(date),,,N,V") }
        let knots = fixed(fix.speedMetersPerSecond * 3600 / 1852, 3)
        return NMEASentence.frame(
            "GNRMC,\(time),A,\(latitude(fix.latitude)),\(longitude(fix.longitude)),\(knots),"
                + "\(fixed(fix.courseDegrees, 2)),\(date),,,A,V")
    }

    static func gga(at wall: WallInstant, fix: Fix?) -> String {
        let c = CivilTime(wall)
        let time = "\(pad(c.hour))\(pad(c.minute))\(pad(c.second)).\(pad(c.nanosecond / 10_000_000))"
        guard let fix else { return NMEASentence.frame("GNGGA,\(time),,,,,0,00,99.99,,,,,,") }
        return NMEASentence.frame(
            "GNGGA,\(time),\(latitude(fix.latitude)),\(longitude(fix.longitude)),1,\(pad(fix.satellites)),"
                + "\(fixed(fix.hdop, 2)),\(fixed(fix.altitude, 1)),M,47.3,M,,")
    }

    /// `ddmm.mmmmm,N`.
    static func latitude(_ degrees: Double) -> String {
        angle(abs(degrees), degreeDigits: 2) + (degrees < 0 ? ",S" : ",N")
    }

    /// `dddmm.mmmmm,E`.
    static func longitude(_ degrees: Double) -> String {
        angle(abs(degrees), degreeDigits: 3) + (degrees < 0 ? ",W" : ",E")
    }

    private static func angle(_ degrees: Double, degreeDigits: Int) -> String {
        let total = Int64((degrees * 60 * 100_000).rounded())  // in 1e-5 minutes
        let whole = total / 6_000_000
        let minutes = total % 6_000_000
        return pad(Int(whole), degreeDigits) + pad(Int(minutes / 100_000)) + "." + pad(Int(minutes % 100_000), 5)
    }

    static func pad(_ value: Int, _ width: Int = 2) -> String {
        let s = String(value)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// `value` with exactly `decimals` digits after the point.
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((abs(value) * Double(scale)).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard decimals > 0 else { return sign + String(scaled) }
        return sign + String(scaled / scale) + "." + pad(Int(scaled % scale), decimals)
    }
}
