/// Artifact detection and correction of RR intervals after Lipponen & Tarvainen (2019), "A robust
/// algorithm for heart rate variability time series artefact correction using novel beat
/// classification", Journal of Medical Engineering & Technology 43(3): the method Kubios uses.
///
/// Each beat is placed by two normalised features: dRR, the change from the previous interval,
/// and mRR, the difference from the median of the 11 intervals around it (below-median values
/// doubled), each divided by a time-varying threshold, 5.2 quartile deviations of its own
/// magnitude over the 91 beats around it. The paper's decision rules then name ectopic beats
/// (a short interval followed by a long one, or the reverse), long or short beats, missed beats
/// (an interval near twice the median) and extra beats (two intervals that add up to about the
/// median). Corrections keep time: an extra beat is merged into its neighbour, a missed beat's
/// interval is split in two, and an ectopic or long/short beat is moved half-way between its
/// neighbours (the two intervals around it become their mean). Detection runs again on the
/// corrected series until it finds no fewer artifacts, as neurokit2's `iterative` option does.
public enum ArtifactCorrection {
    public enum Kind: String, Sendable, CaseIterable {
        case ectopic, missed, extra, longShort = "long_short"
    }

    public struct Result: Sendable, Equatable {
        /// Milliseconds, the corrected series.
        public var intervals: [Double]
        /// How many corrections of each kind were made, over every pass. A flag on an interval
        /// that the same pass's previous correction already took is not one: a premature beat
        /// (a short interval then a long one) is flagged on both, and corrected once.
        public var counts: [Kind: Int]
        /// Where each corrected beat is in `intervals`: the first interval its correction changed.
        public var correctedIndices: Set<Int>

        /// Beats corrected: the places in the series a correction changed, each counted once.
        public var corrected: Int { correctedIndices.count }
    }

    static let c1 = 0.13
    static let c2 = 0.17
    static let alpha = 5.2
    static let thresholdWindow = 91
    static let medianWindow = 11
    static let maximumPasses = 5

    /// One unbroken run of intervals (ms), which must all be finite (a series with a NaN or an
    /// infinity is given back as it is, with nothing corrected).
    public static func correct(_ intervals: [Double]) -> Result {
        guard intervals.allSatisfy(\.isFinite) else {
            return Result(intervals: intervals, counts: [:], correctedIndices: [])
        }
        var series = intervals
        var counts: [Kind: Int] = [:]
        var touched = Set<Int>()
        var found = detect(series)
        var passes = 0
        while !found.isEmpty && passes < maximumPasses {
            let (next, moved, applied) = apply(found, to: series, touched: touched)
            for kind in applied { counts[kind, default: 0] += 1 }
            series = next
            touched = moved
            passes += 1
            let again = detect(series)
            guard again.count < found.count else { break }
            found = again
        }
        return Result(intervals: series, counts: counts, correctedIndices: touched)
    }

    /// The artifacts of one pass: the index of each artifact's interval and its kind.
    public static func detect(_ rr: [Double]) -> [Int: Kind] {
        let n = rr.count
        guard n >= 4 else { return [:] }
        var drr = [Double](repeating: 0, count: n)
        for i in 1..<n { drr[i] = rr[i] - rr[i - 1] }
        drr[0] = drr[1...].reduce(0, +) / Double(n - 1)
        let th1 = threshold(drr)
        let d = zip(drr, th1).map { $1 == 0 ? Double.nan : $0 / $1 }

        let median = rollingMedian(rr, width: medianWindow)
        let deviation = zip(rr, median).map { $0 - $1 < 0 ? 2 * ($0 - $1) : $0 - $1 }
        let th2 = threshold(deviation)
        let m = zip(deviation, th2).map { $1 == 0 ? Double.nan : $0 / $1 }

        // The second features, with the series mirrored at its ends for the neighbours.
        func at(_ i: Int) -> Double { d[reflect(i, n)] }
        let s12 = (0..<n).map { i in
            d[i] > 0 ? max(at(i - 1), at(i + 1)) : d[i] < 0 ? min(at(i - 1), at(i + 1)) : 0
        }
        let s22 = (0..<n).map { i in d[i] >= 0 ? min(at(i + 1), at(i + 2)) : max(at(i + 1), at(i + 2)) }

        var found: [Int: Kind] = [:]
        var i = 0
        while i < n - 2 {
            guard abs(d[i]) > 1 else {
                i += 1
                continue
            }
            let ectopic = (d[i] > 1 && s12[i] < -c1 * d[i] - c2) || (d[i] < -1 && s12[i] > -c1 * d[i] + c2)
            if ectopic {
                found[i] = .ectopic
                i += 1
                continue
            }
            var candidates = [i]
            if abs(d[i + 1]) < abs(d[i + 2]) { candidates.append(i + 1) }
            for j in candidates {
                i += 1
                let long = d[j] > 1 && s22[j] < -1
                let short = d[j] < -1 && s22[j] > 1
                guard long || short || abs(m[j]) > 3 else { continue }
                if short && abs(rr[j] + rr[j + 1] - median[j]) < th2[j] {
                    found[j] = .extra
                } else if long && abs(rr[j] / 2 - median[j]) < th2[j] {
                    found[j] = .missed
                } else {
                    found[j] = .longShort
                }
            }
        }
        return found
    }

