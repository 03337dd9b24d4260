/// `POST /v1/reports`: a comment or a person's profile reported to the store's operator, with
/// the reporter's reason (1 to 1,000 characters). A comment is named by its run and id, a profile
/// by its username.
public struct ReportBody: Codable, Sendable, Hashable {
    /// `comment` or `profile`.
    public var kind: String
    /// The run the comment is on (a comment report).
    public var run: String?
    /// The comment's id (a comment report).
    public var comment: Int64?
    /// Whose profile (a profile report).
    public var username: String?
    public var reason: String

    public init(kind: String, run: String? = nil, comment: Int64? = nil, username: String? = nil, reason: String) {
        self.kind = kind
        self.run = run
        self.comment = comment
        self.username = username
        self.reason = reason
    }
}

/// A report as its reporter is told of it: received, and whether the operator has dealt with it.
public struct ReportView: Codable, Sendable, Hashable {
    public var id: Int64
    public var kind: String
    public var createdAt: String
    /// False until the operator resolves it.
    public var resolved: Bool

    public init(id: Int64, kind: String, createdAt: String, resolved: Bool) {
        self.id = id
        self.kind = kind
        self.createdAt = createdAt
        self.resolved = resolved
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, resolved
        case createdAt = "created_at"
    }
}
