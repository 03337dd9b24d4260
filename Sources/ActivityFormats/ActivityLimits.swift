import HandoffModel

/// What a reader accepts from a file: anything past these is refused with a sentence, never
/// converted, so that no file can trap a reader or make it hold more memory than a real
/// activity needs (the store reads uploads from anyone signed in).
///
/// The numbers are generous for a run or a ride and far below what would hurt a server:
/// 150,000 points are 41 hours at one point a second (a 100-mile race at walking pace), and
/// take about 30 MB while a file is read.
public struct ActivityLimits: Hashable, Sendable {
    /// The most points (seconds with data) one activity may hold.
    public var maximumPoints = 150_000
    /// The longest an activity may last, start to finish, in seconds (31 days).
    public var maximumDurationSeconds: Double = 31 * 86_400
    /// The longest distance an activity may cover, in metres (10,000 km).
    public var maximumDistanceMeters: Double = 10_000_000
    /// The most laps (a track session of 400 m repeats over a marathon has 105).
    public var maximumLaps = 1_000
    /// The most FIT sessions in one file (a triathlon has five).
    public var maximumSessions = 100
    /// The most timer events (start, stop, pause, resume) in one file.
    public var maximumTimerEvents = 100_000
    /// The most RR intervals (beat to beat times): 41 hours at 200 beats a minute is 492,000.
    public var maximumRRIntervals = 500_000
    /// The most FIT data messages that carry no field at all. A device writes none; a file of
    /// them is only a way to make a reader work.
    public var maximumEmptyMessages = 1_000

    /// The limits every reader uses unless told otherwise.
    public static let standard = ActivityLimits()

    public init() {}

    // What a body can do, whatever the file: not settings.

    /// The fastest heart rate a file may state, in beats a minute.
    public static let maximumHeartRate = 300.0
    /// The highest cadence a file may state, in steps (or revolutions) a minute: FIT's largest
    /// (255 strides and 127/128 a minute, doubled).
    public static let maximumCadence = 512.0
    /// The fastest speed a file may state, in metres a second (a fast car; anything faster is noise).
    public static let maximumSpeed = 1_000.0

    /// `value` as an `Int` when it is a finite number in `range`; otherwise the typed error
    /// naming the field, so that the person who sent the file learns what is wrong.
    static func integer(
        _ value: Double, _ field: String, in range: ClosedRange<Double>, line: Int? = nil
    ) throws(ActivityFileError) -> Int {
        guard value.isFinite, range.contains(value), let whole = Int(exactly: value.rounded()) else {
            throw .value(line: line, problem: "\(field) is \(value), outside \(describe(range))")
        }
        return whole
    }

    /// `value` when it is a finite number in `range`; otherwise the typed error naming the field.
    static func number(
        _ value: Double, _ field: String, in range: ClosedRange<Double>, line: Int? = nil
    ) throws(ActivityFileError) -> Double {
        guard value.isFinite, range.contains(value) else {
            throw .value(line: line, problem: "\(field) is \(value), outside \(describe(range))")
        }
        return value
    }

    /// A time in the span readers accept (1980–2100), or the typed error naming the field.
    static func instant(
        _ instant: WallInstant, _ field: String, line: Int? = nil
    ) throws(ActivityFileError)
        -> WallInstant
    {
        guard CivilTime.supportedInstants.contains(instant) else {
            throw .value(
                line: line,
                problem: "\(field) is \(CivilTime(instant).iso8601()), outside the years 1980–2100 that Handoff reads")
        }
        return instant
    }

    /// The error for a file with more points than `maximumPoints`.
    var tooManyPoints: ActivityFileError {
        .tooLarge(
            "the file holds more than \(maximumPoints) track points (\(Self.describeDuration(Double(maximumPoints))) at one a second); Handoff reads activities up to that size"
        )
    }

    /// The error for an activity that lasts longer than `maximumDurationSeconds`.
    func tooLong(_ seconds: Double) -> ActivityFileError {
        .tooLarge(
            "the activity would last \(Self.describeDuration(seconds)), longer than the \(Self.describeDuration(maximumDurationSeconds)) Handoff reads: its times are wrong or it is not one activity"
        )
    }

