/// How distances and paces are written for people: kilometres or miles (`[display] units` in
/// handoffd's configuration, `--units` on the CLI). Reports and `--json` stay in metres and
/// seconds per kilometre whatever this is.
public enum Units: String, Hashable, Sendable, CaseIterable, Codable {
    case kilometers = "km"
    case miles = "mi"

    /// The international mile (1959): exactly 1609.344 m.
    public static let metersPerMile = 1609.344

    /// Metres in one unit: 1000, or 1609.344.
    public var meters: Double { self == .miles ? Self.metersPerMile : 1000 }

    /// `km` or `mi`, as printed after a distance and after the slash of a pace.
    public var symbol: String { rawValue }

    /// `meters` in this unit.
    public func distance(_ meters: Double) -> Double { meters / self.meters }

    /// A pace in seconds per kilometre as seconds per this unit.
    public func pace(_ secondsPerKilometer: Double) -> Double { secondsPerKilometer * meters / 1000 }
}

/// How the pack writes numbers for people: the CLI and the daemon's messages agree.
public enum Format {
    /// `28:13`, or `1:02:03` from an hour on.
    public static func duration(_ seconds: Double) -> String {
        // Past a thousand years a value is corrupt, not a time; converting it to Int would trap.
        guard seconds.isFinite, abs(seconds) < 3.2e10 else { return "–" }
        let total = Int(seconds.rounded())
        let h = total / 3600
        let m = total % 3600 / 60
        let s = total % 60
        return h > 0 ? "\(h):\(pad(m)):\(pad(s))" : "\(m):\(pad(s))"
    }

    /// `5.11 km`, or `850 m` under a kilometre; in miles always miles with two decimals
    /// (`3.17 mi`, `0.05 mi`), as runners' watches show them.
    public static func distance(_ meters: Double, _ units: Units) -> String {
        guard meters.isFinite else { return "–" }
        if units == .kilometers, abs(meters) < 1000 { return "\(Int(meters.rounded())) m" }
        return distanceColumn(meters, units)
    }

    /// `1 run`, `3 runs`: a count as a whole number with its noun.
    public static func count(_ n: Int, _ noun: String, plural: String? = nil) -> String {
        "\(n) \(n == 1 ? noun : plural ?? noun + "s")"
    }

    /// `812 bytes`, `41.3 kB`, `2.4 MB`.
    public static func bytes(_ count: Int) -> String {
        if count < 1000 { return "\(count) bytes" }
        if count < 1_000_000 { return fixed(Double(count) / 1000, 1) + " kB" }
        return fixed(Double(count) / 1_000_000, 1) + " MB"
    }

    /// `1.00 km`, `0.62 mi`: always the unit with two decimals, for columns of laps.
    public static func distanceColumn(_ meters: Double, _ units: Units) -> String {
        fixed(units.distance(meters), 2) + " " + units.symbol
    }

    /// `146`: a value rounded to a whole number, or `–` when it is not one an Int can hold
    /// (a corrupt import must not trap the CLI that shows it).
    public static func whole(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 9e18 else { return "–" }
        return String(Int(value.rounded()))
    }

    /// `5:31 /km`, or `8:53 /mi`: the pace, given in seconds per kilometre as every report
    /// carries it, in `units` (rounded to the second after converting). Slower than an hour per
    /// kilometre is standing, not a pace: `–:––`.
    public static func pace(_ secondsPerKilometer: Double?, _ units: Units) -> String {
        guard let p = secondsPerKilometer, p.isFinite, p > 0, p < 3600 else { return "–:–– /\(units.symbol)" }
        let total = Int(units.pace(p).rounded())
        return "\(total / 60):\(pad(total % 60)) /\(units.symbol)"
    }

    /// `value` with `decimals` digits after the point.
    public static func fixed(_ value: Double, _ decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        // A value too large for 64-bit fixed point (a corrupt import, 1e300) is written as Swift
        // writes a Double instead of trapping.
        guard value.isFinite, abs(value) * scale < 9e18 else { return value.isFinite ? String(value) : "–" }
        let scaled = Int64((abs(value) * scale).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        let whole = scaled / Int64(scale)
        guard decimals > 0 else { return sign + String(whole) }
        let fraction = String(scaled % Int64(scale))
        return sign + String(whole) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    /// Rounds for JSON output, so that reports carry no false precision.
    public static func rounded(_ value: Double, _ decimals: Int) -> Double {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return (value * scale).rounded() / scale
    }

    static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
