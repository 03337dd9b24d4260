import ActivityFormats
import Foundation
import HandoffModel

/// A run as a post: its title and description, its owner's to write.
struct RunPost: Sendable, Equatable {
    /// nil: the default, from the time of day and the sport (`RunPost.standardTitle`).
    var title: String?
    var description: String?

    static let longestTitle = 100
    static let longestDescription = 2_000

    /// "Morning run", "Evening ride": the run's start in the runner's time zone.
    static func standardTitle(_ run: StoredRun, zone: String) -> String {
        let hour = PageFormat.local(run.started, zone: zone).hour
        let part =
            switch hour {
            case 5..<12: "Morning"
            case 12..<17: "Afternoon"
            case 17..<21: "Evening"
            default: "Night"
            }
        return "\(part) \(RunPage.sportName(run.sport).lowercased())"
    }

    func title(_ run: StoredRun, zone: String) -> String { title ?? Self.standardTitle(run, zone: zone) }

    /// The title and description a form or the API sent, checked: plain text, the title one line
    /// of at most 100 characters (empty: the default), the description at most 2,000 (empty: none).
    static func checked(title: String, description: String) throws(StoreError) -> RunPost {
        let title = try TextRules.plain(title.trimmingCharacters(in: .whitespaces), field: "title")
        guard title.count <= longestTitle else {
            throw StoreError(
                .unprocessableContent, "invalid_title",
                "a title is at most \(longestTitle) characters and this one has \(title.count): shorten it")
        }
        let text = try TextRules.paragraphs(description, field: "description")
        guard text.count <= longestDescription else {
            throw StoreError(
                .unprocessableContent, "invalid_description",
                "a description is at most \(longestDescription) characters and this one has \(text.count): shorten it")
        }
        return RunPost(title: title.isEmpty ? nil : title, description: text.isEmpty ? nil : text)
    }
}

extension StoreRepository {
    /// Sets the title and description of the account's own run (another's is a 404).
    func setPost(uuid: String, account: Int64, _ post: RunPost) async throws {
        try await write { db in
            let changed = try await db.query(
                "UPDATE run SET title = ?, description = ? WHERE uuid = ? AND account_id = ? RETURNING id",
                post.title, post.description, uuid, account)
            guard !changed.isEmpty else { throw StoreError.notFound("run", uuid) }
        }
    }
}

extension RunFacts {
    /// The route as the feed's thumbnail: without its ends (`withoutEnds`), projected and fitted
    /// into a 64-unit square, at most 48 points a segment; segments apart by `|`. nil without one.
    func thumbnail() -> String? {
        routeLines(side: 64, margin: 4, points: 47)?.joined(separator: "|")
    }
}
