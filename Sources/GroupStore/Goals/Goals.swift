import Foundation
import HandoffAPI
import HandoffModel

/// A person's own goals (issue 34): per day or per week of their calendar, of distance, running
/// time, runs or steps, in one sport or all. Progress is summed from the run table's columns
/// whenever it is asked for (never kept), so a deleted run or a changed sport is simply not
/// counted any more.
struct PersonalGoal: Sendable, Equatable {
    enum Period: String, Sendable, CaseIterable {
        case day, week

        /// Days in one period.
        var days: Int64 { self == .day ? 1 : 7 }
    }

    enum Measure: String, Sendable, CaseIterable {
        case distance, time, runs, steps

        /// How a target is kept: millimetres, seconds, runs, steps; from the API's metres, seconds and counts.
        var scale: Double { self == .distance ? 1000 : 1 }

        /// The largest target a person may set a day (a week allows seven times as much).
        var dayLimit: Double {
            switch self {
            case .distance: 1_000_000  // metres
            case .time: 86_400
            case .runs: 50
            case .steps: 200_000
            }
        }
    }

    var id: Int64 = 0
    var period: Period
    var measure: Measure
    /// Nil: all sports.
    var sport: Sport?
    /// In `measure.scale` units: millimetres for a distance.
    var target: Int64

    /// The goal a `GoalSet` asks for, or the field that is wrong and why.
    static func parse(_ set: GoalSet) throws(StoreError) -> PersonalGoal {
        guard let period = Period(rawValue: set.period) else {
            throw StoreError(.unprocessableContent, "invalid_period", "period is \"day\" or \"week\"")
        }
        guard let measure = Measure(rawValue: set.measure) else {
            throw StoreError(
                .unprocessableContent, "invalid_measure", "measure is \"distance\", \"time\", \"runs\" or \"steps\"")
        }
        let sport = try set.sport.map { name throws(StoreError) in try Sport.named(name) }
        let limit = measure.dayLimit * Double(period.days)
        guard set.target.isFinite, set.target > 0, set.target <= limit else {
            throw StoreError(
                .unprocessableContent, "invalid_target",
                "target is more than 0 and at most \(Int(limit)) for a \(period.rawValue)'s \(measure.rawValue)")
        }
        let target = Int64((set.target * measure.scale).rounded())
        guard target >= 1 else {
            throw StoreError(.unprocessableContent, "invalid_target", "target is too small to count")
        }
        return PersonalGoal(period: period, measure: measure, sport: sport, target: target)
    }

    /// What one run adds to the goal, in its units; nothing for another sport.
    func amount(_ run: GoalRun) -> Int64 {
        if let sport, sport != run.sport { return 0 }
        switch measure {
        case .distance: return run.distanceMM
        case .time: return run.timerMS / 1000
        case .runs: return 1
        case .steps: return run.steps ?? 0
        }
    }
}

/// One run as goals read it: the run table's own columns.
struct GoalRun: Sendable, Equatable {
    var started: WallInstant
    var sport: Sport
    var distanceMM: Int64
    var timerMS: Int64
    var steps: Int64?
}

/// A goal with what is done in its current period and in the 12 before.
struct GoalProgress: Sendable, Equatable {
    static let history = 12

    var goal: PersonalGoal
    /// The current period's first local day, and what is done in it.
    var start: Int64
    var done: Int64
    /// Earlier periods, newest first: their first day and what was done.
    var earlier: [(start: Int64, done: Int64)]

    static func == (a: Self, b: Self) -> Bool {
        a.goal == b.goal && a.start == b.start && a.done == b.done
            && a.earlier.map(\.start) == b.earlier.map(\.start) && a.earlier.map(\.done) == b.earlier.map(\.done)
    }

    /// The first local day a goal of `period` needs runs from, for `today`.
    static func firstDay(_ period: PersonalGoal.Period, today: Int64) -> Int64 {
        periodStart(period, today) - Int64(history) * period.days
    }

    static func periodStart(_ period: PersonalGoal.Period, _ day: Int64) -> Int64 {
        period == .day ? day : TrainingPicture.monday(day)
    }

    /// `outside`: the steps outside runs per local day, for a steps goal of all sports.
    init(_ goal: PersonalGoal, runs: [GoalRun], outside: [Int64: Int] = [:], today: Int64, zone: String) {
        self.goal = goal
        start = Self.periodStart(goal.period, today)
        var sums: [Int64: Int64] = [:]
        func add(_ amount: Int64, day: Int64) {
            let (sum, overflow) = sums[Self.periodStart(goal.period, day), default: 0].addingReportingOverflow(amount)
            sums[Self.periodStart(goal.period, day)] = overflow ? .max : sum
        }
        for run in runs {
            let amount = goal.amount(run)
            guard amount > 0 else { continue }
            add(amount, day: TrainingPicture.localDay(run.started, zone: zone))
        }
        if goal.measure == .steps, goal.sport == nil {
            for (day, steps) in outside where steps > 0 { add(Int64(steps), day: day) }
        }
        let current = Self.periodStart(goal.period, today)
        done = sums[current] ?? 0
        earlier = (1...Self.history).map { i in
            let first = current - Int64(i) * goal.period.days
            return (first, sums[first] ?? 0)
        }
    }

    var met: Bool { done >= goal.target }
    var percent: Int { Int(min(Double(done) / Double(max(goal.target, 1)) * 100, 10_000).rounded(.down)) }
    /// Finished periods met in a row, counting back from the last one.
    var streak: Int { earlier.prefix { $0.done >= goal.target }.count }

    var view: GoalView {
        let scale = goal.measure.scale
        return GoalView(
            id: goal.id, period: goal.period.rawValue, measure: goal.measure.rawValue, sport: goal.sport?.rawValue,
            target: Double(goal.target) / scale, done: Double(done) / scale, percent: percent, streak: streak,
            history: earlier.map {
                .init(start: TrainingPicture.date($0.start), done: Double($0.done) / scale, met: $0.done >= goal.target)
            })
    }
}
