import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// A group's page, for its members.
extension WebPages {
    func registerGroupPages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.get, "/groups/:group", next: { $0.uri.path }) { request, context, account in
            let now = services.now()
            do {
                let id = try context.id("group", "group")
                let listing = try GroupPage.Listing(request)
                // The group's last event before anything is read: the page's script follows the
                // events after it, so nothing that happens from here on is missed.
                let seen = try await repository.groupEvents(team: id, after: 0, limit: 0).lastID
                let progress = try await repository.progress(
                    id, account: account.id, members: GroupPage.top, now: now)
                var page: Page<Member>?
                switch listing {
                case .top: break
                case .after(let cursor):
                    page =
                        try await repository.members(
                            id, account: account.id, order: .distance, after: cursor, limit: GroupPage.perPage,
                            now: now
                        ).page
                case .search(_, let prefix, let cursor):
                    page =
                        try await repository.members(
                            id, account: account.id, order: .name(prefix: prefix), after: cursor,
                            limit: GroupPage.perPage, now: now
                        ).page
                }
                // The owner sees the rotation's first members, to move them.
                let rotation =
                    progress.group.ownerID == account.id
                    ? try await repository.members(
                        id, account: account.id, order: .rotation, after: nil, limit: GroupPage.perPage, now: now
                    ).page.rows : []
                var model = GroupPage.model(
                    progress, listing, page, now: now, viewer: account.username, reader: Reader(account),
                    origin: services.origin(request), rotation: rotation)
                model.events += "?after=\(seen)"
                // The holder out live: their run so far, as the holder lets group-mates see it.
                if model.held != nil,
                    let run = try await repository.holderLiveRun(team: id, viewer: account.id, now: now),
                    let sight = run.account == account.id ? LiveSight.runner : LiveSight.groupMate(run.audience)
                {
                    model.held?.live = LiveCard(
                        run, try await repository.livePoints(run), sight: sight, units: Reader(account).units,
                        now: now, refresh: SitePath.group(id).path)
                }
                return Self.render(model)
            } catch let error as StoreError where error.status == .notFound {
                return Self.message("Not found", error.message, status: .notFound, account: account)
            } catch let error as StoreError where [.unprocessableContent, .badRequest].contains(error.status) {
                let message =
                    error.code == "invalid_cursor"
                    ? "This link to a page of members is not one this site made (or it was cut short)." : error.message
                let back = SitePath.group(Int64(context.parameters.get("group") ?? "") ?? 0).path
                return Self.message(
                    "Not a page of this group", message, status: error.status, account: account,
                    link: Link(href: back, label: "Back to the group's page"))
            }
        }
    }
}

/// A group's page: the goal as a bar, the baton, the top members and the viewer's place, a
/// search by name, further members a page at a time, recent legs. It works without scripts
/// (links and a GET form), and its size does not grow with the group's.
enum GroupPage {
    /// Members shown at the top of the page.
    static let top = 10
    /// Members on each further page, and found by a search.
    static let perPage = 50

    /// Which members the page lists.
    enum Listing {
        /// The top members by distance, and the viewer's place.
        case top
        /// The members by distance after a cursor (`?after=`).
        case after(PageCursor)
        /// Members whose name starts with `q` (`?q=`), its key `prefix`, after a cursor.
        case search(q: String, prefix: String, after: PageCursor?)

        init(_ request: Request) throws(StoreError) {
            let q = try request.query("q").map { text throws(StoreError) in
                try TextRules.plain(text, field: "search").trimmingCharacters(in: .whitespaces)
            }
            if let q, !q.isEmpty {
                guard q.count <= 64 else {
                    throw StoreError(
                        .unprocessableContent, "invalid_query", "a search is the start of a name: 64 characters at most"
                    )
                }
                self = .search(q: q, prefix: TextRules.key(q), after: try request.pageCursor(.name, parameter: "after"))
            } else if let cursor = try request.pageCursor(.distance, parameter: "after") {
                self = .after(cursor)
            } else {
                self = .top
            }
        }
    }

