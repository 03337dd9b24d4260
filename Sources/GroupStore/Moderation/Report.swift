import Foundation
import HandoffModel

/// What a person may report to the store's operator: a comment, or a person's profile.
enum ReportTarget: Sendable, Equatable {
    /// The comment `id` on the run `uuid`.
    case comment(uuid: String, id: Int64)
    /// The profile of the person named `username`.
    case profile(username: String)

    var kind: String {
        switch self {
        case .comment: "comment"
        case .profile: "profile"
        }
    }
}

/// What the operator does with a report (`handoff-store moderation resolve ID ACTION`).
public enum ReportAction: String, Sendable, CaseIterable {
    /// The comment, or the profile's fields, shown to nobody but their author from now on.
    case hide
    /// The comment, or the profile's fields, deleted.
    case delete
    /// The reported person's account suspended: they cannot sign in, their packs are unlinked,
    /// and nothing of theirs (runs, profile, comments, kudos) is shown to anyone; the reported
    /// words are hidden too. `handoff-store moderation unsuspend USER` lifts it.
    case suspend
    /// The report closed with nothing changed.
    case dismiss

    /// What became of the report, in the operator's list.
    var done: String {
        switch self {
        case .hide: "hidden"
        case .delete: "deleted"
        case .suspend: "account suspended"
        case .dismiss: "dismissed"
        }
    }
}

/// A report as the operator reads it.
public struct StoredReport: Sendable, Equatable, Codable {
    public var id: Int64
    /// `comment` or `profile`.
    public var kind: String
    /// Who reported it; nil once their account is deleted.
    public var reporter: String?
    /// Whose words or profile.
    public var reported: String
    /// Where the comment was: its run and id (a comment report).
    public var run: String?
    public var comment: Int64?
    /// What was reported, as it was when reported.
    public var excerpt: String
    public var reason: String
    public var createdAt: String
    public var resolvedAt: String?
    /// What the operator did (`ReportAction.done`).
    public var resolution: String?

    enum CodingKeys: String, CodingKey {
        case id, kind, reporter, reported, run, comment, excerpt, reason, resolution
        case createdAt = "created_at"
        case resolvedAt = "resolved_at"
    }
}

/// The reporter's reason: plain text, line breaks kept, 1 to `longest` characters.
enum ReportRules {
    static let longest = 1_000
    /// Open reports one person may have at once; past it, new ones are refused until the operator
    /// has dealt with some (a person cannot bury the operator's list).
    static let mostOpen = 50

    static func reason(_ raw: String) throws(StoreError) -> String {
        let text = try TextRules.paragraphs(raw, field: "reason")
        guard !text.isEmpty else {
            throw StoreError(
                .unprocessableContent, "empty_reason", "say in a few words what is wrong, so the operator can judge it")
        }
        guard text.count <= longest else {
            throw StoreError(
                .unprocessableContent, "reason_too_long",
                "a reason is at most \(longest) characters and this one has \(text.count): shorten it")
        }
        return text
    }

    static let ownWords = StoreError(
        .unprocessableContent, "own_report", "this is your own: change or delete it yourself instead of reporting it")
}
