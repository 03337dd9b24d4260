/// `GET`, `POST` and `DELETE /v1/runs/{uuid}/kudos`: the run's kudos as the caller sees them.
public struct KudosView: Codable, Sendable, Hashable {
    public var count: Int
    /// Whether the caller gave one.
    public var given: Bool
    /// Who gave them, by username, first given first.
    public var from: [String]

    public init(count: Int, given: Bool, from: [String]) {
        self.count = count
        self.given = given
        self.from = from
    }
}

/// `POST /v1/runs/{uuid}/comments` and `PATCH /v1/runs/{uuid}/comments/{id}`: plain text, 1 to
/// 1,000 characters, line breaks kept.
public struct CommentBody: Codable, Sendable, Hashable {
    public var text: String

    public init(text: String) { self.text = text }
}

/// One comment on a run.
public struct CommentView: Codable, Sendable, Hashable {
    public var id: Int64
    public var author: String
    public var text: String
    public var createdAt: String
    /// When its author last changed it, if they did.
    public var editedAt: String?
    /// True on a comment the store's operator hid after a report; only its author is shown it.
    public var hidden: Bool?

    public init(id: Int64, author: String, text: String, createdAt: String, editedAt: String?, hidden: Bool? = nil) {
        self.id = id
        self.author = author
        self.text = text
        self.createdAt = createdAt
        self.editedAt = editedAt
        self.hidden = hidden
    }

    enum CodingKeys: String, CodingKey {
        case id, author, text, hidden
        case createdAt = "created_at"
        case editedAt = "edited_at"
    }
}

/// `GET /v1/runs/{uuid}/comments`: oldest first.
public struct CommentList: Codable, Sendable, Hashable {
    public var comments: [CommentView]

    public init(comments: [CommentView]) { self.comments = comments }
}
