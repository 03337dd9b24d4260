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

    /// `5.11 km`, or `850 m` under a kilometre.
    public static func distance(_ meters: Double) -> String {
        guard meters.isFinite else { return "–" }
        if abs(meters) < 1000 { return "\(Int(meters.rounded())) m" }
        return fixed(meters / 1000, 2) + " km"
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

    /// `1.00 km`: always kilometres, for columns of laps.
    public static func kilometers(_ meters: Double) -> String {
        fixed(meters / 1000, 2) + " km"
    }

    /// `146`: a value rounded to a whole number, or `–` when it is not one an Int can hold
    /// (a corrupt import must not trap the CLI that shows it).
    public static func whole(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 9e18 else { return "–" }
        return String(Int(value.rounded()))
    }

    /// `5:31 /km`.
    public static func pace(_ secondsPerKilometer: Double?) -> String {
        guard let p = secondsPerKilometer, p.isFinite, p > 0, p < 3600 else { return "–:–– /km" }
        let total = Int(p.rounded())
        return "\(total / 60):\(pad(total % 60)) /km"
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
