import Foundation
import HandoffModel

@testable import GroupStore

/// Page models built by hand, with a fixed clock: every page in each of its states. Every string in
/// a fixture goes through `t`, so the escaping property can put markup and quotes in all of them
/// (`PageModelTests` checks that none is missed).
struct PageFixture: Sendable {
    let name: String
    let model: any PageModel

    var html: String { render(model) }

    private func render<Model: PageModel>(_ model: Model) -> String { PageTemplates.shared.render(model) }

    /// 25 Nov 2026, 15:49:12 UTC: a Wednesday.
    static let now = WallInstant(nanosecondsSinceEpoch: 1_795_621_752 * nanosecondsPerSecond)

    static func all(_ t: @escaping @Sendable (String) -> String) -> [PageFixture] {
        let f = Fixtures(t: t)
        return [
            PageFixture(name: "login", model: f.login(error: nil)),
            PageFixture(name: "login-wrong-password", model: f.login(error: "That password is not this account's.")),
            PageFixture(name: "home", model: f.home(groups: true, packs: true)),
            PageFixture(name: "home-new", model: f.home(groups: false, packs: false)),
            PageFixture(name: "device-ask", model: f.device(.ask)),
            PageFixture(name: "device-error", model: f.device(.error)),
            PageFixture(name: "device-linked", model: f.device(.linked)),
            PageFixture(name: "group", model: f.group(.top)),
            PageFixture(name: "group-search", model: f.group(.search)),
            PageFixture(name: "group-search-none", model: f.group(.searchNone)),
            PageFixture(name: "group-after", model: f.group(.after)),
            PageFixture(name: "message", model: f.message(link: true)),
            PageFixture(name: "message-plain", model: f.message(link: false)),
        ]
    }
}

/// The fixtures' makers, each string through `t`.
private struct Fixtures {
    let t: @Sendable (String) -> String

    func frame(_ title: String, viewer: String?, current: SitePath? = nil) -> Frame {
        var frame = Frame(t(title), viewer: viewer.map(t), current: current)
        frame.home = t(frame.home)
        frame.stylesheet = t(frame.stylesheet)
        frame.nav = frame.nav.map { link($0) }
        if let viewer = frame.viewer { frame.viewer?.signOut = t(viewer.signOut) }
        return frame
    }

    func link(_ link: Link) -> Link { Link(href: t(link.href), label: t(link.label), current: link.current) }

    func time(_ secondsBefore: Int64) -> TimeText {
        let time = PageFormat.time(PageFixture.now.advanced(byNanoseconds: -secondsBefore * nanosecondsPerSecond))
        return TimeText(iso: t(time.iso), text: t(time.text))
    }

    func login(error: String?) -> LoginPage {
        var page = LoginPage(next: t("/groups/7"))
        page.frame = frame("Sign in", viewer: nil, current: .login())
        page.action = t(page.action)
        page.login = t(page.login)
        if let error {
            page.login = t("ada")
            page.remember = true
            page.error = t(error)
            page.signUp = t("/signup")
        }
        return page
    }

    func packs(_ any: Bool) -> PacksPart {
        var part = PacksPart(
            rows: any
                ? [
                    .init(
                        name: t("ada's pack"), linked: time(86_400 * 3), lastHeard: t("5 min"),
                        unlink: t("/devices/3/unlink")),
                    .init(
                        name: t("spare"), linked: time(86_400 * 40), lastHeard: t("12 days"),
                        unlink: t("/devices/9/unlink")),
                ] : [])
        part.link = t(part.link)
        return part
    }

    func home(groups: Bool, packs any: Bool) -> HomePage {
        HomePage(
            frame: frame("Your groups", viewer: "ada", current: .home),
            groups: groups
                ? [
                    Link(href: t("/groups/7"), label: t("Night owls")),
                    Link(href: t("/groups/8"), label: t("Track Tuesdays")),
                ]
                : [],
            packs: packs(any))
    }

    enum DeviceState { case ask, error, linked }

    func device(_ state: DeviceState) -> DevicePage {
        var page = DevicePage(viewer: "ada", code: "")
        page.frame = frame(state == .linked ? "Pack linked" : "Link a pack", viewer: "ada", current: .device())
        page.home = t(page.home)
        page.form = DevicePage.Form(action: t(SitePath.device().path), code: t("BCDF-GHJK"))
        switch state {
        case .ask: page.ask = .init(pack: t("ada's pack"), account: t("ada"))
        case .error: page.error = t("No pack is waiting with the code BCDF-GHJK.")
        case .linked:
            page.form = nil
            page.linked = t("ada's pack")
        }
        return page
    }

    enum GroupState { case top, search, searchNone, after }

    func row(_ rank: Int, _ name: String, km: Double, me: Bool = false, owner: Bool = false) -> GroupPageModel.Row {
        GroupPageModel.Row(
            rank: t(String(rank)), name: t(name), isOwner: owner, isMe: me, distance: t(String(format: "%.1f km", km)),
            week: t(String(format: "%.1f km", km / 4)), runs: t(String(Int(km / 5))))
    }

    func group(_ state: GroupState) -> GroupPageModel {
        var model = GroupPageModel(
            frame: frame("Night owls", viewer: "ada"),
            goal: .init(total: t("125.0 km"), target: t("500.0 km"), percent: t("25.0"), deadline: time(-86_400 * 30)),
            search: .init(action: t("/groups/7"), q: t("")),
            listing: .init(rows: []))
        model.held = .init(holder: t("bob"), since: time(5400), ago: t("1 h 30 min"))
        model.place = .init(rank: t("12"), count: t("40"), distance: t("8.0 km"))
        switch state {
        case .top:
            var mine = row(12, "ada", km: 8, me: true)
            mine.gapBefore = true
            model.listing = .init(rows: [row(1, "bob", km: 60, owner: true), row(2, "cleo", km: 40), mine])
            model.listing.former = t("3.0 km")
            model.pager = .init(top: nil, next: link(Link(href: "/groups/7?after=AAAA", label: "Next →")))
            model.legs = [
                .init(runner: t("bob"), taken: time(5400), ended: nil, how: t(""), distance: t("4.2 km")),
                .init(
                    runner: t("cleo"), taken: time(90_000), ended: time(86_000), how: t("passed to bob"),
                    distance: t("10.1 km")),
            ]
        case .search:
            model.search.q = t("da")
            model.listing = .init(
                rows: [row(11, "dan", km: 9), row(30, "dana", km: 2)], intro: t("Names that start with “da”:"))
            model.pager = .init(top: link(Link(href: "/groups/7", label: "Top")), next: nil)
        case .searchNone:
            model.held = nil
            model.search.q = t("zz")
            model.listing = .init(
                rows: [], intro: t("Names that start with “zz”:"), empty: t("No member's name starts with “zz”."))
            model.pager = .init(top: link(Link(href: "/groups/7", label: "Top")), next: nil)
        case .after:
            model.listing = .init(
                rows: [row(11, "dan", km: 9), row(12, "ada", km: 8, me: true)], empty: t("No more members."))
            model.pager = .init(
                top: link(Link(href: "/groups/7", label: "Top")),
                next: link(Link(href: "/groups/7?after=BBBB", label: "Next →")))
        }
        return model
    }

    func message(link with: Bool) -> MessagePage {
        var page = MessagePage(t("Try again in a moment"), t("The database is not answering: try again in a minute."))
        page.frame = frame("Try again in a moment", viewer: with ? "ada" : nil)
        if with { page.link = link(Link(href: "/", label: "Back to your page")) }
        return page
    }
}
