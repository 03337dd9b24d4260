/// Where the store counted a run, as it said when it acknowledged the upload: the groups it
/// counted in (by name) and those it did not, with why. The journal keeps it as JSON in
/// `outbox.counted` (`{"counted_in": [names], "not_counted": [{group, group_id, reason_code,
/// reason}]}`), written by the sync worker and read for `handoff show`; the control API sends
/// it as it is (`CountingReport`).
public struct RunCounting: Codable, Hashable, Sendable {
    /// A group of the runner's the run did not count in (`reason_code`: `started_before_joining`,
    /// `after_deadline`, `not_counted`).
    public struct NotCounted: Codable, Hashable, Sendable {
        public var group: String
        public var groupID: Int64?
        public var reasonCode: String
        public var reason: String

        public init(group: String, groupID: Int64?, reasonCode: String, reason: String) {
            self.group = group
            self.groupID = groupID
            self.reasonCode = reasonCode
            self.reason = reason
        }

        enum CodingKeys: String, CodingKey {
            case group, reason
            case groupID = "group_id", reasonCode = "reason_code"
        }
    }

    public var countedIn: [String]
    public var notCounted: [NotCounted]

    public init(countedIn: [String], notCounted: [NotCounted]) {
        self.countedIn = countedIn
        self.notCounted = notCounted
    }

    enum CodingKeys: String, CodingKey {
        case countedIn = "counted_in", notCounted = "not_counted"
    }

    /// "counted in Danube relay; not in Club 10k: it started before you joined".
    public var sentence: String {
        if countedIn.isEmpty && notCounted.isEmpty {
            return "on the store; you are in no group, so it counted in none"
        }
        let counted = countedIn.isEmpty ? "counted in no group" : "counted in " + countedIn.joined(separator: ", ")
        return ([counted] + notCounted.map { "not in \($0.group): \($0.reason)" }).joined(separator: "; ")
    }
}
