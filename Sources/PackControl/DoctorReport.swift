/// One line of `handoff doctor`: a part of the pack, whether it is well, and what to do if not.
public struct DoctorCheck: Codable, Hashable, Sendable {
    public enum Status: String, Codable, Hashable, Sendable {
        case ok
        /// Worth knowing, not a fault (a strap not worn, a store out of reach away from home).
        case warning
        /// Something is wrong and the pack will not work as it should until a person acts.
        case problem
    }

    /// A stable id: `service`, `bluetooth.adapter`, `sensor.<id>`, `gps`, `clock`, `pedometer`,
    /// `storage.space`, `storage.database`, `store`, `network.home`.
    public var check: String
    public var status: Status
    /// What was found, in a sentence.
    public var summary: String
    /// What to do, when the status is not ok.
    public var action: String?

    public init(_ check: String, _ status: Status, _ summary: String, action: String? = nil) {
        self.check = check
        self.status = status
        self.summary = summary
        self.action = status == .ok ? nil : action
    }
}

/// Everything `handoff doctor` checked; `ok` when nothing is a problem.
public struct DoctorReport: Codable, Hashable, Sendable {
    public var ok: Bool
    public var checks: [DoctorCheck]

    public init(checks: [DoctorCheck]) {
        self.checks = checks
        ok = !checks.contains { $0.status == .problem }
    }
}
