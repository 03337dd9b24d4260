import HandoffModel

/// What a run's RR intervals say: the share of beats that needed correcting, RMSSD and SDNN for
/// the run and each lap, DFA-α1 over a rolling two-minute window, and the heart rates where α1
/// crosses 0.75 (the aerobic threshold, Rogers et al. 2021) and 0.5.
///
/// A run whose corrected share is over 5 % is reported with that share and no numbers
/// (`trusted` false): HRV from such a series says more about the strap than the runner.
public struct HeartRateVariability: Sendable, Equatable, Codable {
    public var beats: Int
    /// Corrected beats over all beats, 0…1.
    public var artifactShare: Double
    public var trusted: Bool
    public var rmssd: Double?
    public var sdnn: Double?
    /// One value per window: its end (s from the start), α1 and the mean heart rate in it.
    public var alpha1: [Window]
    public var aerobicThreshold: Double?
    public var anaerobicThreshold: Double?
    public var laps: [LapValues]

    public struct Window: Sendable, Equatable, Codable {
        public var time: Double
        public var alpha1: Double
        public var heartRate: Double
    }

    public struct LapValues: Sendable, Equatable, Codable {
        public var index: Int
        public var rmssd: Double?
        public var sdnn: Double?
    }

    /// Over this share of corrected beats the numbers are not shown.
    public static let trustLimit = 0.05
    /// Fewer beats than this (about a minute) give no analysis.
    public static let minimumBeats = 60
    public static let window = 120.0
    public static let windowStep = 5.0
    public static let aerobicAlpha1 = 0.75
    public static let anaerobicAlpha1 = 0.5

    public init(
        beats: Int, artifactShare: Double, trusted: Bool, rmssd: Double?, sdnn: Double?, alpha1: [Window],
        aerobicThreshold: Double?, anaerobicThreshold: Double?, laps: [LapValues]
    ) {
        self.beats = beats
        self.artifactShare = artifactShare
        self.trusted = trusted
        self.rmssd = rmssd
        self.sdnn = sdnn
        self.alpha1 = alpha1
        self.aerobicThreshold = aerobicThreshold
        self.anaerobicThreshold = anaerobicThreshold
        self.laps = laps
    }

    /// The analysis of a run's batches, or nil when it has too few beats.
    public init?(batches: [RRIntervalBatch], laps: [Lap] = []) {
        self.init(series: BeatSeries(batches: batches), laps: laps)
    }

    public init?(series raw: BeatSeries, laps: [Lap] = []) {
        guard raw.count >= Self.minimumBeats else { return nil }
        let fixed = Self.corrected(raw)
        let series = fixed.series
        let share = min(1, Double(fixed.artifacts) / Double(raw.count))
        let trusted = share <= Self.trustLimit
        self.init(
            beats: raw.count, artifactShare: share, trusted: trusted, rmssd: nil, sdnn: nil, alpha1: [],
            aerobicThreshold: nil, anaerobicThreshold: nil, laps: [])
        guard trusted else { return }
        rmssd = Self.rmssd(series)
        sdnn = Self.sdnn(series.intervals)
        self.laps = laps.map { lap in
            let part = series.slice(from: Double(lap.startElapsedSeconds), to: Double(lap.endElapsedSeconds))
            let enough = part.count >= 30
            return LapValues(
                index: lap.index, rmssd: enough ? Self.rmssd(part) : nil, sdnn: enough ? Self.sdnn(part.intervals) : nil
            )
        }
        alpha1 = Self.windows(series, corrected: fixed.indices)
        (aerobicThreshold, anaerobicThreshold) = Self.thresholds(alpha1)
    }

    /// A series after artifact correction: the corrected beats' indices in it, and how many
    /// artifacts were found.
    public struct Corrected: Sendable {
        public var series: BeatSeries
        public var indices: Set<Int>
        public var artifacts: Int
    }

