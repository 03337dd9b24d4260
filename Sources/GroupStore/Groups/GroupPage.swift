import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// A group's page, for its members.
extension WebPages {
    func registerGroupPages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.get, "/groups/:group", next: { $0.uri.path }) { _, context, account in
            do {
                let progress = try await repository.progress(
                    try context.id("group", "group"), account: account.id, now: services.now())
                return Self.page(progress.group.name, GroupPage.render(progress, now: services.now()), account: account)
            } catch let error as StoreError where error.status == .notFound {
                return Self.page("Not found", "<p>\(html(error.message))</p>", status: .notFound, account: account)
            }
        }
    }
}

/// A group's page: the goal as a bar, the baton, the members' distances, recent legs.
enum GroupPage {
    static func render(_ progress: Progress, now: WallInstant) -> String {
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
        out +=
            "<h2>Members</h2><table id=\"members\"><tr><th>Runner</th><th class=\"n\">Distance</th><th class=\"n\">This week</th><th class=\"n\">Runs</th></tr>"
        for member in progress.members.sorted(by: { ($0.distanceMM, $1.username) > ($1.distanceMM, $0.username) }) {
            out +=
                "<tr><td>\(html(member.username))\(member.accountID == group.ownerID ? " (owner)" : "")</td><td class=\"n\">\(PageFormat.km(member.distanceMM))</td><td class=\"n\">\(PageFormat.km(member.weekMM))</td><td class=\"n\">\(member.runs)</td></tr>"
        }
        if group.formerMM > 0 {
            out +=
                "<tr><td>former members</td><td class=\"n\">\(PageFormat.km(group.formerMM))</td><td></td><td></td></tr>"
        }
        out += "</table><h2>Recent legs</h2>"
        if progress.legs.isEmpty {
            out += "<p>No legs yet.</p>"
        } else {
            out +=
                "<table id=\"legs\"><tr><th>Runner</th><th>Taken</th><th>Ended</th><th class=\"n\">Distance</th></tr>"
            for leg in progress.legs {
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
}
