import Foundation
import HandoffAPI
import HandoffModel
import Hummingbird

extension Feed: ResponseGenerator, ResponseEncodable {}

extension FeedItem {
    /// A run of a feed as the API says it.
    init(_ item: FeedRun) {
        let run = item.run
        self.init(
            uuid: run.uuid, runner: item.runner, startedAt: iso(run.started), sport: run.sport,
            distanceM: Double(run.distanceMM) / 1000, elapsedS: Double(run.elapsedMS) / 1000,
            timerS: Double(run.timerMS) / 1000, map: item.map, kudos: item.kudos, comments: item.comments,
            title: item.post.title(run, zone: item.zone), description: item.post.description)
    }
}

/// Which runs a feed shows.
enum FeedScope: String, Sendable {
    /// The person's own runs.
    case mine
    /// And their friends' and group-mates' runs, as far as each runner lets them see.
    case everyone
}

/// One run of a feed: the run, its runner's name, whether the viewer may see its map, and its
/// kudos and comments as the viewer sees them.
struct FeedRun: Sendable {
    var run: StoredRun
    var runner: String
    var map: Bool
    var kudos = 0
    var comments = 0
    var post = RunPost()
    /// The runner's time zone, for the default title.
    var zone = "UTC"
    /// The small route (`RunFacts.thumbnail`), when one was made.
    var thumbnail: String?
}

extension StoreRepository {
    /// At most this many friends and group-mates, and a feed starts from their own runs
    /// (`run_account`, and the runs counted in the viewer's groups); more, and it walks every run
    /// newest first (`run_started`) keeping its circle's, which then fill a page soon
    /// (BENCHMARKS.md, "The feed").
    static let smallCircle = 60

