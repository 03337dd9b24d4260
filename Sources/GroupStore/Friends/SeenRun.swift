import Foundation
import HandoffModel
import Hummingbird

/// A run as one viewer may see it: the run, its runner's name, whether the viewer is its owner,
/// may see its map, and the groups it counted in that the viewer belongs to (all of them for the
/// owner).
struct SeenRun: Sendable {
    var run: StoredRun
    var runner: String
    var isOwner: Bool
    var map: Bool
    var counts: [RunCount]
    /// The owner's groups it did not count in, and why (empty for anyone else).
    var notCounted: [RunNotCounted]
    var post: RunPost
    /// The runner's time zone, where its default title's time of day is read.
    var zone: String
}

extension StoreRepository {
    /// The run `uuid` if `viewer` (nil: nobody signed in) may see it by the rule
    /// (`RunVisibility.sql`, the same fragment the feed filters with); nil for a run that does
    /// not exist and for one the viewer may not see alike.
    func seenRun(uuid: String, viewer: Int64?) async throws -> SeenRun? {
        let (seen, seenArguments) = RunVisibility.sql(viewer: viewer)
        let (map, mapArguments) = RunVisibility.sql(viewer: viewer, column: "run.map_visibility")
        return try await read { db in
            guard
                let row = try await db.query(
                    """
                    SELECT \(Self.runColumnsQualified), account.username AS runner, run.title, run.description,
                        account.time_zone AS runner_zone,
                        CASE WHEN \(map) THEN 1 ELSE 0 END AS map_seen
                    FROM run JOIN account ON account.id = run.account_id
                    WHERE run.uuid = ? AND \(seen)
                    """, mapArguments + [.text(uuid)] + seenArguments
                ).first
            else { return nil }
            let run = try StoredRun(row)
            let isOwner = run.accountID == viewer
            var counts = try await Self.counts(db, run.id)
            var notCounted: [RunNotCounted] = []
            if isOwner {
                notCounted = try await Self.notCounted(db, run)
            } else {
                let mine = try await db.query(
                    "SELECT team_id FROM member WHERE account_id = ?", [.integer(viewer ?? -1)]
                ).map { try $0.int("team_id") }
                counts = counts.filter { mine.contains($0.groupID) }
            }
            return SeenRun(
                run: run, runner: try row.text("runner"), isOwner: isOwner, map: try row.int("map_seen") != 0,
                counts: counts, notCounted: notCounted,
                post: RunPost(title: try row.textOrNil("title"), description: try row.textOrNil("description")),
                zone: try row.text("runner_zone"))
        }
    }
}

extension WebPages {
    /// A run's page for whoever asks: its owner's, with their forms; another person's, where the
    /// rule lets them see it, without the route's ends; for anyone else the same 404 as for a run
    /// that does not exist (or, signed out, the sign-in form first).
    func runPage(_ request: Request, _ context: StoreContext) async throws -> Response {
        let account = try await signedIn(request)
        let notFound = {
            guard let account else { return Self.redirect(.login(next: request.uri.path)) }
            return Self.message(
                "No such run",
                "There is no run at this address that you may see: it may have been deleted, or its runner shows it to fewer people.",
                status: .notFound, account: account, link: Link(href: SitePath.runs().path, label: "Your runs"))
        }
        guard let uuid = try? RunRoutes.uuid(context),
            let seen = try await services.repository.seenRun(uuid: uuid, viewer: account?.id)
        else { return notFound() }
        let run = seen.run
        let facts = try await services.facts(uuid: uuid, account: run.accountID)
        let tiles = services.configuration.mapTiles
        let reader = account.map(Reader.init) ?? .standard
        let (kudos, comments) = try await services.repository.social(run: run.id, viewer: account?.id)
        var social = RunSocial(
            runner: seen.isOwner ? nil : seen.runner, uuid: uuid, kudos: kudos, comments: comments, viewer: account,
            owner: seen.isOwner, reader: reader)
        social.post(seen.post, run: run, zone: seen.zone, reader: reader, owner: seen.isOwner)
        let photos = try await services.repository.runPhotos([run.id])[run.id] ?? []
        if seen.isOwner || !photos.isEmpty {
            social.extras.photos = RunPhotos(photos, uuid: uuid, runner: seen.runner, owner: seen.isOwner)
        }
        social.extras.together = try await togetherPart(seen, viewer: account)
        if seen.isOwner {
            social.extras.share = ShareLinks(
                svg: SitePath.runCard(uuid).path, name: "run-\(iso(run.started).prefix(10)).svg",
                page: run.audience.run == .public ? SitePath.runShare(uuid).path : nil,
                hint: run.audience.run == .public
                    ? "Anyone with the link opens its share page, without an account."
                    : "Make the run public (above) and it gets a share page anyone can open.")
        }
        var page: RunPage
        if seen.isOwner, let account {
            page = RunPage(
                run: run, counts: seen.counts, notCounted: seen.notCounted, facts: facts, reader: reader,
                viewer: account.username, tiles: tiles, maximumHeartRate: account.maximumHeartRate)
            let profile = try await services.repository.profile(account: account.id)
            if let kcal = Energy.kilocalories(
                sport: run.sport, meters: Double(run.distanceMM) / 1000,
                minutes: (facts?.summary.moving ?? Double(run.timerMS) / 1000) / 60,
                averageHeartRate: facts?.summary.averageHeartRate, profile: profile, at: run.started)
            {
                page.stats.append(RunPage.Stat(label: "Energy (estimate)", value: "\(Int(kcal.rounded())) kcal"))
            }
        } else {
            page = RunPage(
                run: run, counts: seen.counts, notCounted: [], facts: facts, reader: reader,
                viewer: account?.username, tiles: seen.map ? tiles : nil, runner: seen.runner, mapShown: seen.map)
        }
        let held = try await services.repository.recordsHeld(run: run.id)
        if !held.isEmpty {
            // The runner's fastest in this sport over these distances: marked where they were set.
            page.stats.insert(
                RunPage.Stat(
                    label: "Personal best", value: held.map(PersonalRecords.name(meters:)).joined(separator: ", ")),
                at: min(2, page.stats.count))
        }
        page.social = social
        page.frame = Frame(seen.post.title(run, zone: seen.zone), viewer: account?.username)
        return Self.render(page, imagesFrom: seen.map ? tiles?.origin : nil)
    }
}
