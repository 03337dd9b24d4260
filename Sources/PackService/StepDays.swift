import Foundation
import HandoffModel

/// The pedometer's steps outside runs, credited to the day they were taken on in the pack's time
/// zone (`handoff steps today`; uploaded with the next sync). Pure: the recorder's running total
/// and each event's wall time go in; what the journal has not yet got comes out.
///
/// Increments, not totals, go to the journal (`PackDatabase.addSteps`), at most once a minute while
/// steps come (and at shutdown): a pack worn all day writes its card ~1,000 times a day for this,
/// not 86,400; a power cut loses at most the last minute's steps.
struct StepDays: Sendable {
    static let saveEverySeconds: Int64 = 60

    let calendar: Calendar
    /// The recorder's running total when last credited; `nil` until the first credit.
    private(set) var credited: Int?
    /// Steps per day not yet in the journal.
    private(set) var pending: [String: Int] = [:]
    /// When the journal last got them (monotonic nanoseconds).
    private var savedAt: Int64?

    init(zone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        self.calendar = calendar
    }

    /// The day of `wall` in the pack's time zone: `2026-11-28`.
    func day(_ wall: WallInstant) -> String {
        let date = Date(timeIntervalSince1970: Double(wall.nanosecondsSinceEpoch) / 1e9)
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// Where the day of `wall` begins and ends, in wall nanoseconds (a day of 23 or 25 hours
    /// when the clocks change).
    func bounds(_ wall: WallInstant) -> (from: Int64, to: Int64) {
        let date = Date(timeIntervalSince1970: Double(wall.nanosecondsSinceEpoch) / 1e9)
        let start = calendar.startOfDay(for: date)
        let end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
        // A replayed capture may carry any wall time: clamp rather than trap near Int64's ends.
        func nanoseconds(_ date: Date) -> Int64 {
            let ns = (date.timeIntervalSince1970 * 1e9).rounded()
            return ns >= 9.2e18 ? .max : ns <= -9.2e18 ? .min : Int64(ns)
        }
        return (nanoseconds(start), nanoseconds(end))
    }

    /// Credits what the recorder's total gained since the last call to the day of `wall`. With no
    /// wall time known yet, the steps wait for one.
    mutating func credit(total: Int, at wall: WallInstant?) {
        guard let wall else { return }
        let added = total &- (credited ?? 0)
        credited = total
        guard added > 0 else { return }
        pending[day(wall), default: 0] &+= added
    }

    /// Whether the pending steps are due for the journal at `now`: a minute after the last save.
    func due(at now: MonotonicInstant) -> Bool {
        !pending.isEmpty && savedAt.map { now.nanoseconds &- $0 >= Self.saveEverySeconds * 1_000_000_000 } ?? true
    }

    /// Hands over the pending steps (the caller writes them) and notes the time.
    mutating func take(at now: MonotonicInstant) -> [String: Int] {
        defer { pending = [:] }
        savedAt = now.nanoseconds
        return pending
    }

    /// A failed write gives them back, to go with the next.
    mutating func restore(_ steps: [String: Int]) {
        pending.merge(steps) { $0 &+ $1 }
    }
}
