/// Who may see a run, and who its map: the one rule every list, page, feed, export and API route
/// applies (docs/group-store.md, "Who sees a run"). `allows` is the rule; `RunVisibility.sql` is
/// the same rule as a condition on `run`, written beside it so that lists filter in the database,
/// and `VisibilityTests` shows on random worlds that the two agree on both engines.
///
/// The levels nest: each one lets in everyone the one before does.
/// - `private`: the owner alone;
/// - `friends`: and the owner's friends;
/// - `groups`: and the members of the groups the run counted in (as they are now: a member who
///   left sees no more);
/// - `public`: anyone, signed in or not.
///
/// Blocking either way hides everything of the owner's from the other, whatever the level, and an
/// account the operator suspended (`handoff-store moderation`) shows nothing to anyone. The owner
/// always sees their own runs.
public enum RunVisibility: String, CaseIterable, Sendable, Comparable {
    case `private`
    case friends
    case groups
    case `public`

    /// What a new account's runs get until the person chooses (`/settings`): friends and
    /// group-mates see the run and its map; nobody else sees anything.
    static let standard = RunVisibility.groups

    public static func < (a: RunVisibility, b: RunVisibility) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// A level from its name, or the 422 that lists them.
    static func named(_ text: String, field: String = "visibility") throws(StoreError) -> RunVisibility {
        guard let level = RunVisibility(rawValue: text) else {
            throw StoreError(
                .unprocessableContent, "invalid_visibility", "\(field) is private, friends, groups or public")
        }
        return level
    }

    /// The levels a run and its map take after a change: a map asked to be seen by more people than
    /// its run is refused; a run lowered below its map takes the map down with it.
    static func audience(
        run: RunVisibility?, map: RunVisibility?, current: StoredRun.Audience
    ) throws(StoreError) -> StoredRun.Audience {
        let newRun = run ?? current.run
        if let map, map > newRun {
            throw StoreError(
                .unprocessableContent, "invalid_visibility",
                "the map is seen by no more people than the run: choose a map level at most \(newRun.rawValue)")
        }
        return StoredRun.Audience(run: newRun, map: min(newRun, map ?? current.map))
    }

    /// Where the viewer stands toward a run and its owner.
    struct Relation: Sendable, Hashable {
        /// nil: nobody is signed in.
        var signedIn = true
        var isOwner = false
        var isFriend = false
        /// A member now of a group the run counted in.
        var inRunsGroup = false
        /// The owner blocked the viewer, or the viewer the owner.
        var blocked = false
        /// The store's operator suspended the owner's account.
        var ownerSuspended = false
    }

    /// The rule.
    func allows(_ relation: Relation) -> Bool {
        if relation.isOwner { return true }
        if relation.blocked || relation.ownerSuspended { return false }
        switch self {
        case .private: return false
        case .friends: return relation.isFriend
        case .groups: return relation.isFriend || relation.inRunsGroup
        case .public: return true
        }
    }

    /// A run's map: seen by those who may see the run and whom the map's own level lets in (a
    /// map is never shown to more people than its run; `run.map_visibility` is kept at most
    /// `run.visibility`).
    static func mapAllowed(run: RunVisibility, map: RunVisibility, _ relation: Relation) -> Bool {
        min(run, map).allows(relation)
    }

    /// The rule as a condition on the table `run` (its columns `account_id`, `id` and
    /// `visibility`, or `column` for the map's), for `viewer` (nil: nobody signed in), with the
    /// values to bind in order.
    static func sql(viewer: Int64?, column: String = "run.visibility") -> (sql: String, arguments: [SQLValue]) {
        let present = "NOT EXISTS (SELECT 1 FROM suspension WHERE suspension.account_id = run.account_id)"
        guard let viewer else { return ("(\(column) = 'public' AND \(present))", []) }
        let v = SQLValue.integer(viewer)
        return (
            """
            (run.account_id = ? OR (\(present)
                AND NOT EXISTS (SELECT 1 FROM block WHERE (block.blocker_id = run.account_id AND block.blocked_id = ?)
                    OR (block.blocker_id = ? AND block.blocked_id = run.account_id))
                AND (\(column) = 'public'
                    OR (\(column) IN ('friends', 'groups') AND EXISTS (SELECT 1 FROM friend
                        WHERE friend.account_id = ? AND friend.friend_id = run.account_id AND friend.status = 'friends'))
                    OR (\(column) = 'groups' AND EXISTS (SELECT 1 FROM run_team
                        JOIN member ON member.team_id = run_team.team_id
                        WHERE run_team.run_id = run.id AND member.account_id = ?)))))
            """, [v, v, v, v, v]
        )
    }
}
