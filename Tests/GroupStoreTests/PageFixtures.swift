import ActivityFormats
import Foundation
import HandoffModel
import TestSupport

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

    static func all(_ t: @escaping @Sendable (String) -> String) throws -> [PageFixture] {
        let f = PageMakers(t: t)
        return [
            PageFixture(name: "signup", model: f.signUp(.open)),
            PageFixture(name: "signup-taken", model: f.signUp(.error)),
            PageFixture(name: "signup-invite-only", model: f.signUp(.closed)),
            PageFixture(name: "welcome", model: f.welcome()),
            PageFixture(name: "reset", model: f.reset(error: false)),
            PageFixture(name: "reset-weak", model: f.reset(error: true)),
            PageFixture(name: "settings", model: f.settings(notice: true)),
            PageFixture(name: "settings-error", model: f.settings(notice: false)),
            PageFixture(name: "group-new", model: f.newGroup(error: false)),
            PageFixture(name: "group-new-error", model: f.newGroup(error: true)),
            PageFixture(name: "join", model: f.join(.anonymous)),
            PageFixture(name: "join-member", model: f.join(.member)),
            PageFixture(name: "join-signed-in", model: f.join(.join)),
            PageFixture(name: "join-unknown", model: f.join(.unknown)),
            PageFixture(name: "group-owner", model: f.ownedGroup()),
            PageFixture(name: "runs", model: try f.runList(empty: false)),
            PageFixture(name: "feed", model: try f.feed(empty: false)),
            PageFixture(name: "feed-mine-none", model: try f.feed(empty: true)),
            PageFixture(name: "notifications", model: f.notifications(empty: false)),
            PageFixture(name: "notifications-none", model: f.notifications(empty: true)),
            PageFixture(name: "group-live", model: f.groupLive(.groupMate(.init(run: .groups, map: .groups))!)),
            PageFixture(name: "group-live-no-map", model: f.groupLive(.groupMate(.init(run: .groups, map: .friends))!)),
            PageFixture(name: "group-live-own", model: f.groupLive(.runner)),
            PageFixture(name: "live", model: f.liveShare()),
            PageFixture(name: "live-mine", model: f.myLive(live: true)),
            PageFixture(name: "live-mine-none", model: f.myLive(live: false)),
            PageFixture(name: "unsubscribe", model: f.ask(field: false)),
            PageFixture(name: "forgot", model: f.ask(field: true)),
            PageFixture(name: "friends", model: f.friends(full: true)),
            PageFixture(name: "friends-error", model: f.friends(full: false)),
            PageFixture(name: "runs-none", model: try f.runList(empty: true)),
            PageFixture(name: "upload", model: f.upload(results: false)),
            PageFixture(name: "upload-results", model: f.upload(results: true)),
            PageFixture(name: "run-delete", model: try f.runDelete()),
            PageFixture(name: "run", model: try f.run(.outdoor)),
            PageFixture(name: "run-indoor", model: try f.run(.indoor)),
            PageFixture(name: "run-friend", model: try f.run(.friend)),
            PageFixture(name: "person", model: try f.person(own: false)),
            PageFixture(name: "person-own", model: try f.person(own: true)),
            PageFixture(name: "person-friend", model: try f.person(own: false, friends: true)),
            PageFixture(name: "compare", model: try f.compare()),
            PageFixture(name: "run-friend-no-map", model: try f.run(.friendNoMap)),
            PageFixture(name: "run-unreadable", model: try f.run(.unreadable)),
            PageFixture(name: "run-tiles", model: try f.run(.tiles)),
            PageFixture(name: "login", model: f.login(error: nil)),
            PageFixture(name: "login-wrong-password", model: f.login(error: "That password is not this account's.")),
            PageFixture(name: "home", model: try f.home(groups: true, packs: true)),
            PageFixture(name: "home-new", model: try f.home(groups: false, packs: false)),
            PageFixture(name: "device-ask", model: f.device(.ask)),
            PageFixture(name: "unlink", model: f.unlink()),
            PageFixture(name: "device-error", model: f.device(.error)),
            PageFixture(name: "device-linked", model: f.device(.linked)),
            PageFixture(name: "group", model: f.group(.top)),
            PageFixture(name: "group-search", model: f.group(.search)),
            PageFixture(name: "group-search-none", model: f.group(.searchNone)),
            PageFixture(name: "group-after", model: f.group(.after)),
            PageFixture(name: "message", model: f.message(link: true)),
            PageFixture(name: "message-plain", model: f.message(link: false)),
            PageFixture(name: "report-comment", model: f.report(comment: true)),
            PageFixture(name: "share", model: f.share()),
            PageFixture(name: "report-profile-error", model: f.report(comment: false)),
            PageFixture(name: "training", model: f.training()),
            PageFixture(name: "goals", model: f.goals(error: false)),
            PageFixture(name: "goals-error", model: f.goals(error: true)),
            PageFixture(name: "steps", model: f.steps()),
            PageFixture(name: "steps-error", model: f.steps(error: true)),
        ]
    }
}

