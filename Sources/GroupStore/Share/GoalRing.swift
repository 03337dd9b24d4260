import Foundation

/// How much of a goal is done, as a ring drawn by the page (SVG, a circle of radius 40 whose
/// stroke is as long as the share done) and as words.
struct GoalRing: Sendable, Equatable {
    var percent: String
    /// The arc's length and the circle's, for `stroke-dasharray`.
    var dash: String
    var label: String

    /// A ring for any share done (1 is the whole circle), with its words.
    init(share: Double, percent: Int, label: String) {
        let circumference = 2 * Double.pi * 40
        self.percent = String(percent)
        dash =
            RunMap.number(circumference * min(max(share.isFinite ? share : 0, 0), 1)) + " "
            + RunMap.number(circumference)
        self.label = label
    }
}
