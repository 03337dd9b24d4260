import Foundation
import HandoffAPI
import HandoffModel

/// A goal as a page shows it: its ring, what it is, how much is done, how many periods in a row
/// it was met and its last 12 periods; on the person's own goals page, the button that removes it.
struct GoalCard: Sendable, Equatable {
    var ring: GoalRing
    var title: String
    var amount: String
    var streak: String?
    /// Oldest first, and what they are ("The last 12 weeks, oldest first").
    var history: [Mark]
    var span: String
    var delete: String?

    struct Mark: Sendable, Equatable {
        var met: Bool
        var label: String
    }

    /// "Weekly distance", "Daily steps, rides only".
    static func title(_ goal: PersonalGoal) -> String {
        let measure =
            switch goal.measure {
            case .distance: "distance"
            case .time: "time"
            case .runs: "activities"
            case .steps: "steps"
            }
        return (goal.period == .day ? "Daily " : "Weekly ") + measure
            + (goal.sport.map { ", \($0.plural) only" } ?? "")
    }

    /// An amount in the goal's measure: "12.3 km", "1 h 20 min", "3 activities", "8,000 steps".
    static func amount(_ value: Int64, _ measure: PersonalGoal.Measure, units: Units) -> String {
        switch measure {
        case .distance: return units.distance(meters: Double(value) / 1000, decimals: 1)
        case .time: return PageFormat.duration(value * nanosecondsPerSecond)
        case .runs: return "\(value) activit\(value == 1 ? "y" : "ies")"
        case .steps: return "\(StepsPage.number(Int(clamping: value))) steps"
        }
    }

    init(_ progress: GoalProgress, units: Units, owner: String?) {
        let goal = progress.goal
        title = Self.title(goal)
        let done = Self.amount(progress.done, goal.measure, units: units)
        let target = Self.amount(goal.target, goal.measure, units: units)
        amount = "\(done) of \(target)"
        let whose = owner.map { "\($0)'s" } ?? "your"
        ring = GoalRing(
            share: Double(progress.done) / Double(max(goal.target, 1)), percent: progress.percent,
            label: "\(done) of \(whose) \(title.lowercased()) goal of \(target): \(progress.percent) %")
        let noun = goal.period == .day ? "day" : "week"
        streak =
            progress.streak > 0 ? "Met \(progress.streak) \(noun)\(progress.streak == 1 ? "" : "s") in a row" : nil
        span = "The last \(progress.earlier.count) \(noun)s, oldest first"
        history = progress.earlier.reversed().map { period in
            let met = period.done >= goal.target
            let when =
                goal.period == .day
                ? PageFormat.day(TrainingPage.instant(period.start))
                : "Week of " + PageFormat.day(TrainingPage.instant(period.start))
            return Mark(
                met: met,
                label: "\(when): \(Self.amount(period.done, goal.measure, units: units)), \(met ? "met" : "not met")")
        }
        delete = owner == nil ? SitePath.goalDelete(goal.id).path : nil
    }
}
