import HandoffModel

/// Per-kilometre splits from consecutive points, interpolating the moment each kilometre was
/// crossed between the two points around it. With another length (a mile, for `handoff show
/// --units mi`), a split's `kilometer` is its number in those lengths.
public struct SplitTracker: Hashable, Sendable {
    /// The length of a split, in metres.
    public let lengthMeters: Double
    private var splits: [Split] = []
    private var lastDistance: Double = 0
    private var lastTimer: Double = 0
    private var splitStartTimer: Double = 0
    private var heartRateSum = 0
    private var heartRateCount = 0

    public init(lengthMeters: Double = 1000) {
        precondition(lengthMeters > 0 && lengthMeters.isFinite, "a split must have a length")
        self.lengthMeters = lengthMeters
    }

    /// Splits of `lengthMeters` of a finished run, from its points (in elapsed order) and the
    /// pauses in its events, as the recorder made its kilometre splits while recording; the run's
    /// summary gives the final distance and timer for the last, partial split.
    public static func splits(
        lengthMeters: Double, points: [RecordPoint], events: [SessionEvent], distanceMeters: Double,
        timerSeconds: Double
    ) -> [Split] {
        let timeline = TimerTimeline(events: events)
        var tracker = SplitTracker(lengthMeters: lengthMeters)
        for point in points {
            tracker.add(
                point, timerSeconds: timeline.timerSeconds(atOffset: Int64(point.elapsedSeconds) * nanosecondsPerSecond)
            )
        }
        return tracker.finished(distanceMeters: distanceMeters, timerSeconds: timerSeconds)
    }

    /// Adds a point with the timer time (pauses excluded) at its moment.
    public mutating func add(_ point: RecordPoint, timerSeconds: Double) {
        let distance = point.distanceMeters
        if let hr = point.heartRateBPM {
            heartRateSum += hr
            heartRateCount += 1
        }
        while distance >= Double(splits.count + 1) * lengthMeters {
            let boundary = Double(splits.count + 1) * lengthMeters
            let fraction = distance > lastDistance ? (boundary - lastDistance) / (distance - lastDistance) : 1
            let crossing = lastTimer + fraction * (timerSeconds - lastTimer)
            splits.append(
                Split(
                    kilometer: splits.count + 1, distanceMeters: lengthMeters, seconds: crossing - splitStartTimer,
                    averageHeartRate: heartRateCount > 0 ? Double(heartRateSum) / Double(heartRateCount) : nil))
            splitStartTimer = crossing
            heartRateSum = 0
            heartRateCount = 0
            lastDistance = boundary
            lastTimer = crossing
        }
        lastDistance = distance
        lastTimer = timerSeconds
    }

    /// The splits, with a final partial one when at least 10 m of one was run.
    public func finished(distanceMeters: Double, timerSeconds: Double) -> [Split] {
        var result = splits
        let partial = distanceMeters - Double(splits.count) * lengthMeters
        if partial >= 10 {
            result.append(
                Split(
                    kilometer: splits.count + 1, distanceMeters: partial,
                    seconds: max(0, timerSeconds - splitStartTimer),
                    averageHeartRate: heartRateCount > 0 ? Double(heartRateSum) / Double(heartRateCount) : nil))
        }
        return result
    }
}

/// The timer (recording time without pauses) as a function of elapsed time, built from a
/// session's start, pause and resume events.
public struct TimerTimeline: Hashable, Sendable {
    /// Pauses as [start, end) offsets in nanoseconds since the session start; the last may be open.
    private var pauses: [(start: Int64, end: Int64?)] = []

    public init() {}

    public init(events: [SessionEvent]) {
        for event in events {
            if event.kind == .pause { pause(atOffset: event.offsetNanoseconds) }
            if event.kind == .resume { resume(atOffset: event.offsetNanoseconds) }
        }
    }

    public mutating func pause(atOffset offset: Int64) {
        if let last = pauses.last, last.end == nil { return }
        pauses.append((offset, nil))
    }

    public mutating func resume(atOffset offset: Int64) {
        guard let last = pauses.last, last.end == nil else { return }
        pauses[pauses.count - 1].end = max(offset, last.start)
    }

    /// Timer seconds at `offset` nanoseconds after the start.
    public func timerSeconds(atOffset offset: Int64) -> Double {
        var paused: Int64 = 0
        for pause in pauses where pause.start < offset {
            paused += min(pause.end ?? offset, offset) - pause.start
        }
        return Double(offset - paused) / 1e9
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.pauses.count == b.pauses.count
            && zip(a.pauses, b.pauses).allSatisfy { $0.start == $1.start && $0.end == $1.end }
    }

    public func hash(into hasher: inout Hasher) {
        for pause in pauses {
            hasher.combine(pause.start)
            hasher.combine(pause.end)
        }
    }
}