    /// A page of `viewer`'s feed, newest start first: their own runs, and with `.everyone` the
    /// runs of their friends and those counted in their groups, each only where the rule
    /// (`RunVisibility`) lets the viewer see it; with the runner's name and whether the viewer may
    /// see its map. `smallCircle`: where the plan changes (tests run both). With `person`, only
    /// that person's runs the viewer may see (a person's page), whatever the scope.
    func feed(
        viewer: Int64, scope: FeedScope, limit: Int, after cursor: RunCursor?,
        smallCircle: Int = StoreRepository.smallCircle, person: Int64? = nil
    ) async throws -> (runs: [FeedRun], next: RunCursor?) {
        let from = cursor ?? RunCursor(started: Int64.max, id: 0)
        let (seen, seenArguments) = RunVisibility.sql(viewer: viewer)
        let (map, mapArguments) = RunVisibility.sql(viewer: viewer, column: "run.map_visibility")
        let (kudosFree, kudosArguments) = Self.unblocked("kudos.account_id", viewer: viewer)
        let (commentFree, commentArguments) = Self.unblocked("comment.account_id", viewer: viewer)
        let me = SQLValue.integer(viewer)
        let keyset = "(run.started_ns < ? OR (run.started_ns = ? AND run.id < ?))"
        let keysetArguments: [SQLValue] = [
            .integer(from.started), .integer(from.started), .integer(cursor == nil ? 0 : from.id),
        ]
        let page = SQLValue.integer(Int64(limit + 1))
        let select = """
            SELECT \(Self.runColumnsQualified), account.username AS runner, account.time_zone AS runner_zone,
                run.title, run.description, run.thumbnail, CASE WHEN \(map) THEN 1 ELSE 0 END AS map_seen,
                (SELECT count(*) FROM kudos WHERE kudos.run_id = run.id AND \(kudosFree)) AS kudos_n,
                (SELECT count(*) FROM comment WHERE comment.run_id = run.id AND \(commentFree)
                    AND comment.hidden_ns IS NULL) AS comments_n
            """
        let selectArguments = mapArguments + kudosArguments + commentArguments
        return try await read { db in
            let scope = person == nil ? scope : .mine
            var circle: [Int64]? = scope == .mine ? [person ?? viewer] : nil
            if circle == nil {
                let size =
                    try await db.one(
                        """
                        SELECT (SELECT count(*) FROM friend WHERE account_id = ? AND status = 'friends')
                            + (SELECT count(*) FROM member AS mine JOIN member AS theirs ON theirs.team_id = mine.team_id
                                WHERE mine.account_id = ?) AS n
                        """, viewer, viewer)?.int("n") ?? 0
                if size <= smallCircle {
                    circle =
                        [viewer]
                        + (try await db.query(
                            "SELECT friend_id FROM friend WHERE account_id = ? AND status = 'friends'", viewer
                        ).map { try $0.int("friend_id") })
                }
            }
            let sql: String
            let arguments: [SQLValue]
            if let circle {
                // From the circle's own runs, and (for everyone's) those counted in the viewer's
                // groups: each the page's worth it may show, newest first; then the newest of both.
                let marks = Array(repeating: "?", count: circle.count).joined(separator: ", ")
                let counted =
                    scope == .mine
                    ? ""
                    : """
                    UNION SELECT id FROM (SELECT DISTINCT run.id, run.started_ns FROM member
                        JOIN run_team ON run_team.team_id = member.team_id JOIN run ON run.id = run_team.run_id
                        WHERE member.account_id = ? AND \(seen) AND \(keyset)
                        ORDER BY run.started_ns DESC, run.id DESC LIMIT ?) AS counted
                    """
                // `CROSS JOIN` keeps SQLite reading the few runs picked, rather than walking every
                // run newest first (`run_started`) and probing the picked for each.
                sql = """
                    \(select)
                    FROM (SELECT id FROM (SELECT run.id FROM run
                            WHERE run.account_id IN (\(marks)) AND \(seen) AND \(keyset)
                            ORDER BY run.started_ns DESC, run.id DESC LIMIT ?) AS own
                        \(counted)) AS picked
                    CROSS JOIN run JOIN account ON account.id = run.account_id
                    WHERE run.id = picked.id
                    ORDER BY run.started_ns DESC, run.id DESC LIMIT ?
                    """
                arguments =
                    selectArguments + circle.map(SQLValue.integer) + seenArguments + keysetArguments + [page]
                    + (scope == .mine ? [] : [me] + seenArguments + keysetArguments + [page]) + [page]
            } else {
                // Newest first over every run (`run_started`), keeping the circle's.
                sql = """
                    \(select)
                    FROM run JOIN account ON account.id = run.account_id
                    WHERE (run.account_id = ? OR EXISTS (SELECT 1 FROM friend WHERE friend.account_id = ?
                            AND friend.friend_id = run.account_id AND friend.status = 'friends')
                        OR EXISTS (SELECT 1 FROM run_team JOIN member ON member.team_id = run_team.team_id
                            WHERE run_team.run_id = run.id AND member.account_id = ?))
                        AND \(seen) AND \(keyset)
                    ORDER BY run.started_ns DESC, run.id DESC LIMIT ?
                    """
                arguments = selectArguments + [me, me, me] + seenArguments + keysetArguments + [page]
            }
            let rows = try await db.query(sql, arguments)
            let runs = try rows.prefix(limit).map { row in
                FeedRun(
                    run: try StoredRun(row), runner: try row.text("runner"), map: try row.int("map_seen") != 0,
                    kudos: Int(try row.int("kudos_n")), comments: Int(try row.int("comments_n")),
                    post: RunPost(title: try row.textOrNil("title"), description: try row.textOrNil("description")),
                    zone: try row.text("runner_zone"), thumbnail: try row.textOrNil("thumbnail"))
            }
            let next =
                rows.count > limit
                ? runs.last.map { RunCursor(started: $0.run.started.nanosecondsSinceEpoch, id: $0.run.id) } : nil
            return (runs, next)
        }
    }
}

extension FriendRoutes {
    func registerFeed(_ router: RouteRecorder) {
        router.get("/v1/feed") { request, _ in
            let account = try await services.caller(request).account
            let scopeText = request.uri.queryParameters["scope"].map(String.init) ?? "everyone"
            guard let scope = FeedScope(rawValue: scopeText) else {
                throw StoreError(
                    .unprocessableContent, "invalid_scope",
                    "scope is mine (your runs) or everyone (and your friends' and group-mates')")
            }
            let limitText = request.uri.queryParameters["limit"].map(String.init) ?? "25"
            guard let limit = Int(limitText), (1...100).contains(limit) else {
                throw StoreError(.unprocessableContent, "invalid_limit", "limit is a number from 1 to 100")
            }
            let cursor = try StoreRepository.RunCursor.query(request)
            let page = try await services.repository.feed(viewer: account.id, scope: scope, limit: limit, after: cursor)
            return Feed(runs: page.runs.map(FeedItem.init), nextCursor: page.next?.text)
        }
    }
}
