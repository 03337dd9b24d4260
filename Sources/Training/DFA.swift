#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Detrended fluctuation analysis (Peng et al. 1995) of an RR series: the short-term scaling
/// exponent α1 over windows of 4 to 16 beats, as Kubios and Rogers et al. (2021) use it for the
/// aerobic threshold (neurokit2's `fractal_dfa` with `scale=range(4, 17)` computes the same).
///
/// The series less its mean is summed into a profile; for each window size n the profile is cut
/// into windows of n beats, each starting n/2 beats after the last (half overlapping); a straight
/// line is fitted to each window by least squares; F(n) is the root of the mean squared residual
/// over every window. α1 is the slope of log F(n) against log n.
public enum DFA {
    public static let scales = 4...16
    /// Fewer beats than this give no α1: four windows of the largest size.
    public static let minimumBeats = 64

    public static func alpha1(_ intervals: [Double]) -> Double? {
        guard intervals.count >= minimumBeats else { return nil }
        let mean = intervals.reduce(0, +) / Double(intervals.count)
        var profile = [Double]()
        profile.reserveCapacity(intervals.count)
        var sum = 0.0
        for value in intervals {
            sum += value - mean
            profile.append(sum)
        }
        var xs: [Double] = []
        var ys: [Double] = []
        for n in scales {
            guard let f = fluctuation(profile, window: n), f > 0 else { continue }
            xs.append(log(Double(n)))
            ys.append(log(f))
        }
        guard xs.count >= 3 else { return nil }
        return slope(xs, ys)
    }

    /// F(n): the root mean square of the residuals of a line fitted to each window.
    static func fluctuation(_ profile: [Double], window n: Int) -> Double? {
        let step = max(1, n / 2)
        // x = 0…n-1 is fixed: its mean and spread are known.
        let xMean = Double(n - 1) / 2
        var sxx = 0.0
        for k in 0..<n { sxx += (Double(k) - xMean) * (Double(k) - xMean) }
        var total = 0.0
        var windows = 0
        var start = 0
        while start + n <= profile.count {
            var yMean = 0.0
            for k in 0..<n { yMean += profile[start + k] }
            yMean /= Double(n)
            var sxy = 0.0
            for k in 0..<n { sxy += (Double(k) - xMean) * (profile[start + k] - yMean) }
            let b = sxy / sxx
            var squares = 0.0
            for k in 0..<n {
                let residual = profile[start + k] - yMean - b * (Double(k) - xMean)
                squares += residual * residual
            }
            total += squares / Double(n)
            windows += 1
            start += step
        }
        guard windows > 0 else { return nil }
        return (total / Double(windows)).squareRoot()
    }

    static func slope(_ x: [Double], _ y: [Double]) -> Double {
        let mx = x.reduce(0, +) / Double(x.count)
        let my = y.reduce(0, +) / Double(y.count)
        var sxy = 0.0
        var sxx = 0.0
        for (a, b) in zip(x, y) {
            sxy += (a - mx) * (b - my)
            sxx += (a - mx) * (a - mx)
        }
        return sxy / sxx
    }
}
