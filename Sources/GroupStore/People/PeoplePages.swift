import Crypto
import Foundation
import HandoffModel
import Hummingbird

/// A person's page (`/people/{username}`): their avatar and name, the profile fields and totals
/// the viewer may see, their recent runs the viewer may see, and where the two stand as friends.
struct PersonPage: PageModel {
    static let template = "person"
    var frame: Frame
    var avatar: Avatar
    var username: String
    var fields: [RunPage.Stat]
    var totals: [RunPage.Stat]
    var runs: [RunListPage.Row]
    /// Where the two stand as friends, and the button that moves it on.
    var friendship: String?
    var ask: Ask?
    var links = Links()
    /// The person's public runs for feed readers.
    var atom: String
    var empty: String
    /// The person's records and the runs they ran with others, each among the runs the viewer
    /// may see.
    var more = More()

    struct More: Sendable, Equatable {
        /// The person's goals: shown to them and their friends, counted over the runs the viewer may see.
        var goals: [GoalCard] = []
        var level: LevelPart? = nil
        var records: [RecordRow] = []
        /// Others' runs the person ran with them, that the viewer may see.
        var together: [Together] = []
    }

    struct Links: Sendable, Equatable {
        /// On the person's own page: where to change it.
        var edit: String?
        /// On anyone else's: the page that compares the viewer with them, and the form that
        /// reports their profile to the operator.
        var others: Others?
    }

    struct Others: Sendable, Equatable {
        var compare: Link
        var report: String
    }

    /// "Level 3", its points, and each objective with its rule, done or not.
    struct LevelPart: Sendable, Equatable {
        var title: String
        var next: String
        var objectives: [Objective]

        struct Objective: Sendable, Equatable {
            var name: String
            var rule: String
            var done: Bool
        }

        init(_ level: Level) {
            title = "Level \(level.level)"
            next =
                "\(level.points) points; \(Level.threshold(level.level + 1) - level.points) more for level \(level.level + 1)."
            objectives = Level.objectives.map {
                Objective(name: $0.name, rule: $0.rule, done: level.done.contains($0.id))
            }
        }
    }

    struct Together: Sendable, Equatable {
        var run: Link
        var runner: Link
    }

    struct Ask: Sendable, Equatable {
        var action: String
        var username: String
    }

    init(_ person: SeenPerson, reader: Reader, viewer: String) {
        let nickname = person.fields.first { $0.0 == .nickname }?.1
        frame = Frame(nickname ?? person.username, viewer: viewer)
        avatar = Avatar(person.username, name: nickname ?? person.username)
        avatar.photo = person.photo.map { Picture($0, alt: "\(person.username)'s photo") }
        username = person.username
        atom = SitePath.person(person.username).path + "/feed.atom"
        fields = person.fields.filter { $0.0 != .nickname }.map {
            RunPage.Stat(label: $0.0.noun.prefix(1).uppercased() + $0.0.noun.dropFirst(), value: $0.0.shown($0.1))
        }
        let units = reader.units
        let totals = person.totals
        self.totals = [
            RunPage.Stat(label: "Runs", value: String(totals.runs)),
            RunPage.Stat(label: "Distance", value: PageFormat.distance(totals.distanceMM, units)),
            RunPage.Stat(label: "Time", value: Units.clock(Double(totals.timerMS) / 1000)),
            RunPage.Stat(label: "Longest run", value: PageFormat.distance(totals.longestMM, units)),
        ]
        runs = RunListPage(runs: person.recent, next: nil, reader: reader, viewer: viewer).rows
        let name = person.username
        if person.relation.isOwner {
            links.edit = SitePath.settings.path + "#profile"
        } else {
            links.others = Others(
                compare: Link(href: SitePath.compare(name).path, label: "Compare yourself with \(name)"),
                report: SitePath.reportPerson(name).path)
            switch person.friendship {
            case .friends: friendship = "You and \(name) are friends."
            case .asked: friendship = "You asked \(name) to be friends."
            case .asking: friendship = "\(name) asked to be your friend: answer on your friends page."
            case nil: ask = Ask(action: SitePath.friends.path, username: name)
            }
        }
        empty =
            person.relation.isOwner
            ? "You have no runs yet." : "\(name) has no runs you may see: each runner chooses who sees theirs."
    }
}

/// A person's picture until photos arrive: their initials on a colour taken from their username,
/// white on each colour at a contrast of at least 4.5:1.
struct Avatar: Sendable, Equatable {
    static let colours = ["#1f5f8b", "#8b3a1f", "#2f6b2f", "#6b2f6b", "#7a5200", "#1f6b66", "#5a4a8b", "#8b1f4a"]
    var initials: String
    var colour: String
    var label: String
    /// The person's photo instead, where the viewer may see it.
    var photo: Picture?

    init(_ username: String, name: String) {
        let letters = name.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).prefix(2).compactMap(\.first)
        initials = (letters.isEmpty ? "?" : String(letters)).uppercased()
        let digest = Array(SHA256.hash(data: Data(username.utf8)))
        colour = Self.colours[Int(digest[0]) % Self.colours.count]
        label = "\(name)'s initials"
    }
}

extension WebPages {
    func registerPeoplePages(_ router: PageRouter) {
        router.signedIn(.get, "/people/:username", next: { $0.uri.path }) { _, context, account in
            let username = context.parameters.get("username") ?? ""
            guard let person = try await services.repository.person(username: username, viewer: account.id) else {
                return Self.message(
                    "No such person", "Nobody you may see has the username \(username).", status: .notFound,
                    account: account, link: Link(href: SitePath.friends.path, label: "Your friends"))
            }
            var page = PersonPage(person, reader: Reader(account), viewer: account.username)
            let goalsSeen = person.relation.isOwner || (person.relation.isFriend && !person.relation.blocked)
            // One read of the summary of the runs the viewer may see, for the level and the records.
            let summary = try await services.personSummary(account: person.id, viewer: account.id)
            if let owner = try await services.repository.account(id: person.id) {
                // The goals' progress once, for the rings and the level's weeks in a row.
                let progress =
                    goalsSeen ? try await services.goalProgress(owner, viewer: account.id, now: services.now()) : []
                page.more.level = PersonPage.LevelPart(
                    try await services.level(
                        owner, viewer: account.id, goalsSeen: goalsSeen, summary: summary, progress: progress))
                page.more.goals = progress.map {
                    GoalCard($0, units: Reader(account).units, owner: person.relation.isOwner ? nil : person.username)
                }
                for i in page.more.goals.indices { page.more.goals[i].delete = nil }
            }
            page.more.records = RecordRow.rows(
                try await services.records(account: person.id, viewer: account.id, summary: summary),
                reader: Reader(account))
            page.more.together = try await services.repository.ranWith(account: person.id, viewer: account.id).map {
                link in
                PersonPage.Together(
                    run: Link(
                        href: SitePath.run(link.run).path,
                        label: PageFormat.time(link.started, zone: account.timeZone).text),
                    runner: Link(href: SitePath.person(link.owner).path, label: link.owner))
            }
            return Self.render(page)
        }
    }
}