/// The fixtures' makers, each string through `t`.
struct PageMakers {
    let t: @Sendable (String) -> String

    func frame(_ title: String, viewer: String?, current: SitePath? = nil) -> Frame {
        var frame = Frame(t(title), viewer: viewer.map(t), current: current)
        frame.home = t(frame.home)
        // Not the stylesheet's version: the golden pages stay as they are when only it changes.
        frame.stylesheet = t("/static/style.css?v=golden")
        frame.script = t("/static/app.js?v=golden")
        frame.nav = frame.nav.map { link($0) }
        if let viewer = frame.viewer { frame.viewer?.signOut = t(viewer.signOut) }
        if let bell = frame.bell { frame.bell?.href = t(bell.href) }
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
            page.forgot = t("/forgot")
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

    func home(groups: Bool, packs any: Bool) throws -> HomePage {
        var page = HomePage(
            frame: frame("Home", viewer: "ada", current: .home), week: .init(distance: t("12.4 km"), runs: t("3")),
            groups: groups
                ? [
                    .init(
                        href: t("/groups/7"), name: t("Night owls"), total: t("125.0 km"), goal: t("500.0 km"),
                        percent: t("25.0"), baton: t("bob holds the baton"), events: t("/v1/groups/7/events?after=12")),
                    .init(
                        href: t("/groups/8"), name: t("Track Tuesdays"), total: t("0.0 km"), goal: t("100.0 km"),
                        percent: t("0.0"), baton: t("the baton is free")),
                ] : [],
            runs: groups ? try runList(empty: false).rows : [], packs: packs(any))
        (page.newGroup, page.allRuns, page.upload) = (t(page.newGroup), t(page.allRuns), t(page.upload))
        page.week.card = t(page.week.card)
        (page.mine.goals, page.mine.training, page.mine.steps) = (
            t(page.mine.goals), t(page.mine.training), t(page.mine.steps)
        )
        if groups {
            let at = WallInstant(nanosecondsSinceEpoch: 1_764_000_000_000_000_000)
            let run = (uuid: "0f8fad5b-d9cb-469f-a165-70867728950e", sport: "run", started: at)
            page.reactions = Reactions(
                count: 3,
                newest: [
                    Reaction(kind: .comment, from: "bob", at: at, run: run, text: "Strong finish!"),
                    Reaction(kind: .kudos, from: "cleo", at: at, run: run, text: nil),
                ], reader: .standard
            ).map { reactions in
                var reactions = reactions
                (reactions.title, reactions.seen) = (t(reactions.title), t(reactions.seen))
                reactions.items = reactions.items.map {
                    .init(
                        text: t($0.text), quote: $0.quote.map(t), href: t($0.href),
                        when: TimeText(iso: t($0.when.iso), text: t($0.when.text)))
                }
                return reactions
            }
            page.together = [together(TogetherAsk(Self.link, reader: .standard))]
            page.goals = goalCards(owner: nil).map {
                var card = $0
                card.delete = nil
                return card
            }
        }
        return page
    }

    func unlink() -> UnlinkPage {
        UnlinkPage(
            frame: frame("Unlink ada's pack?", viewer: "ada"), name: t("ada's pack"), action: t("/devices/3/unlink"),
            back: t("/settings"))
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
            goal: .init(
                total: t("125.0 km"), target: t("500.0 km"), percent: t("25.0"), deadline: time(-86_400 * 30),
                sports: t("Runs and walks count.")),
            search: .init(action: t("/groups/7"), q: t("")),
            listing: .init(rows: []))
        model.held = .init(holder: t("bob"), since: time(5400), ago: t("1 h 30 min"))
        model.events = t("/v1/groups/7/events")
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

/// The run pages' fixtures: the models built from a run made in the test (a steady 20-minute run
/// with a pause and a heart rate), then every string put through `t`.
extension PageMakers {
    static let runStart = PageFixture.now.advanced(byNanoseconds: -86_400 * nanosecondsPerSecond)

    /// Indoors: no positions, and two laps.
    static let indoorActivity: Activity = {
        var activity = Self.activity
        for index in activity.points.indices {
            activity.points[index].latitude = nil
            activity.points[index].longitude = nil
        }
        let half = activity.summary.statistics
        activity.laps = [
            Lap(index: 0, trigger: .manual, startElapsedSeconds: 0, endElapsedSeconds: 600, statistics: half),
            Lap(index: 1, trigger: .sessionEnd, startElapsedSeconds: 600, endElapsedSeconds: 1200, statistics: half),
        ]
        // A strap that misses a beat in every 10: its HRV is said to be untrustworthy.
        var beats = SimulatedStrap(seed: 34, minutes: 20, fromBPM: 120, toBPM: 170).beats()
        for i in stride(from: beats.count - 2, through: 0, by: -10) { beats[i] += beats.remove(at: i + 1) }
        activity.rrIntervals = SimulatedStrap.batches(beats)
        return activity
    }()

    static let activity: Activity = {
        var activity = RunFiles.activity(start: runStart, seconds: 1200, speed: 3.2)
        for index in activity.points.indices {
            activity.points[index].heartRateBPM = 120 + index % 40
            activity.points[index].altitudeMeters = 40 + Double(index % 300) / 10
            activity.points[index].cadenceSPM = 170
        }
        // The strap's beats, whose α1 falls through 0.75 as the heart rate rises.
        activity.rrIntervals = SimulatedStrap.batches(
            SimulatedStrap(seed: 34, minutes: 20, fromBPM: 120, toBPM: 170).beats())
        activity.events = [
            SessionEvent(offsetNanoseconds: 600 * nanosecondsPerSecond, kind: .pause),
            SessionEvent(offsetNanoseconds: 660 * nanosecondsPerSecond, kind: .resume),
        ]
        return activity
    }()

    static var storedRun: StoredRun {
        get throws {
            let pairs: [(String, SQLValue)] = [
                ("id", .integer(5)),
                ("uuid", .text("0f8fad5b-d9cb-469f-a165-70867728950e")),
                ("account_id", .integer(1)),
                ("started_ns", .integer(runStart.nanosecondsSinceEpoch)),
                ("elapsed_ms", .integer(1_200_000)),
                ("timer_ms", .integer(1_140_000)),
                ("distance_mm", .integer(3_840_000)),
                ("sport", .text("run")),
                ("format", .text("fit")),
                ("sha256", .text("00")),
                ("size", .integer(1000)),
                ("summary", .text("{}")),
                ("uploaded_ns", .integer(runStart.nanosecondsSinceEpoch)),
                ("heart_rate_avg", .integer(139)),
                ("visibility", .text("groups")),
                ("map_visibility", .text("friends")),
            ]
            return try StoredRun(
                SQLRow(
                    columns: Dictionary(uniqueKeysWithValues: pairs.enumerated().map { ($1.0, $0) }),
                    values: pairs.map(\.1)))
        }
    }

    func runList(empty: Bool) throws -> RunListPage {
        var page = RunListPage(
            runs: empty ? [] : [try Self.storedRun], next: empty ? nil : "1.2", reader: .standard, viewer: "ada")
        page.frame = frame("Your runs", viewer: "ada", current: .runs())
        page.upload = t(page.upload)
        page.rows = page.rows.map {
            .init(
                href: t($0.href), date: TimeText(iso: t($0.date.iso), text: t($0.date.text)), sport: t($0.sport),
                distance: t($0.distance), time: t($0.time), pace: t($0.pace), heartRate: t($0.heartRate))
        }
        page.next = page.next.map(link)
        return page
    }

    func upload(results: Bool) -> UploadPage {
        var page = UploadPage(viewer: "ada", limitBytes: 32 << 20, reader: .standard, now: PageFixture.now)
        page.frame = frame("Upload runs", viewer: "ada", current: .upload)
        page.action = t(page.action)
        page.limit = t(page.limit)
        (page.entry.action, page.entry.unit, page.entry.today) = (
            t(page.entry.action), t(page.entry.unit), t(page.entry.today)
        )
        page.entry.sports = page.entry.sports.map {
            Preferences.Choice(value: t($0.value), label: t($0.label), selected: $0.selected)
        }
        // The page after a refused entry says why.
        page.entry.error = results ? t("Give the duration as minutes (45), or as H:MM:SS or MM:SS (1:02:30).") : nil
        if results {
            page.results = [
                .init(
                    name: t("morning.fit"),
                    stored: link(Link(href: "/runs/0f8fad5b-d9cb-469f-a165-70867728950e", label: "Stored"))),
                .init(name: t("broken.gpx"), error: t("the GPX file cannot be read: not well-formed XML at line 1")),
            ]
        }
        return page
    }

    func runDelete() throws -> RunDeletePage {
        var page = RunDeletePage(
            run: try Self.storedRun,
            counts: [RunCount(groupID: 7, groupName: "Night owls", legID: 3, distanceMM: 3_840_000)],
            reader: .standard, viewer: "ada")
        page.frame = frame(page.frame.title, viewer: "ada")
        page.action = t(page.action)
        page.back = t(page.back)
        page.what = t(page.what)
        page.groups = page.groups.map(t)
        return page
    }

    /// `friend`: the page a friend of the runner sees; `friendNoMap`: one the runner hides the map from.
    enum RunState { case outdoor, indoor, unreadable, tiles, friend, friendNoMap }

    func run(_ state: RunState) throws -> RunPage {
        var page = RunPage(
            run: try Self.storedRun,
            counts: [RunCount(groupID: 7, groupName: "Night owls", legID: 3, distanceMM: 3_840_000)],
            notCounted: [.friend, .friendNoMap].contains(state)
                ? [] : [RunNotCounted(groupID: 8, groupName: "Track Tuesdays", reason: .startedBeforeJoining)],
            facts: (state == .indoor ? Self.indoorActivity : state == .unreadable ? nil : Self.activity).map(
                RunFacts.init),
            reader: .standard, viewer: "ada",
            tiles: state == .tiles
                ? try MapTiles(
                    template: "https://tile.example.org/{z}/{x}/{y}.png", attribution: "© OpenStreetMap contributors")
                : nil,
            // The runner's own maximum on the page with tiles; each run's highest on the others.
            maximumHeartRate: state == .tiles ? 190 : nil,
            runner: [.friend, .friendNoMap].contains(state) ? "bob" : nil, mapShown: state != .friendNoMap)
        page.frame = frame(page.frame.title, viewer: "ada")
        page.social = social(state, runner: page.social.runner?.label)
        page.stats = page.stats.map { .init(label: t($0.label), value: t($0.value)) }
        page.map = page.map.map(map)
        page.noMap = page.noMap.map(t)
        page.charts = page.charts.map(chart)
        page.splits = page.splits.map { splits in
            .init(
                unit: t(splits.unit),
                rows: splits.rows.map {
                    .init(
                        number: t($0.number), time: t($0.time), pace: t($0.pace), heartRate: t($0.heartRate),
                        climb: t($0.climb))
                }, pace: t(splits.pace))
        }
        page.laps = page.laps.map { laps in
            .init(
                pace: t(laps.pace),
                rows: laps.rows.map {
                    .init(
                        number: t($0.number), trigger: t($0.trigger), distance: t($0.distance), time: t($0.time),
                        pace: t($0.pace), heartRate: t($0.heartRate))
                })
        }
        page.breaks = page.breaks.map(t)
        page.actions = page.actions.map {
            .init(
                downloads: $0.downloads.map(link), delete: t($0.delete), audience: audience($0.audience),
                sport: sportForm($0.sport))
        }
        page.groups = page.groups.map { groups in
            .init(
                counted: groups.counted.map { .init(group: link($0.group), distance: t($0.distance), baton: $0.baton) },
                notCounted: groups.notCounted.map(t))
        }
        page.unreadable = page.unreadable.map(t)
        return page
    }

    /// Kudos and comments: the owner's view (two comments, one theirs), a friend's (a form and
    /// a button), and nobody signed in (a link to sign in) on the page without a map.
    func social(_ state: RunState, runner: String?) -> RunSocial {
        let at = WallInstant(nanosecondsSinceEpoch: 1_764_000_000_000_000_000)
        let comments = [
            StoredComment(
                id: 1, author: "bob", authorID: 2, text: "Strong finish!\nSee you Tuesday.", created: at, edited: nil),
            StoredComment(id: 2, author: "ada", authorID: 1, text: "Thanks", created: at, edited: at, hidden: true),
        ]
        let ada = Account(
            id: state == .friend ? 3 : 1, email: "ada@example.org", username: "ada", passwordHash: "", created: at)
        var social = RunSocial(
            runner: runner, uuid: "0f8fad5b-d9cb-469f-a165-70867728950e",
            kudos: RunKudos(count: 2, given: state == .friend, from: ["bob", "cleo"]),
            comments: [.outdoor, .friend].contains(state) ? comments : [],
            viewer: state == .friendNoMap ? nil : ada, owner: ![.friend, .friendNoMap].contains(state),
            reader: .standard)
        if let run = try? Self.storedRun {
            social.post(
                RunPost(
                    title: state == .outdoor ? "Hills" : nil,
                    description: state == .indoor ? nil : "Windy.\nLegs heavy."),
                run: run, zone: "UTC", reader: .standard, owner: ![.friend, .friendNoMap].contains(state))
        }
        social.when = social.when.map { TimeText(iso: t($0.iso), text: t($0.text)) }
        social.description = social.description.map(t)
        social.post = social.post.map {
            .init(action: t($0.action), title: t($0.title), standard: t($0.standard), description: t($0.description))
        }
        social.runner = social.runner.map(link)
        social.kudos = t(social.kudos)
        social.kudosButton = social.kudosButton.map {
            .init(action: t($0.action), value: t($0.value), label: t($0.label))
        }
        social.comments = social.comments.map {
            .init(
                id: t($0.id), author: link($0.author), when: TimeText(iso: t($0.when.iso), text: t($0.when.text)),
                text: t($0.text), edited: $0.edited, edit: $0.edit.map(t), delete: $0.delete.map(t),
                report: $0.report.map(t), hidden: $0.hidden)
        }
        social.comment = social.comment.map(t)
        social.signIn = social.signIn.map(link)
        if [.outdoor, .friend].contains(state) { social.extras.photos = runPhotos(owner: state == .outdoor) }
        if [.outdoor, .friend].contains(state) { social.extras.together = togetherPart(owner: state == .outdoor) }
        if state == .outdoor {
            let uuid = "0f8fad5b-d9cb-469f-a165-70867728950e"
            social.extras.share = ShareLinks(
                svg: t(SitePath.runCard(uuid).path), name: t("run-2026-06-07.svg"),
                page: t(SitePath.runShare(uuid).path),
                hint: t("Anyone with the link opens its share page, without an account."))
        }
        return social
    }

    func map(_ map: RunMap) -> RunMap {
        var map = map
        (map.viewBox, map.originX, map.originY, map.scale) = (
            t(map.viewBox), t(map.originX), t(map.originY), t(map.scale)
        )
        map.lines = map.lines.map(t)
        map.gaps = map.gaps.map { .init(x1: t($0.x1), y1: t($0.y1), x2: t($0.x2), y2: t($0.y2)) }
        map.start = map.start.map { .init(x: t($0.x), y: t($0.y)) }
        map.finish = map.finish.map { .init(x: t($0.x), y: t($0.y)) }
        map.marks = map.marks.map { .init(x: t($0.x), y: t($0.y), label: t($0.label)) }
        (map.label, map.note) = (t(map.label), t(map.note))
        map.tiles = map.tiles.map { tiles in
            var tiles = tiles
            tiles.images = tiles.images.map { .init(href: t($0.href), x: t($0.x), y: t($0.y), size: t($0.size)) }
            (tiles.attribution, tiles.x, tiles.y) = (t(tiles.attribution), t(tiles.x), t(tiles.y))
            return tiles
        }
        return map
    }

    func chart(_ chart: RunChart) -> RunChart {
        var chart = chart
        (chart.id, chart.title, chart.label, chart.viewBox) = (
            t(chart.id), t(chart.title), t(chart.label), t(chart.viewBox)
        )
        chart.lines = chart.lines.map(t)
        let band = { (b: RunChart.Band) in
            RunChart.Band(
                x: t(b.x), y: t(b.y), width: t(b.width), height: t(b.height), kind: t(b.kind), label: t(b.label))
        }
        chart.bands = chart.bands.map(band)
        chart.pauses = chart.pauses.map(band)
        chart.yTicks = chart.yTicks.map { .init(x: t($0.x), y: t($0.y), label: t($0.label)) }
        chart.xTicks = chart.xTicks.map { .init(x: t($0.x), y: t($0.y), label: t($0.label)) }
        (chart.axisRight, chart.note) = (t(chart.axisRight), chart.note.map(t))
        chart.scale = .init(bottom: t(chart.scale.bottom), top: t(chart.scale.top))
        return chart
    }
}

/// The account and group forms' fixtures.
extension PageMakers {
    func preferences(next: String) -> Preferences {
        var preferences = Preferences(
            Reader(units: .mi, zone: "Europe/Vienna"), next: next, zones: ["UTC", "America/New_York", "Europe/Vienna"])
        preferences.action = t(preferences.action)
        preferences.next = t(preferences.next)
        preferences.units = preferences.units.map {
            .init(value: t($0.value), label: t($0.label), selected: $0.selected)
        }
        preferences.zones = preferences.zones.map { .init(name: t($0.name), selected: $0.selected) }
        return preferences
    }

    enum SignUpState { case open, error, closed }

    func signUp(_ state: SignUpState) -> SignUpPage {
        var page = SignUpPage(policy: state == .closed ? .invite : .open, invite: state == .error ? "abcdefghjk" : nil)
        page.frame = frame("Create an account", viewer: nil, current: .signup())
        page.signIn = t(page.signIn)
        page.closed = page.closed.map(t)
        if var form = page.form {
            form.action = t(form.action)
            form.invite = t(form.invite)
            form.email = t(state == .error ? "ada@example.org" : "")
            form.username = t(state == .error ? "ada" : "")
            page.form = form
        }
        if state == .error { page.error = t("the username ada is taken: choose another") }
        return page
    }

    func reset(error: Bool) -> ResetPage {
        var page = ResetPage(username: t("ada"), action: t("/reset/0123abcd"))
        page.frame = frame("Choose a new password", viewer: nil)
        if error { page.error = t("a password is at least 10 characters") }
        return page
    }

    func welcome() -> WelcomePage {
        var page = WelcomePage(viewer: "ada", reader: .standard, origin: "https://club.example.org")
        page.frame = frame(page.frame.title, viewer: "ada")
        page.preferences = preferences(next: "/welcome")
        (page.command, page.device, page.newGroup, page.home) = (
            t(page.command), t(page.device), t(page.newGroup), t(page.home)
        )
        return page
    }

    func settings(notice: Bool) -> SettingsPage {
        var account = Account(
            id: 1, email: "ada@example.org", username: "ada", passwordHash: "", created: PageFixture.now)
        account.units = "mi"
        account.maximumHeartRate = notice ? 188 : nil
        var profile = Profile()
        if notice {
            profile.values = [.nickname: "Ada <L>", .height: "168", .weight: "58.5", .gender: "woman"]
            profile.levels = [.nickname: .public, .height: .friends]
        }
        var page = SettingsPage(
            account: account, packs: packs(notice), runs: 12, groups: notice ? 2 : 0, profile: profile,
            now: PageFixture.now)
        page.frame = frame("Settings", viewer: "ada", current: .settings)
        page.profile.action = t(page.profile.action)
        page.profile.fields = page.profile.fields.map { field in
            var field = field
            (field.name, field.label, field.value, field.who) = (
                t(field.name), t(field.label), t(field.value), t(field.who)
            )
            field.number = field.number.map { .init(min: t($0.min), max: t($0.max), step: t($0.step)) }
            field.menu = field.menu.map { .init(choices: $0.choices.map(choice)) }
            field.levels = field.levels.map(choice)
            return field
        }
        page.preferences = preferences(next: "/settings")
        if notice {
            page.notice = t("Saved your username and email.")
        } else {
            page.error = t("give your current password")
        }
        page.account = .init(
            action: t(page.account.action), username: t(page.account.username), email: t(page.account.email))
        (page.password, page.export) = (t(page.password), t(page.export))
        page.heart = .init(
            action: t(page.heart.action), maximum: t(page.heart.maximum), goal: t(notice ? "25" : ""),
            goalAction: t(page.heart.goalAction), unit: t(page.heart.unit))
        page.heart.resting = t(notice ? "52" : "")
        page.audience = audience(page.audience)
        page.delete = .init(action: t(page.delete.action), consequence: t(page.delete.consequence))
        page.profile.photo = photoForm(notice ? Self.photos[1] : nil)
        return page
    }

    func choice(_ c: Preferences.Choice) -> Preferences.Choice {
        Preferences.Choice(value: t(c.value), label: t(c.label), selected: c.selected)
    }

    /// bob's page as ada sees it (a friend: nickname, height; not asked yet: the button), and
    /// ada's own page without runs.
    func person(own: Bool, friends: Bool = false) throws -> PersonPage {
        let run = try Self.storedRun
        let person = SeenPerson(
            id: 2, username: own ? "ada" : "bob", relation: .init(isOwner: own, isFriend: friends),
            friendship: friends ? .friends : nil,
            fields: own ? [] : [(.nickname, "Bobby <B>"), (.height, "181"), (.gender, "man")],
            totals: .init(runs: own ? 0 : 12, distanceMM: 84_000_000, timerMS: 30_000_000, longestMM: 21_100_000),
            recent: own ? [] : [run])
        var page = PersonPage(person, reader: .standard, viewer: "ada")
        page.frame = frame(page.frame.title, viewer: "ada")
        (page.avatar.initials, page.avatar.colour, page.avatar.label) = (
            t(page.avatar.initials), t(page.avatar.colour), t(page.avatar.label)
        )
        page.username = t(page.username)
        if friends { page.avatar.photo = picture(Picture(Self.photos[0], alt: "bob's photo")) }
        page.fields = page.fields.map { .init(label: t($0.label), value: t($0.value)) }
        page.totals = page.totals.map { .init(label: t($0.label), value: t($0.value)) }
        page.runs = page.runs.map {
            .init(
                href: t($0.href), date: TimeText(iso: t($0.date.iso), text: t($0.date.text)), sport: t($0.sport),
                distance: t($0.distance), time: t($0.time), pace: t($0.pace), heartRate: t($0.heartRate))
        }
        page.friendship = page.friendship.map(t)
        page.ask = page.ask.map { .init(action: t($0.action), username: t($0.username)) }
        page.links.edit = page.links.edit.map(t)
        page.links.others = page.links.others.map { .init(compare: link($0.compare), report: t($0.report)) }
        var level = PersonPage.LevelPart(
            Level(distanceMM: 222_500_000, longestRunMM: 42_500_000, weeklyGoals: [], carried: true, groupGoal: false))
        (level.title, level.next) = (t(level.title), t(level.next))
        level.objectives = level.objectives.map { .init(name: t($0.name), rule: t($0.rule), done: $0.done) }
        page.more.level = level
        if own || friends {
            page.more.goals = goalCards(owner: own ? nil : "bob").map {
                var card = $0
                card.delete = nil
                return card
            }
        }
        if friends {
            page.more.records = [
                .init(
                    sport: t("Run"), name: t("5 km"), time: t("23:30"), distance: t("5.00 km"),
                    run: link(
                        Link(href: "/runs/0f8fad5b-d9cb-469f-a165-70867728950e", label: "Sun 7 Jun 2026, 07:00 UTC")),
                    week: nil),
                .init(
                    sport: t("Run"), name: t("Biggest week"), time: t("4:02:10"), distance: t("48.20 km"), run: nil,
                    week: t("Week of 1 Jun 2026")),
            ]
            page.more.together = [
                .init(
                    run: link(Link(href: "/runs/0f8fad5b-d9cb-469f-a165-70867728950e", label: "Morning run, 7 Jun")),
                    runner: link(Link(href: "/people/cleo", label: "cleo")))
            ]
        }
        page.atom = t(page.atom)
        page.empty = t(page.empty)
        return page
    }

    /// ada and bob over the four periods, bob ahead this week.
    func compare() throws -> ComparePage {
        let now = PageFixture.now
        let bob = SeenPerson(
            id: 2, username: "bob", relation: .init(isFriend: true), friendship: .friends, fields: [],
            totals: .init(runs: 0, distanceMM: 0, timerMS: 0, longestMM: 0), recent: [])
        let tally = { (n: Int64, km: Int64) in
            Comparison.Tally(runs: n, distanceMM: km * 1_000_000, timerMS: km * 330_000, longestMM: km * 400_000)
        }
        var periods: [(period: ComparePeriod, mine: Comparison.Tally, theirs: Comparison.Tally)] = []
        for (index, period) in ComparePeriod.allCases.enumerated() {
            let n = Int64(index)
            periods.append((period, tally(n + 1, 10 * (n + 1)), tally(n, 12 * n)))
        }
        var weeks: [(start: Int64, mine: Int64, theirs: Int64)] = []
        let week: Int64 = 7 * 86_400 * nanosecondsPerSecond
        for index in Int64(0)..<12 {
            weeks.append((weekStart(now) - (11 - index) * week, index * 2_000_000, (12 - index) * 1_500_000))
        }
        let comparison = Comparison(other: bob, periods: periods, weeks: weeks)
        var page = ComparePage(comparison, reader: .standard, viewer: "ada")
        page.frame = frame(page.frame.title, viewer: "ada")
        (page.you, page.them, page.note) = (t(page.you), t(page.them), t(page.note))
        page.periods = page.periods.map { period in
            ComparePage.Period(
                title: t(period.title),
                rows: period.rows.map { ComparePage.Row(label: t($0.label), mine: t($0.mine), theirs: t($0.theirs)) })
        }
        page.chart.label = t(page.chart.label)
        page.chart.top = t(page.chart.top)
        page.chart.bars = page.chart.bars.map {
            ComparePage.Bar(x: t($0.x), y: t($0.y), height: t($0.height), mine: $0.mine, title: t($0.title))
        }
        page.chart.ticks = page.chart.ticks.map { ComparePage.Tick(x: t($0.x), label: t($0.label)) }
        return page
    }

    func sportForm(_ form: SportForm) -> SportForm {
        var form = form
        form.action = t(form.action)
        form.choices = form.choices.map {
            Preferences.Choice(value: t($0.value), label: t($0.label), selected: $0.selected)
        }
        return form
    }

    func audience(_ form: AudienceForm) -> AudienceForm {
        var form = form
        (form.action, form.runLabel) = (t(form.action), t(form.runLabel))
        let choice = { (c: Preferences.Choice) in
            Preferences.Choice(value: t(c.value), label: t(c.label), selected: c.selected)
        }
        (form.run, form.map) = (form.run.map(choice), form.map.map(choice))
        return form
    }

    func groupForm(_ form: GroupForm) -> GroupForm {
        var form = form
        (form.action, form.button, form.name, form.unit) = (t(form.action), t(form.button), t(form.name), t(form.unit))
        (form.goal, form.deadline, form.lease) = (t(form.goal), t(form.deadline), t(form.lease))
        return form
    }

    func newGroup(error: Bool) -> NewGroupPage {
        var form = GroupForm(reader: .standard, leaseSeconds: 6 * 3600)
        if error { (form.name, form.goal, form.autoPass) = ("Night owls", "-5", true) }
        return NewGroupPage(
            frame: frame("Create a group", viewer: "ada", current: .newGroup),
            error: error ? t("the goal is a distance in metres, from 1 m to 100,000 km") : nil,
            groupForm: groupForm(form))
    }

    enum JoinState { case anonymous, member, join, unknown }

    func join(_ state: JoinState) -> JoinPage {
        var page = JoinPage(
            frame: frame(
                state == .unknown ? "No such invitation" : "Join Night owls", viewer: state == .anonymous ? nil : "ada")
        )
        guard state != .unknown else {
            page.error = t("No group has this invite link: check it with the person who sent it.")
            return page
        }
        page.group = .init(
            total: t("125.0 km"), goal: t("500.0 km"), deadline: time(-86_400 * 30), count: t("3 members"),
            members: [t("bob"), t("cleo"), t("dan")])
        switch state {
        case .anonymous:
            page.anonymous = .init(signUp: t("/signup?invite=abcdefghjk"), signIn: t("/login?next=/join/abcdefghjk"))
        case .member: page.member = t("/groups/7")
        default: page.join = t("/join/abcdefghjk")
        }
        return page
    }

    /// The owner's view of the group page: invite, settings, remove buttons, leave.
    func ownedGroup() -> GroupPageModel {
        var model = group(.top)
        model.invite = .init(link: t("https://club.example.org/join/abcdefghjk"), renew: t("/groups/7/invite"))
        var form = GroupForm(reader: .standard, leaseSeconds: 6 * 3600)
        (form.action, form.button, form.name, form.goal, form.deadline) = (
            "/groups/7/edit", "Save", "Night owls", "500", "2026-12-25"
        )
        model.manage = .init(
            groupForm: groupForm(form),
            rotation: [
                .init(name: t("bob"), earlier: nil, later: t("/groups/7/rotation/2/later")),
                .init(
                    name: t("cleo"), earlier: t("/groups/7/rotation/3/earlier"), later: t("/groups/7/rotation/3/later")),
                .init(name: t("ada"), earlier: t("/groups/7/rotation/1/earlier"), later: nil),
            ])
        model.leave = .init(action: t("/groups/7/leave"), consequence: t("What you ran stays in the group's total."))
        for index in model.listing.rows.indices where !model.listing.rows[index].isMe {
            model.listing.rows[index].remove = t("/groups/7/members/\(index + 2)/remove")
        }
        return model
    }
}

/// The feed's and the friends page's fixtures.
extension PageMakers {
    func feed(empty: Bool) throws -> FeedPage {
        let run = try Self.storedRun
        var page = FeedPage(
            runs: empty
                ? []
                : [
                    FeedRun(
                        run: run, runner: "ada", map: true, kudos: 2, comments: 1,
                        post: RunPost(title: "Hills <3", description: "Windy.\nLegs heavy."), zone: "UTC",
                        thumbnail: RunFacts(Self.activity).thumbnail()),
                    FeedRun(run: run, runner: "bob", map: false, thumbnail: "4,4 60,60"),
                ],
            scope: empty ? .mine : .everyone, next: empty ? nil : "1.2", reader: .standard, viewer: "ada")
        page.frame = frame("Feed", viewer: "ada", current: .feed())
        page.scope.action = t(page.scope.action)
        page.rows = page.rows.map {
            .init(
                runner: link($0.runner), mine: $0.mine, href: t($0.href),
                when: TimeText(iso: t($0.when.iso), text: t($0.when.text)), sport: t($0.sport),
                distance: t($0.distance), time: t($0.time), pace: t($0.pace), responses: $0.responses.map(t),
                title: t($0.title), description: $0.description.map(t),
                media: .init(
                    thumbnail: $0.media.thumbnail.map { .init(lines: $0.lines.map(t)) },
                    photos: $0.mine ? Self.photos.map { picture(Picture($0, alt: "Photo of ada's run")) } : []))
        }
        page.next = page.next.map(link)
        page.empty = t(page.empty)
        if !empty {
            page.follow = [
                .init(
                    events: t("/v1/groups/7/events?after=12"), name: t("Night <owls>"), units: t("km"), href: t("/feed")
                )
            ]
        }
        return page
    }

    func friends(full: Bool) -> FriendsPage {
        var page = FriendsPage(
            friends: full
                ? [(2, "bob", .friends), (3, "cleo", .asking), (4, "dan", .asked)] : [(4, "dan", .asked)],
            blocked: full ? [(5, "eve")] : [], viewer: "ada")
        page.frame = frame("Friends", viewer: "ada", current: .friends)
        if full {
            page.notice = t("You are friends now.")
        } else {
            page.error = t("no runner has this username: check its spelling with the person")
            page.username = "nobody"
        }
        page.username = t(page.username)
        page.ask = t(page.ask)
        let person = { (p: FriendsPage.Person) in
            FriendsPage.Person(
                name: t(p.name), href: t(p.href),
                actions: p.actions.map { .init(action: t($0.action), label: t($0.label), quiet: $0.quiet) })
        }
        (page.friends, page.asking, page.asked, page.blocked) = (
            page.friends.map(person), page.asking.map(person), page.asked.map(person), page.blocked.map(person)
        )
        return page
    }
}