    static func describeDuration(_ seconds: Double) -> String {
        // A summary's 1e300 s reaches here on its way to an error: no Int conversion past 1e15.
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "longer than anyone lives" }
        if seconds >= 2 * 365.25 * 86_400 { return "\(Int(seconds / (365.25 * 86_400))) years" }
        if seconds >= 2 * 86_400 { return "\(Int(seconds / 86_400)) days" }
        if seconds >= 2 * 3_600 { return "\(Int(seconds / 3_600)) hours" }
        return "\(Int(seconds)) seconds"
    }

    private static func describe(_ range: ClosedRange<Double>) -> String {
        func text(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
        return "\(text(range.lowerBound))–\(text(range.upperBound))"
    }
}

extension Activity {
    /// Checks what every reader gives back against `ActivityLimits`: duration, distance, point
    /// and lap counts, and each statistic. A reader calls this last, so that values it did not
    /// check one by one still cannot reach a store total or a conversion that would trap.
    func checked(against limits: ActivityLimits) throws(ActivityFileError) -> Activity {
        _ = try ActivityLimits.instant(start, "the start time")
        guard points.count <= limits.maximumPoints else { throw limits.tooManyPoints }
        guard laps.count <= limits.maximumLaps else {
            throw .tooLarge("the file holds \(laps.count) laps; Handoff reads up to \(limits.maximumLaps)")
        }
        let duration = 0...limits.maximumDurationSeconds
        guard summary.elapsedSeconds.isFinite, duration.contains(summary.elapsedSeconds) else {
            throw limits.tooLong(summary.elapsedSeconds)
        }
        if let last = points.last, Double(last.elapsedSeconds) > limits.maximumDurationSeconds {
            throw limits.tooLong(Double(last.elapsedSeconds))
        }
        try summary.statistics.check("the activity", limits)
        for lap in laps {
            try lap.statistics.check("lap \(lap.index)", limits)
            let bounds = -Int(limits.maximumDurationSeconds)...Int(limits.maximumDurationSeconds)
            guard bounds.contains(lap.startElapsedSeconds), bounds.contains(lap.endElapsedSeconds) else {
                throw limits.tooLong(Double(max(abs(lap.startElapsedSeconds), abs(lap.endElapsedSeconds))))
            }
        }
        let beats = rrIntervals.reduce(0) { $0 + $1.intervals1024ths.count }
        guard beats <= limits.maximumRRIntervals else {
            throw .tooLarge("the file holds more than \(limits.maximumRRIntervals) beat-to-beat (RR) intervals")
        }
        return self
    }
}

extension RunStatistics {
    /// Every total in range, or the error naming `owner` and the field.
    func check(_ owner: String, _ limits: ActivityLimits) throws(ActivityFileError) {
        _ = try ActivityLimits.number(
            distanceMeters, "\(owner)'s distance (m)", in: 0...limits.maximumDistanceMeters)
        _ = try ActivityLimits.number(
            timerSeconds, "\(owner)'s timer time (s)", in: 0...limits.maximumDurationSeconds)
        _ = try ActivityLimits.number(
            Double(movingSeconds), "\(owner)'s moving time (s)", in: 0...limits.maximumDurationSeconds)
        if let hr = averageHeartRate {
            _ = try ActivityLimits.number(hr, "\(owner)'s average heart rate", in: 0...ActivityLimits.maximumHeartRate)
        }
        if let hr = maximumHeartRate {
            _ = try ActivityLimits.number(
                Double(hr), "\(owner)'s maximum heart rate", in: 0...ActivityLimits.maximumHeartRate)
        }
        if let cadence = averageCadence {
            _ = try ActivityLimits.number(cadence, "\(owner)'s average cadence", in: 0...ActivityLimits.maximumCadence)
        }
        if let speed = maximumSpeed {
            _ = try ActivityLimits.number(speed, "\(owner)'s maximum speed (m/s)", in: 0...ActivityLimits.maximumSpeed)
        }
    }
}