    /// The page's model: what the viewer may see of the group, as text.
    static func model(
        _ progress: Progress, _ listing: Listing, _ page: Page<Member>?, now: WallInstant, viewer: String,
        reader: Reader = .standard, origin: String = "", rotation: [Member] = []
    ) -> GroupPageModel {
        let units = reader.units
        let isOwner = progress.me?.accountID != nil && progress.me?.accountID == progress.group.ownerID
        let group = progress.group
        var model = GroupPageModel(
            frame: Frame(group.name, viewer: viewer),
            goal: .init(
                total: PageFormat.distance(group.totalMM, units), target: PageFormat.distance(group.goalMM, units),
                percent: PageFormat.percent(group.totalMM, of: group.goalMM),
                deadline: group.deadline.map { PageFormat.time($0, zone: reader.zone) },
                sports: group.sports.sentence),
            search: .init(action: SitePath.group(group.id).path, q: ""),
            listing: .init(rows: []))
        model.events = "/v1/groups/\(group.id)/events"
        if let holder = progress.baton.holderName, let since = progress.baton.since {
            model.held = .init(
                holder: holder, since: PageFormat.time(since, zone: reader.zone),
                ago: PageFormat.duration(now.nanosecondsSinceEpoch - since.nanosecondsSinceEpoch))
        }
        if let me = progress.me, let rank = me.rank {
            model.place = .init(
                rank: String(rank), count: String(progress.memberCount),
                distance: PageFormat.distance(me.distanceMM, units))
        }
        let next: String?
        switch listing {
        case .top:
            var rows = progress.members.map { row($0, progress, units) }
            if let me = progress.me, !progress.members.contains(where: { $0.accountID == me.accountID }) {
                var mine = row(me, progress, units)
                mine.gapBefore = true
                rows.append(mine)
            }
            model.listing = .init(rows: rows)
            if group.formerMM > 0 { model.listing.former = PageFormat.distance(group.formerMM, units) }
            next = progress.top.next.map { SitePath.group(group.id, after: $0.text).path }
        case .after:
            model.listing = .init(rows: (page?.rows ?? []).map { row($0, progress, units) }, empty: "No more members.")
            next = page?.next.map { SitePath.group(group.id, after: $0.text).path }
        case .search(let q, _, _):
            model.search.q = q
            model.listing = .init(
                rows: (page?.rows ?? []).map { row($0, progress, units) },
                intro: "Names that start with “\(q)”:", empty: "No member's name starts with “\(q)”.")
            next = page?.next.map { SitePath.group(group.id, q: q, after: $0.text).path }
        }
        var top: Link?
        if case .top = listing {} else { top = Link(href: SitePath.group(group.id).path, label: "Top") }
        model.invite = GroupPageModel.Invite(
            link: origin + SitePath.join(group.inviteCode).path,
            renew: isOwner ? SitePath.newInvite(group.id).path : nil)
        if isOwner {
            model.manage = GroupPageModel.Manage(
                groupForm: GroupForm(group, reader: reader),
                rotation: rotation.enumerated().map { index, member in
                    GroupPageModel.Turn(
                        name: member.username,
                        earlier: index > 0
                            ? SitePath.moveInRotation(group.id, member.accountID, earlier: true).path : nil,
                        later: index < rotation.count - 1
                            ? SitePath.moveInRotation(group.id, member.accountID, earlier: false).path : nil)
                })
        }
        model.leave = GroupPageModel.Leave(
            action: SitePath.leaveGroup(group.id).path,
            consequence: "What you ran stays in the group's total, as a former member's"
                + (isOwner ? "; the group passes to its longest-standing member." : "."))
        if top != nil || next != nil {
            model.pager = .init(top: top, next: next.map { Link(href: $0, label: "Next →") })
        }
        model.legs = progress.legs.rows.map { leg in
            GroupPageModel.Leg(
                runner: leg.username ?? "a former member", taken: PageFormat.time(leg.taken, zone: reader.zone),
                ended: leg.ended.map { PageFormat.time($0, zone: reader.zone) },
                how: (leg.endedHow ?? "") + (leg.passedTo.map { " to " + $0 } ?? ""),
                distance: PageFormat.distance(leg.distanceMM, units))
        }
        return model
    }