    /// Each segment corrected on its own.
    public static func corrected(_ raw: BeatSeries) -> Corrected {
        var result = Corrected(
            series: BeatSeries(intervals: [], times: [], segmentStarts: []), indices: [], artifacts: 0)
        for segment in raw.segments {
            let fixed = ArtifactCorrection.correct(Array(raw.intervals[segment]))
            let offset = result.series.intervals.count
            result.series.segmentStarts.append(offset)
            // Corrections keep time: the beats are re-timed from the segment's first beat's start.
            var clock = raw.times[segment.lowerBound] - raw.intervals[segment.lowerBound] / 1000
            for value in fixed.intervals {
                clock += value / 1000
                result.series.intervals.append(value)
                result.series.times.append(clock)
            }
            result.indices.formUnion(fixed.correctedIndices.map { $0 + offset })
            result.artifacts += fixed.corrected
        }
        return result
    }

    /// Root mean square of successive differences, inside segments (ms).
    public static func rmssd(_ series: BeatSeries) -> Double? {
        let d = series.successiveDifferences
        guard !d.isEmpty else { return nil }
        return (d.reduce(0) { $0 + $1 * $1 } / Double(d.count)).squareRoot()
    }

    /// Standard deviation of the intervals, with n − 1 (ms).
    public static func sdnn(_ intervals: [Double]) -> Double? {
        guard intervals.count > 1 else { return nil }
        let mean = intervals.reduce(0, +) / Double(intervals.count)
        let squares = intervals.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        return (squares / Double(intervals.count - 1)).squareRoot()
    }

    /// α1 for each two-minute window ending every 5 s (`windowRanges`).
    static func windows(_ series: BeatSeries, corrected: Set<Int>) -> [Window] {
        windowRanges(series, corrected: corrected).compactMap { end, range in
            let beats = Array(series.intervals[range])
            guard let alpha = DFA.alpha1(beats) else { return nil }
            let seconds = beats.reduce(0, +) / 1000
            return Window(time: end, alpha1: alpha, heartRate: 60 * Double(beats.count) / seconds)
        }
    }

    /// The two-minute windows ending every 5 s, as index ranges into the corrected series: a
    /// window that lost over a tenth of its time to gaps, or whose corrected share is over the
    /// limit, is left out.
    public static func windowRanges(_ series: BeatSeries, corrected: Set<Int>) -> [(end: Double, range: Range<Int>)] {
        guard let first = series.times.first, let last = series.times.last else { return [] }
        var result: [(end: Double, range: Range<Int>)] = []
        var end = first + Self.window
        var lower = 0
        var upper = 0
        while end <= last + 1e-9 {
            while lower < series.count && series.times[lower] <= end - Self.window { lower += 1 }
            while upper < series.count && series.times[upper] <= end { upper += 1 }
            let range = lower..<upper
            let covered = series.intervals[range].reduce(0, +) / 1000
            let fixed = range.filter { corrected.contains($0) }.count
            if covered >= 0.9 * Self.window && range.count >= DFA.minimumBeats
                && Double(fixed) / Double(range.count) <= Self.trustLimit
            {
                result.append((end, range))
            }
            end += Self.windowStep
        }
        return result
    }

    /// The heart rates at α1 = 0.75 and 0.5 from a straight line fitted to (heart rate, α1) over
    /// the windows, as Rogers et al. fit theirs over a ramp; only where the line falls with heart
    /// rate, the run spans at least 10 bpm over 12 windows, and the crossing lies inside the heart
    /// rates the run reached (a free run is no ramp test: the line is not extended past them).
    static func thresholds(_ windows: [Window]) -> (Double?, Double?) {
        guard windows.count >= 12 else { return (nil, nil) }
        let hr = windows.map(\.heartRate)
        let a1 = windows.map(\.alpha1)
        guard let low = hr.min(), let high = hr.max(), high - low >= 10 else { return (nil, nil) }
        let b = DFA.slope(hr, a1)
        guard b < 0 else { return (nil, nil) }
        let a = a1.reduce(0, +) / Double(a1.count) - b * hr.reduce(0, +) / Double(hr.count)
        func crossing(_ level: Double) -> Double? {
            let rate = (level - a) / b
            return (low...high).contains(rate) ? rate : nil
        }
        return (crossing(Self.aerobicAlpha1), crossing(Self.anaerobicAlpha1))
    }
}
