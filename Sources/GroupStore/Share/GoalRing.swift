import Foundation

/// How much of a goal is done, as a ring drawn by the page (SVG, a circle of radius 40 whose
/// stroke is as long as the share done) and as words.
struct GoalRing: Sendable, Equatable {
    var percent: String
    /// The arc's length and the circle's, for `stroke-dasharray`.
    var dash: String
    var label: String

    init(done: Int64, goal: Int64, units: Units) {
        let share = goal > 0 ? Double(done) / Double(goal) : 0
        let circumference = 2 * Double.pi * 40
        percent = String(Int((share * 100).rounded(.down)))
        dash = RunMap.number(circumference * min(max(share, 0), 1)) + " " + RunMap.number(circumference)
        label =
            "\(units.distance(meters: Double(done) / 1000)) of your weekly goal of \(units.distance(meters: Double(goal) / 1000)): \(percent) %"
    }
}