    /// One member's row: their place where known, name, distance, this week, runs.
    static func row(_ member: Member, _ progress: Progress, _ units: Units) -> GroupPageModel.Row {
        let viewer = progress.me?.accountID
        let byOwner = viewer != nil && viewer == progress.group.ownerID && member.accountID != viewer
        return GroupPageModel.Row(
            rank: member.rank.map(String.init) ?? "", name: member.username,
            isOwner: member.accountID == progress.group.ownerID, isMe: member.accountID == progress.me?.accountID,
            distance: PageFormat.distance(member.distanceMM, units), week: PageFormat.distance(member.weekMM, units),
            runs: String(member.runs),
            remove: byOwner ? SitePath.removeMember(progress.group.id, member.accountID).path : nil)
    }
}

/// A group's page as text: the goal, the baton, the members listed, the legs.
struct GroupPageModel: PageModel {
    static let template = "group"
    var frame: Frame
    var goal: Goal
    var held: Held?
    var place: Place?
    var search: Search
    var listing: Listing
    /// The links to the top and the next page of members, when there is one.
    var pager: Pager?
    var legs: [Leg] = []
    /// The invite link, for every member.
    var invite: Invite?
    /// The group's settings, for its owner.
    var manage: Manage?
    var leave: Leave?
    /// The group's event stream, which the page's script follows (the baton's line changes in
    /// place; anything else reloads the page).
    var events = ""

    struct Invite: Sendable, Equatable {
        var link: String
        /// Where the owner asks for a new link (the old one stops working).
        var renew: String?
    }

    struct Manage: Sendable, Equatable {
        var groupForm: GroupForm
        /// The first members in turn, each with buttons that move them.
        var rotation: [Turn] = []
    }

    struct Turn: Sendable, Equatable {
        var name: String
        var earlier: String?
        var later: String?
    }

    struct Leave: Sendable, Equatable {
        var action: String
        var consequence: String
    }

    struct Pager: Sendable, Equatable {
        var top: Link?
        var next: Link?
    }

    struct Goal: Sendable, Equatable {
        var total: String
        var target: String
        var percent: String
        var deadline: TimeText?
        /// Which sports count, and by what factor: "Runs and walks count."
        var sports: String
    }

    struct Held: Sendable, Equatable {
        var holder: String
        var since: TimeText
        var ago: String
        /// The holder's run as it happens, when they are out live and let the viewer see it.
        var live: LiveCard?
    }

    struct Place: Sendable, Equatable {
        var rank: String
        var count: String
        var distance: String
    }

    struct Search: Sendable, Equatable {
        var action: String
        var q: String
    }

    struct Listing: Sendable, Equatable {
        var rows: [Row]
        var intro: String?
        /// Said when there are no rows.
        var empty: String?
        var former: String?

        init(rows: [Row], intro: String? = nil, empty: String? = nil) {
            self.rows = rows
            self.intro = rows.isEmpty ? nil : intro
            self.empty = rows.isEmpty ? empty : nil
        }
    }

    struct Row: Sendable, Equatable {
        var rank: String
        var name: String
        var isOwner: Bool
        var isMe: Bool
        var distance: String
        var week: String
        var runs: String
        var gapBefore = false
        /// The owner's button that removes this member.
        var remove: String?
    }

    struct Leg: Sendable, Equatable {
        var runner: String
        var taken: TimeText
        var ended: TimeText?
        var how: String
        var distance: String
    }
}
