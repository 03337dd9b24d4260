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
                return Self.page(
                    progress.group.name, GroupPage.render(progress, listing, page, now: now), account: account)
            } catch let error as StoreError where error.status == .notFound {
                return Self.page("Not found", "<p>\(html(error.message))</p>", status: .notFound, account: account)
            } catch let error as StoreError where [.unprocessableContent, .badRequest].contains(error.status) {
                let message =
                    error.code == "invalid_cursor"
                    ? "This link to a page of members is not one this site made (or it was cut short)." : error.message
                let back = html(SitePath.group(Int64(context.parameters.get("group") ?? "") ?? 0).path)
                return Self.page(
                    "Not a page of this group",
                    "<p>\(html(message))</p><p><a href=\"\(back)\">Back to the group's page</a></p>",
                    status: error.status, account: account)
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

    static func render(_ progress: Progress, _ listing: Listing, _ page: Page<Member>?, now: WallInstant) -> String {
        let group = progress.group
        let fraction = group.goalMM > 0 ? min(1, Double(group.totalMM) / Double(group.goalMM)) : 0
        let percent = String(format: "%.1f", fraction * 100)
        var out = """
            <section aria-label="goal"><p><strong>\(PageFormat.km(group.totalMM))</strong> of \(PageFormat.km(group.goalMM)) (\(percent) %)\(
                group.deadline.map { " · deadline \(PageFormat.time($0))" } ?? "")</p>
            <div class="bar" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow="\(percent)"><div style="width:\(percent)%"></div></div></section>
            """
        if let holder = progress.baton.holderName, let since = progress.baton.since {
            out += """
                <p class="baton" id="baton"><strong>\(html(holder))</strong> holds the baton since \(PageFormat.time(since)) (\(PageFormat.duration(now.nanosecondsSinceEpoch - since.nanosecondsSinceEpoch)) ago).</p>
                """
        } else {
            out += "<p class=\"baton\" id=\"baton\">The baton is free: the next runner takes it.</p>"
        }
        out += members(progress, listing, page)
        out += "<h2>Recent legs</h2>"
        if progress.legs.rows.isEmpty {
            out += "<p>No legs yet.</p>"
        } else {
            out +=
                "<table id=\"legs\"><tr><th>Runner</th><th>Taken</th><th>Ended</th><th class=\"n\">Distance</th></tr>"
            for leg in progress.legs.rows {
                let ended =
                    leg.ended.map { time in
                        PageFormat.time(time) + " (" + html(leg.endedHow ?? "")
                            + (leg.passedTo.map { " to " + html($0) } ?? "")
                            + ")"
                    } ?? "running"
                out +=
                    "<tr><td>\(html(leg.username ?? "a former member"))</td><td>\(PageFormat.time(leg.taken))</td><td>\(ended)</td><td class=\"n\">\(PageFormat.km(leg.distanceMM))</td></tr>"
            }
            out += "</table>"
        }
        return out
    }

    /// The members' part: the viewer's place, the search form, the listed members, the links on.
    static func members(_ progress: Progress, _ listing: Listing, _ page: Page<Member>?) -> String {
        let group = progress.group
        var out = "<h2>Members</h2>"
        if let me = progress.me, let rank = me.rank {
            out +=
                "<p id=\"place\">Your place: <strong>#\(rank)</strong> of \(progress.memberCount), with \(PageFormat.km(me.distanceMM)).</p>"
        }
        var q = ""
        if case .search(let text, _, _) = listing { q = text }
        out += """
            <form method="get" action="\(SitePath.group(group.id).path)" id="search"><label>Find a member by the start of their name <input name="q" value="\(html(q))" maxlength="64"></label> <button>Find</button></form>
            """
        let header =
            "<table id=\"members\"><tr><th class=\"n\">#</th><th>Runner</th><th class=\"n\">Distance</th><th class=\"n\">This week</th><th class=\"n\">Runs</th></tr>"
        let next: String?
        switch listing {
        case .top:
            out += header + progress.members.map { row($0, progress) }.joined()
            if let me = progress.me, !progress.members.contains(where: { $0.accountID == me.accountID }) {
                out += "<tr><td></td><td colspan=\"4\">…</td></tr>" + row(me, progress)
            }
            if group.formerMM > 0 {
                out +=
                    "<tr><td></td><td>former members</td><td class=\"n\">\(PageFormat.km(group.formerMM))</td><td></td><td></td></tr>"
            }
            out += "</table>"
            next = progress.top.next.map { SitePath.group(group.id, after: $0.text).path }
        case .after:
            let rows = page?.rows ?? []
            out +=
                rows.isEmpty ? "<p>No more members.</p>" : header + rows.map { row($0, progress) }.joined() + "</table>"
            next = page?.next.map { SitePath.group(group.id, after: $0.text).path }
        case .search(let q, _, _):
            let rows = page?.rows ?? []
            out +=
                rows.isEmpty
                ? "<p>No member's name starts with “\(html(q))”.</p>"
                : "<p>Names that start with “\(html(q))”:</p>" + header + rows.map { row($0, progress) }.joined()
                    + "</table>"
            next = page?.next.map { SitePath.group(group.id, q: q, after: $0.text).path }
        }
        var links: [String] = []
        if case .top = listing {} else { links.append("<a href=\"\(SitePath.group(group.id).path)\">Top</a>") }
        if let next { links.append("<a href=\"\(html(next))\" rel=\"next\">Next →</a>") }
        if !links.isEmpty { out += "<p class=\"more\">\(links.joined(separator: " · "))</p>" }
        return out
    }

    /// One member's row: their place where known, name, distance, this week, runs.
    static func row(_ member: Member, _ progress: Progress) -> String {
        let mine = member.accountID == progress.me?.accountID
        let owner = member.accountID == progress.group.ownerID ? " (owner)" : ""
        return
            "<tr\(mine ? " class=\"me\"" : "")><td class=\"n\">\(member.rank.map(String.init) ?? "")</td><td>\(html(member.username))\(owner)</td><td class=\"n\">\(PageFormat.km(member.distanceMM))</td><td class=\"n\">\(PageFormat.km(member.weekMM))</td><td class=\"n\">\(member.runs)</td></tr>"
    }
}
