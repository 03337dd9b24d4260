import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// The account's pages: the home page (groups and packs), signing in and out.
extension WebPages {
    func registerAccountPages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.get, "/") { _, _, account in
            let now = services.now()
            let reader = Reader(account)
            var groups: [HomePage.GroupRow] = []
            let followed = try await repository.followed(account: account.id)
            for group in try await repository.groups(account: account.id) {
                let progress = try await repository.progress(
                    group.id, account: account.id, members: 1, legs: 1, now: now)
                var row = HomePage.GroupRow(progress, reader: reader)
                row.events = followed.first { $0.id == group.id }?.events
                groups.append(row)
            }
            let week = try await repository.weeklyDistance(
                account: account.id, weeks: 1, now: now, zone: account.timeZone
            ).first
            let reactions = try await repository.newResponses(account: account.id)
            let runs = try await repository.runs(account: account.id, limit: 5, before: nil, after: nil).runs.map(\.0)
            var home = HomePage(
                frame: Frame("Home", viewer: account.username, current: .home),
                week: .init(
                    distance: PageFormat.distance(week?.mm ?? 0, reader.units), runs: String(week?.runs ?? 0)),
                groups: groups, runs: RunListPage(runs: runs, next: nil, reader: reader, viewer: "").rows,
                packs: PacksPart(
                    try await repository.devices(account: account.id), now: now, zone: account.timeZone),
                reactions: Reactions(count: reactions.count, newest: reactions.newest, reader: reader))
            home.goals = try await services.goalProgress(account, viewer: account.id, now: now).map {
                GoalCard($0, units: reader.units, owner: nil)
            }
            for i in home.goals.indices { home.goals[i].delete = nil }
            home.together = try await repository.togetherAsks(account: account.id).map {
                TogetherAsk($0, reader: reader)
            }
            return Self.render(home)
        }
        router.anyone(.get, "/login") { request, _ in
            Self.render(
                LoginPage(
                    next: Self.safeNext(request.uri.queryParameters["next"].map(String.init)),
                    signUp: services.configuration.accounts.signUps == .open ? SitePath.signup().path : nil,
                    forgot: services.configuration.mail == nil ? nil : SitePath.forgot.path))
        }
        router.anyone(.post, "/login") { request, context in
            let form = try await Self.form(request, context)
            let next = Self.safeNext(form["next"])
            let remember = form["remember"] == "1"
            do {
                let (_, issued) = try await services.accounts.signIn(
                    login: form["login"] ?? "", password: form["password"] ?? "",
                    address: services.clientAddress(request, context))
                var response = Self.redirect(next)
                // "Stay signed in" keeps the cookie for the session's lifetime; otherwise it ends
                // with the browser.
                response.headers[.setCookie] = sessionCookie(issued.token, remember: remember)
                return response
            } catch let error as StoreError {
                // What was typed stays, but the password.
                var response = Self.render(
                    LoginPage(
                        next: next, login: form["login"] ?? "", remember: remember, error: error.message,
                        signUp: services.configuration.accounts.signUps == .open ? SitePath.signup().path : nil,
                        forgot: services.configuration.mail == nil ? nil : SitePath.forgot.path),
                    status: error.status)
                if let wait = error.retryAfter { response.headers[.retryAfter] = String(wait) }
                return response
            }
        }
        router.anyone(.post, "/logout") { request, _ in
            if let token = Self.sessionCookie(request) { try await services.accounts.signOut(token: token) }
            var response = Self.redirect(.login())
            response.headers[.setCookie] = "\(Self.cookie)=; Path=/; HttpOnly; SameSite=Strict\(secure); Max-Age=0"
            return response
        }
    }

}

/// The sign-in form, with what was typed kept after a wrong password (all but the password).
struct LoginPage: PageModel {
    static let template = "login"
    var frame = Frame("Sign in", viewer: nil, current: .login())
    var action = SitePath.login().path
    var next: String
    var login = ""
    var remember = false
    var error: String?
    var signUp: String?
    /// The forgotten-password form, when the store sends e-mail.
    var forgot: String?
}

/// The signed-in person's page: this week, their groups with their progress and batons, the
/// latest runs, and their packs.
struct HomePage: PageModel {
    static let template = "home"
    var frame: Frame
    var week: Week
    var groups: [GroupRow]
    var runs: [RunListPage.Row]
    var packs: PacksPart
    /// New kudos and comments on the person's runs, when there are any.
    var reactions: Reactions? = nil
    /// Friends' runs that name the person as having run them too, to answer.
    var together: [TogetherAsk] = []
    /// The person's goals as rings, and the page that sets them.
    var goals: [GoalCard] = []
    var mine = Mine()
    var newGroup = SitePath.newGroup.path
    var allRuns = SitePath.runs().path
    var upload = SitePath.upload.path

    struct Week: Sendable, Equatable {
        var distance: String
        var runs: String
        /// The week's card, as SVG (and PNG, made by the page's script).
        var card = SitePath.weekCard.path
    }

    /// The person's own pages: goals, training, steps.
    struct Mine: Sendable, Equatable {
        var goals = SitePath.goals.path
        var training = SitePath.training(weeks: 12, days: 90).path
        var steps = SitePath.steps.path
    }

    struct GroupRow: Sendable, Equatable {
        var href: String
        var name: String
        var total: String
        var goal: String
        var percent: String
        /// Who holds the baton, or that it is free.
        var baton: String
        /// The group's events from when the page was drawn, which the page's script follows (nil:
        /// not followed, past the first `StoreRepository.followedMost` groups).
        var events: String? = nil
    }
}

extension HomePage.GroupRow {
    init(_ progress: Progress, reader: Reader) {
        let group = progress.group
        href = SitePath.group(group.id).path
        name = group.name
        total = PageFormat.distance(group.totalMM, reader.units)
        goal = PageFormat.distance(group.goalMM, reader.units)
        percent = PageFormat.percent(group.totalMM, of: group.goalMM)
        baton = progress.baton.holderName.map { "\($0) holds the baton" } ?? "the baton is free"
    }
}
