import HandoffModel

/// A run's heartbeats as the strap reported them: each beat-to-beat (RR) interval in
/// milliseconds with the moment its beat ended, in seconds from the run's start.
///
/// A strap sends its intervals in batches, each stamped when it arrived. A batch whose beats
/// cannot have followed the previous batch's without a gap (the strap dropped out, a packet was
/// lost) starts a new **segment**: successive differences are taken only inside a segment, as
/// neurokit2 does with `RRI_Time` when intervals are missing, and windows that lose more than a
/// tenth of their time to a gap are not analysed.
public struct BeatSeries: Sendable, Equatable {
    /// Milliseconds.
    public var intervals: [Double]
    /// Seconds from the run's start to the end of each interval.
    public var times: [Double]
    /// Where each segment starts (an index into `intervals`); the first is 0.
    public var segmentStarts: [Int]

    /// A batch further than this behind or ahead of the beats so far starts a new segment.
    public static let gapTolerance = 2.0
    /// Intervals outside this range (ms) are not heartbeats (30–300 bpm) and are left out.
    public static let plausible = 200.0...2000.0

    public init(intervals: [Double], times: [Double], segmentStarts: [Int]) {
        self.intervals = intervals
        self.times = times
        self.segmentStarts = segmentStarts
    }

    /// One unbroken segment: beats one after another from `start` seconds (values that are not
    /// heartbeats, NaN included, are left out).
    public init(intervals all: [Double], start: Double = 0) {
        var clock = start
        let intervals = all.filter { Self.plausible.contains($0) }
        self.intervals = intervals
        self.times = intervals.map {
            clock += $0 / 1000
            return clock
        }
        self.segmentStarts = intervals.isEmpty ? [] : [0]
    }

    /// The strap's batches in arrival order (`offsetNanoseconds` from the run's start).
    ///
    /// A batch whose beats would start more than `gapTolerance` after the last beat ended begins
    /// a new segment (the strap dropped out). One stamped earlier than its beats can have been
    /// (FIT files stamp each `hrv` message with the last record's whole second, so several in a
    /// row share a time) goes on from the last beat: time never runs backwards. A value that is
    /// not a heartbeat still takes its time, and the beats after it begin a new segment.
    public init(batches: [RRIntervalBatch]) {
        self.init(intervals: [], times: [], segmentStarts: [])
        var clock: Double?
        var broken = true
        for batch in batches {
            let values = batch.intervals1024ths.map { Double($0) * 1000 / 1024 }
            guard !values.isEmpty else { continue }
            let arrival = Double(batch.offsetNanoseconds) / 1e9
            let firstStart = arrival - values.reduce(0, +) / 1000
            if let current = clock, firstStart - current <= Self.gapTolerance {
                clock = current
            } else {
                broken = true
                clock = firstStart
            }
            for value in values {
                clock! += value / 1000
                guard Self.plausible.contains(value) else {
                    broken = true
                    continue
                }
                if broken {
                    segmentStarts.append(intervals.count)
                    broken = false
                }
                intervals.append(value)
                times.append(clock!)
            }
        }
    }

    public var count: Int { intervals.count }

    /// The index ranges of the segments.
    public var segments: [Range<Int>] {
        segmentStarts.indices.map { k in
            segmentStarts[k]..<(k + 1 < segmentStarts.count ? segmentStarts[k + 1] : intervals.count)
        }
    }

    /// The beats whose intervals end at `start` or later and before `end` (seconds), with their
    /// segments cut to it; none when `end` is not after `start` (a file's lap may say anything).
    /// Times never decrease, so the ends are found by binary search.
    public func slice(from start: Double, to end: Double) -> BeatSeries {
        var result = BeatSeries(intervals: [], times: [], segmentStarts: [])
        let first = firstIndex { $0 >= start }
        let last = firstIndex { $0 >= end }
        guard first < last else { return result }
        result.intervals = Array(intervals[first..<last])
        result.times = Array(times[first..<last])
        result.segmentStarts = [0] + segmentStarts.filter { $0 > first && $0 < last }.map { $0 - first }
        return result
    }

    /// The first index whose time satisfies `after` (which must hold from some index on).
    func firstIndex(_ after: (Double) -> Bool) -> Int {
        var (low, high) = (0, times.count)
        while low < high {
            let middle = (low + high) / 2
            if after(times[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// The differences of successive intervals inside each segment.
    public var successiveDifferences: [Double] {
        segments.flatMap { segment in
            segment.dropFirst().map { intervals[$0] - intervals[$0 - 1] }
        }
    }
}
