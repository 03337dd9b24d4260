import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// The live pages (issue 35): `/me/live` (the person's own live run, share links made and
/// revoked there) and `/live/{token}` (a share link: anyone holding it, signed in or not).
extension WebPages {
    func registerLivePages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.get, "/me/live") { _, _, account in
            Self.render(try await myLive(account))
        }
        router.signedIn(.post, "/me/live/links", next: { _ in SitePath.myLive.path }) { request, context, account in
            let form = try await Self.form(request, context)
            let back = Link(href: SitePath.myLive.path, label: "Back to your live run")
            guard let run = try await repository.currentLiveRun(account: account.id, now: services.now()) else {
                return Self.message(
                    "Nothing live", "There is no run of yours going on live now: a link is made during one.",
                    status: .conflict, account: account, link: back)
            }
            let hours = form["hours"].flatMap { Int($0) }
            do {
                let link = try await services.newLiveLink(run, hours: hours, origin: services.origin(request))
                var page = try await myLive(account)
                page.made = link.url
                return Self.render(page, status: .created)
            } catch let error as StoreError where error.status == .unprocessableContent || error.status == .conflict {
                return Self.message("No link made", error.message, status: error.status, account: account, link: back)
            }
        }
        router.signedIn(.post, "/me/live/links/:link/revoke", next: { _ in SitePath.myLive.path }) {
            _, context, account in
            let id = try context.id("link", "live_link")
            guard try await repository.revokeLiveLink(id, account: account.id, now: services.now()) else {
                return Self.message(
                    "No such link", "This link is not one of yours, or it was revoked already.", status: .notFound,
                    account: account, link: Link(href: SitePath.myLive.path, label: "Back to your live run"))
            }
            return Self.redirect(.myLive)
        }
        router.anyone(.get, "/live/:token") { request, context in
            let token = context.parameters.get("token") ?? ""
            let now = services.now()
            guard token.count == 64, token.allSatisfy(\.isHexDigit),
                let run = try await repository.liveRun(token: token, now: now)
            else {
                return Self.message(
                    "No live run here",
                    "This live link has ended: the run is over, the link expired, or its runner revoked it.",
                    status: .notFound)
            }
            let viewer = try await signedIn(request)
            let units = viewer.map { Reader($0).units } ?? .km
            let card = LiveCard(
                run, try await repository.livePoints(run), sight: .link, units: units, now: now,
                refresh: SitePath.live(token: token).path)
            var response = Self.render(
                LiveSharePage(frame: Frame("\(run.runner), live", viewer: viewer?.username), card: card))
            // The token is the page's address: it goes to no other site, and no index keeps it.
            response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
            response.headers[HTTPField.Name("X-Robots-Tag")!] = "noindex"
            return response
        }
    }

    /// The person's live page: their run going on now (if any), its links, the form for a new one.
    func myLive(_ account: Account) async throws -> MyLivePage {
        let now = services.now()
        var page = MyLivePage(frame: Frame("Live", viewer: account.username))
        guard let run = try await services.repository.currentLiveRun(account: account.id, now: now) else { return page }
        page.card = LiveCard(
            run, try await services.repository.livePoints(run), sight: .runner, units: Reader(account).units, now: now,
            refresh: SitePath.myLive.path)
        let zone = Reader(account).zone
        page.share = MyLivePage.Share(
            links: try await services.repository.liveLinks(run, now: now).map { link in
                MyLivePage.Row(
                    made: PageFormat.time(link.created, zone: zone),
                    until: link.expires.map { "until " + PageFormat.time($0, zone: zone).text } ?? "until the run ends",
                    revoke: SitePath.liveLinkRevoke(link.id).path)
            })
        return page
    }
}

/// `/me/live`: the person's run as their group sees it, and its share links.
struct MyLivePage: PageModel {
    static let template = "live-mine"
    var frame: Frame
    var card: LiveCard?
    var share: Share?
    /// A link just made: its address, shown this once.
    var made: String?

    struct Share: Sendable, Equatable {
        var action = SitePath.liveLinks.path
        var links: [Row]
    }

    struct Row: Sendable, Equatable {
        var made: TimeText
        var until: String
        var revoke: String
    }
}

/// `/live/{token}`: the run a share link shows.
struct LiveSharePage: PageModel {
    static let template = "live"
    var frame: Frame
    var card: LiveCard
}
