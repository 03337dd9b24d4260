/// `steps`: today's steps on the pack, in the pack's time zone: the pedometer's steps outside
/// runs (uploaded to the store with the next sync) and the steps of today's runs.
public struct StepsReport: Codable, Hashable, Sendable {
    /// `2026-11-28`.
    public var day: String
    public var outsideRuns: Int
    public var inRuns: Int
    public var total: Int
    /// Whether a pedometer (or the footpod's cadence) counts steps now.
    public var counting: Bool
    /// How many of `outside_runs` the store has acknowledged.
    public var uploaded: Int
    public var message: String

    public init(day: String, outsideRuns: Int, inRuns: Int, counting: Bool, uploaded: Int) {
        self.day = day
        self.outsideRuns = outsideRuns
        self.inRuns = inRuns
        total = outsideRuns + inRuns
        self.counting = counting
        self.uploaded = uploaded
        var message = "Today (\(day)): \(Format.count(outsideRuns, "step")) outside runs and \(inRuns) in runs, "
        message += "\(total) in all."
        if outsideRuns > 0 {
            message +=
                uploaded >= outsideRuns
                ? " The store has them."
                : " \(uploaded == 0 ? "They go" : "\(outsideRuns - uploaded) more go") to the store with the next sync."
        }
        if !counting {
            message +=
                " No pedometer is counting steps now: `handoff doctor` says why (pedometer.sources in handoff.toml)."
        }
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case day, total, counting, uploaded, message
        case outsideRuns = "outside_runs", inRuns = "in_runs"
    }
}