    /// The series with one pass's corrections, where each correction put its beat (earlier
    /// passes' places carried along), and the kinds of the corrections made.
    static func apply(_ found: [Int: Kind], to rr: [Double], touched: Set<Int>) -> ([Double], Set<Int>, [Kind]) {
        var out: [Double] = []
        var moved = Set<Int>()
        var applied: [Kind] = []
        out.reserveCapacity(rr.count + found.count)
        var i = 0
        while i < rr.count {
            let pairable = i + 1 < rr.count
            if touched.contains(i) { moved.insert(out.count) }
            let kind = found[i]
            switch kind {
            case .extra? where pairable:
                moved.insert(out.count)
                out.append(rr[i] + rr[i + 1])
                i += 2
            case .missed?:
                moved.insert(out.count)
                out.append(contentsOf: [rr[i] / 2, rr[i] / 2])
                i += 1
            case .ectopic? where pairable, .longShort? where pairable:
                let mean = (rr[i] + rr[i + 1]) / 2
                moved.insert(out.count)
                out.append(contentsOf: [mean, mean])
                i += 2
            default:
                out.append(rr[i])
                i += 1
                continue
            }
            if let kind { applied.append(kind) }
        }
        return (out, moved, applied)
    }

    /// `alpha` times the quartile deviation of `|x|` over the centred window (cut at the ends).
    /// The window is kept sorted as it slides: a value in, a value out, each by binary search.
    static func threshold(_ x: [Double]) -> [Double] {
        let magnitude = x.map { abs($0) }
        let half = thresholdWindow / 2
        var window: [Double] = []
        window.reserveCapacity(thresholdWindow + 1)
        var result: [Double] = []
        result.reserveCapacity(magnitude.count)
        var low = 0
        var high = 0  // the window is magnitude[low..<high]
        for i in magnitude.indices {
            while high < min(magnitude.count, i + half + 1) {
                window.insert(magnitude[high], at: position(of: magnitude[high], in: window))
                high += 1
            }
            while low < i - half {
                window.remove(at: position(of: magnitude[low], in: window))
                low += 1
            }
            result.append(alpha * (quantile(window, 0.75) - quantile(window, 0.25)) / 2)
        }
        return result
    }

    /// The first index in sorted `values` whose value is not below `value`.
    static func position(of value: Double, in values: [Double]) -> Int {
        var (low, high) = (0, values.count)
        while low < high {
            let middle = (low + high) / 2
            if values[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    static func rollingMedian(_ x: [Double], width: Int) -> [Double] {
        let half = width / 2
        return x.indices.map { i in quantile(x[max(0, i - half)...min(x.count - 1, i + half)].sorted(), 0.5) }
    }

    /// The `q` quantile of sorted values, linearly interpolated (NumPy's and pandas' default).
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let position = q * Double(sorted.count - 1)
        let low = Int(position)
        let high = min(low + 1, sorted.count - 1)
        return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
    }

    /// Mirrors an index at the series' ends without repeating the end (NumPy's "reflect").
    static func reflect(_ i: Int, _ n: Int) -> Int {
        var j = i
        while j < 0 || j >= n { j = j < 0 ? -j : 2 * (n - 1) - j }
        return j
    }
}
