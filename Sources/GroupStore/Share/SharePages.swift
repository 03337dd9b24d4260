import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird
import NIOCore

/// A public run's share page: for anyone, signed in or not, with its card.
struct SharePage: PageModel {
    static let template = "share"
    var frame: Frame
    var when: String
    var runner: String
    var person: String
    var card: String
    var alt: String
    var stats: [RunPage.Stat]
    var description: String?
    var run: String
}

/// The owner's way to share a run or a week: the card as SVG and PNG (made in the browser by the
/// page's script from the SVG), and the share page of a public run.
struct ShareLinks: Sendable, Equatable {
    var svg: String
    var name: String
    /// The public run's share page; nil until the run is public.
    var page: String?
    var hint: String
}

extension WebPages {
    /// A run's card as `viewer` may see it (the rule's 404 otherwise): the route only where the
    /// map may be seen, never its ends.
    func runCard(_ uuid: String, viewer: Account?) async throws -> (ShareCard.Run, SeenRun)? {
        guard let seen = try await services.repository.seenRun(uuid: uuid, viewer: viewer?.id) else { return nil }
        let run = seen.run
        let units = (viewer.map(Reader.init) ?? .standard).units
        let meters = Double(run.distanceMM) / 1000
        let seconds = Double(run.timerMS) / 1000
        let facts = seen.map ? try await services.facts(uuid: uuid, account: run.accountID) : nil
        let card = ShareCard.Run(
            title: seen.post.title(run, zone: seen.zone),
            when: PageFormat.time(run.started, zone: viewer?.timeZone ?? seen.zone).text, runner: seen.runner,
            distance: units.distance(meters: meters), time: Units.clock(seconds),
            pace: units.pace(seconds: seconds, meters: meters),
            route: facts?.routeLines(side: 480, margin: 40, points: 600))
        return (card, seen)
    }

    static func svg(_ text: String, name: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "image/svg+xml; charset=utf-8",
                .contentDisposition: "attachment; filename=\"\(name)\"",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                .contentSecurityPolicy: "default-src 'none'; sandbox",
                .cacheControl: "private, no-cache",
            ], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    func registerSharePages(_ router: PageRouter) {
        let repository = services.repository
        router.anyone(.get, "/runs/:uuid/card.svg") { request, context in
            let viewer = try await signedIn(request)
            guard let uuid = try? RunRoutes.uuid(context), let (card, seen) = try await runCard(uuid, viewer: viewer)
            else {
                return Self.message(
                    "No such run", "There is no run at this address that you may see.", status: .notFound)
            }
            return Self.svg(ShareCard.run(card), name: "run-\(iso(seen.run.started).prefix(10)).svg")
        }
        router.anyone(.get, "/runs/:uuid/share") { request, context in
            // A public run's page for anyone: the rule as for nobody signed in, and for a signed-in
            // reader the rule as for them too (someone either of them blocked gets the 404).
            let viewer = try await signedIn(request)
            var blocked = false
            if let viewer, let uuid = try? RunRoutes.uuid(context) {
                blocked = try await services.repository.seenRun(uuid: uuid, viewer: viewer.id) == nil
            }
            guard !blocked, let uuid = try? RunRoutes.uuid(context),
                let (card, seen) = try await runCard(uuid, viewer: nil)
            else {
                return Self.message(
                    "No such run", "There is no public run at this address: its runner may share it with fewer people.",
                    status: .notFound)
            }
            let page = SharePage(
                frame: Frame(card.title, viewer: viewer?.username), when: card.when, runner: seen.runner,
                person: SitePath.person(seen.runner).path, card: SitePath.runCard(uuid).path,
                alt: "\(card.title): \(card.distance) in \(card.time), \(card.pace)",
                stats: [
                    RunPage.Stat(label: "Distance", value: card.distance),
                    RunPage.Stat(label: "Time", value: card.time),
                    RunPage.Stat(label: "Pace", value: card.pace),
                ], description: seen.post.description, run: SitePath.run(uuid).path)
            return Self.render(page)
        }
        router.signedIn(.get, "/me/week/card.svg") { _, _, account in
            let now = services.now()
            let reader = Reader(account)
            // The person's week, on their calendar, as the home page and their goals count it.
            let monday = WallInstant(nanosecondsSinceEpoch: weekStart(now, zone: account.timeZone))
            let runs = try await repository.weekRuns(account: account.id, from: monday.nanosecondsSinceEpoch)
            let mm = runs.reduce(0) { $0 + $1.run.distanceMM }
            let ms = runs.reduce(0) { $0 + $1.run.timerMS }
            let meters = Double(mm) / 1000
            let share = account.weekGoalMM.map { Double(mm) / Double(max($0, 1)) }
            let card = ShareCard.Week(
                title: "Week of " + PageFormat.day(PageFormat.local(monday, zone: account.timeZone).instant),
                runner: account.username, distance: reader.units.distance(meters: meters),
                line:
                    "\(runs.count) run\(runs.count == 1 ? "" : "s") · \(Units.clock(Double(ms) / 1000)) · \(reader.units.pace(seconds: Double(ms) / 1000, meters: meters))",
                goal: share, goalText: share.map { "\(Int(($0 * 100).rounded(.down))) %" } ?? "\(runs.count)",
                routes: runs.prefix(4).compactMap { $0.thumbnail.map { $0.split(separator: "|").map(String.init) } })
            return Self.svg(
                ShareCard.week(card),
                name: "week-\(PageFormat.local(monday, zone: account.timeZone).iso8601().prefix(10)).svg")
        }
        router.signedIn(.post, "/settings/week-goal") { request, context, account in
            let form = try await Self.form(request, context)
            let text = (form["goal"] ?? "").trimmingCharacters(in: .whitespaces).replacingOccurrences(
                of: ",", with: ".")
            let units = Reader(account).units
            guard text.isEmpty || Double(text).map({ $0 > 0 && $0 <= 1_000 }) == true else {
                var page = try await settings(account)
                page.error = "A weekly goal is a distance in \(units.name) from 0.1 to 1000, or empty for none."
                page.heart.goal = text
                return Self.render(page, status: .unprocessableContent)
            }
            try await repository.setWeekGoal(
                account: account.id, mm: Double(text).map { Int64(($0 * units.meters * 1000).rounded()) })
            return Self.redirect(SitePath.settings.path + "?done=week-goal")
        }
    }
}

extension StoreRepository {
    /// The person's runs since `from`, newest first, with their small routes.
    func weekRuns(account: Int64, from: Int64) async throws -> [(run: StoredRun, thumbnail: String?)] {
        try await read { db in
            try await db.query(
                """
                SELECT \(Self.runColumnsQualified), run.thumbnail FROM run WHERE run.account_id = ? AND run.started_ns >= ?
                ORDER BY run.started_ns DESC LIMIT 100
                """, account, from
            ).map { (try StoredRun($0), try $0.textOrNil("thumbnail")) }
        }
    }

    func setWeekGoal(account: Int64, mm: Int64?) async throws {
        if let mm {
            _ = try await setGoal(
                account: account, PersonalGoal(period: .week, measure: .distance, sport: nil, target: mm))
        } else {
            try await clearGoal(account: account, period: .week, measure: .distance, sport: nil)
        }
    }
}
