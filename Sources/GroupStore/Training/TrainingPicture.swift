import Foundation
import HandoffAPI
import HandoffModel
import Training

/// One run as the training picture reads it: the run table's own columns, no file.
struct TrainingRun: Sendable {
    var sport: Sport
    var started: WallInstant
    var distanceMM: Int64
    var elapsedMS: Int64
    var averageHeartRate: Int64?
    /// Seconds at each heart rate, when the run has heart rate and they were found.
    var heartSeconds: HeartRateHistogram?
}

/// `/me/training` and `GET /v1/me/training` (issue 34): distance per sport per week, a month's
/// calendar and the training load, all from the run table's columns (one indexed read of the
/// person's runs over the span shown and the 42 × 3 days before it, which the fitness curve
/// needs to settle). Days and weeks are the person's own: local dates in their time zone.
struct TrainingPicture: Sendable {
    static let day = 86_400 * nanosecondsPerSecond
    /// Days read before the load chart's first, so that its fitness has settled (three time constants).
    static let warmUp = 126

    var weeks: [(monday: Int64, meters: [Sport: Double])]
    /// Local day numbers (days since 1970-01-01 on the person's calendar), oldest first.
    var days: [(day: Int64, load: Double, point: TrainingLoad.Point)]
    var heartRates: (resting: Int, maximum: Int, source: String)
    /// Each local day's distance, for the calendar.
    var distanceByDay: [Int64: Int64]
    /// Seconds in heart-rate zones 1–5 per week (the same weeks as `weeks`), by the maximum of
    /// `heartRates`.
    var zoneWeeks: [(monday: Int64, seconds: [Double])]

    /// The local day number of an instant in `zone`.
    static func localDay(_ instant: WallInstant, zone: String) -> Int64 {
        let local = PageFormat.local(instant, zone: zone).instant.nanosecondsSinceEpoch
        return local >= 0 ? local / day : (local - day + 1) / day
    }

    /// The Monday of a local day number (1970-01-01 was a Thursday).
    static func monday(_ day: Int64) -> Int64 { day - ((day + 3) % 7 + 7) % 7 }

    static func date(_ day: Int64) -> String {
        String(iso(WallInstant(nanosecondsSinceEpoch: day * Self.day)).prefix(10))
    }

    init(
        runs: [TrainingRun], now: WallInstant, zone: String, weekCount: Int, dayCount: Int,
        settings: (resting: Int?, maximum: Int?), female: Bool
    ) {
        let today = Self.localDay(now, zone: zone)
        // The heart rates: the settings', or estimated from the runs (the highest average of a run
        // is about nine tenths of the maximum; the resting rate cannot be seen in runs: 60).
        let highest = runs.compactMap(\.averageHeartRate).max()
        let maximum = settings.maximum ?? highest.map { min(230, Int((Double($0) / 0.9).rounded())) } ?? 190
        let resting = settings.resting ?? 60
        heartRates = (resting, maximum, settings.maximum != nil ? "settings" : "estimated")

        var loads: [Int64: Double] = [:]
        var byWeek: [Int64: [Sport: Double]] = [:]
        var byDay: [Int64: Int64] = [:]
        var zonesByWeek: [Int64: [Double]] = [:]
        for run in runs {
            let day = Self.localDay(run.started, zone: zone)
            let minutes = Double(run.elapsedMS) / 60_000
            loads[day, default: 0] +=
                run.averageHeartRate.map {
                    TrainingLoad.trimp(
                        minutes: minutes, averageHeartRate: Double($0), resting: Double(resting),
                        maximum: Double(maximum), female: female)
                } ?? TrainingLoad.estimatedTRIMP(minutes: minutes, walking: run.sport == .walk, female: female)
            byWeek[Self.monday(day), default: [:]][run.sport, default: 0] += Double(run.distanceMM) / 1000
            byDay[day, default: 0] += run.distanceMM
            if let heart = run.heartSeconds {
                let zones = heart.zoneSeconds(maximum: maximum)
                let monday = Self.monday(day)
                zonesByWeek[monday] = zip(zonesByWeek[monday] ?? [0, 0, 0, 0, 0], zones).map { $0 + $1 }
            }
        }
        let thisMonday = Self.monday(today)
        weeks = (0..<weekCount).reversed().map { back in
            let monday = thisMonday - Int64(back) * 7
            return (monday, byWeek[monday] ?? [:])
        }
        let first = today - Int64(dayCount - 1)
        let span = Array((first - Int64(Self.warmUp))...today)
        let points = TrainingLoad.curves(span.map { loads[$0] ?? 0 })
        days = zip(span, points).filter { $0.0 >= first }.map { ($0.0, loads[$0.0] ?? 0, $0.1) }
        distanceByDay = byDay
        zoneWeeks = weeks.map { ($0.monday, zonesByWeek[$0.monday] ?? [0, 0, 0, 0, 0]) }
    }

    /// The earliest start a picture of `weekCount` weeks and `dayCount` days reads (a day early,
    /// for any time zone).
    static func since(now: WallInstant, weekCount: Int, dayCount: Int) -> WallInstant {
        let back = max(weekCount * 7 + 7, dayCount + warmUp) + 1
        return now.advanced(byNanoseconds: -Int64(back) * day)
    }

    var view: TrainingView {
        TrainingView(
            weeks: weeks.map { week in
                TrainingView.Week(
                    weekStarting: Self.date(week.monday),
                    sports: Dictionary(uniqueKeysWithValues: week.meters.map { ($0.key.rawValue, $0.value) }))
            },
            days: days.map {
                TrainingView.Day(
                    date: Self.date($0.day), load: ($0.load * 10).rounded() / 10,
                    fitness: ($0.point.fitness * 10).rounded() / 10, fatigue: ($0.point.fatigue * 10).rounded() / 10,
                    form: ($0.point.form * 10).rounded() / 10)
            }, restingHeartRate: heartRates.resting, maximumHeartRate: heartRates.maximum,
            heartRateSource: heartRates.source,
            zoneWeeks: zoneWeeks.map {
                TrainingView.ZoneWeek(weekStarting: Self.date($0.monday), seconds: $0.seconds.map { $0.rounded() })
            })
    }
}

extension StoreRepository {
    /// The account's runs that started at or after `since`, as the training picture reads them.
    func trainingRuns(account: Int64, since: WallInstant) async throws -> [TrainingRun] {
        try await read { db in
            try await db.query(
                """
                SELECT sport, started_ns, distance_mm, elapsed_ms, heart_rate_avg, heart_seconds FROM run
                WHERE account_id = ? AND started_ns >= ?
                """, account, since.nanosecondsSinceEpoch
            ).map { row in
                TrainingRun(
                    sport: Sport(rawValue: try row.text("sport")) ?? .other,
                    started: WallInstant(nanosecondsSinceEpoch: try row.int("started_ns")),
                    distanceMM: try row.int("distance_mm"), elapsedMS: try row.int("elapsed_ms"),
                    averageHeartRate: try row.intOrNil("heart_rate_avg"),
                    heartSeconds: try row.textOrNil("heart_seconds").map(HeartRateHistogram.init(encoded:)))
            }
        }
    }
}
