import Foundation
import HandoffModel
import Hummingbird

/// The buttons of the friends page, each a POST to `/friends/{account}/{action}`.
enum FriendAction: String, Sendable, CaseIterable {
    case accept
    case remove
    case block
    case unblock
}

/// The feed: the person's runs, and their friends' and group-mates' as each runner lets them be
/// seen; newest first, a page at a time.
struct FeedPage: PageModel {
    static let template = "feed"
    var frame: Frame
    var scope: Scope
    var rows: [Row]
    var next: Link?
    var empty: String
    /// The groups whose events the first page follows.
    var follow: [Follow] = []

    /// A group the page follows: its events, its name, and the feed's address to show what came.
    struct Follow: Sendable, Equatable {
        var events: String
        var name: String
        /// The reader's units, "km" or "mi", in which the script writes a counted run's distance.
        var units: String
        var href = SitePath.feed().path
    }

    /// The toggle between the person's own runs and everyone's, remembered.
    struct Scope: Sendable, Equatable {
        var action = SitePath.feedScope.path
        var everyone: Bool
    }

    struct Row: Sendable, Equatable {
        /// The runner, and their page.
        var runner: Link
        var mine: Bool
        /// The run's page.
        var href: String
        var when: TimeText
        var sport: String
        var distance: String
        var time: String
        var pace: String
        /// "2 kudos · 1 comment", or nil for none.
        var responses: String?
        var title: String
        /// The description's start.
        var description: String?
        var media: Media
    }

    /// What a row shows of the run besides words.
    struct Media: Sendable, Equatable {
        /// The route's lines in a 64-unit square, when the viewer may see the map.
        var thumbnail: Thumbnail?
        /// The run's first photos.
        var photos: [Picture] = []
    }

    /// Photos a feed item shows; the run's page shows them all.
    static let photosShown = 4

    struct Thumbnail: Sendable, Equatable {
        var lines: [String]
    }

    init(
        runs: [FeedRun], scope: FeedScope, next: String?, reader: Reader, viewer: String
    ) {
        frame = Frame("Feed", viewer: viewer, current: .feed())
        self.scope = Scope(everyone: scope == .everyone)
        let units = reader.units
        rows = runs.map { item in
            let (run, runner) = (item.run, item.runner)
            let meters = Double(run.distanceMM) / 1000
            let seconds = Double(run.timerMS) / 1000
            let mine = runner == viewer
            return Row(
                runner: Link(href: SitePath.person(runner).path, label: runner), mine: mine,
                href: SitePath.run(run.uuid).path,
                when: PageFormat.time(run.started, zone: reader.zone), sport: RunPage.sportName(run.sport),
                distance: units.distance(meters: meters), time: Units.clock(seconds),
                pace: units.pace(seconds: seconds, meters: meters),
                responses: Self.responses(kudos: item.kudos, comments: item.comments),
                title: item.post.title(run, zone: item.zone),
                description: item.post.description.map { $0.count > 280 ? String($0.prefix(279)) + "…" : $0 },
                media: Media(
                    thumbnail: item.map
                        ? item.thumbnail.map { Thumbnail(lines: $0.split(separator: "|").map(String.init)) } : nil))
        }
        self.next = next.map { Link(href: SitePath.feed(after: $0).path, label: "Older runs →") }
        empty =
            scope == .everyone
            ? "Nothing yet. Your runs, your friends' and your groups' members' show here as they are uploaded."
            : "You have no runs yet."
    }
}

extension FeedPage {
    /// "2 kudos · 1 comment"; nil for none.
    static func responses(kudos: Int, comments: Int) -> String? {
        let parts =
            (kudos > 0 ? ["\(kudos) kudos"] : [])
            + (comments > 0 ? ["\(comments) comment\(comments == 1 ? "" : "s")"] : [])
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}

/// Friends, asks both ways, the ask form, and those the person blocked.
struct FriendsPage: PageModel {
    static let template = "friends"
    var frame: Frame
    var notice: String?
    var error: String?
    var ask = SitePath.friends.path
    var username = ""
    var friends: [Person]
    var asking: [Person]
    var asked: [Person]
    var blocked: [Person]

    struct Person: Sendable, Equatable {
        var name: String
        var href: String
        var actions: [Button]
    }

    struct Button: Sendable, Equatable {
        var action: String
        var label: String
        var quiet: Bool
    }

    init(
        friends list: [(id: Int64, username: String, status: Friendship)], blocked: [(id: Int64, username: String)],
        viewer: String
    ) {
        frame = Frame("Friends", viewer: viewer, current: .friends)
        func person(_ id: Int64, _ name: String, _ actions: [(FriendAction, String)]) -> Person {
            Person(
                name: name, href: SitePath.person(name).path,
                actions: actions.map {
                    Button(action: SitePath.friendAction(id, $0.0).path, label: $0.1, quiet: $0.0 != .accept)
                })
        }
        friends = list.filter { $0.status == .friends }.map {
            person($0.id, $0.username, [(.remove, "Remove \($0.username)"), (.block, "Block \($0.username)")])
        }
        asking = list.filter { $0.status == .asking }.map {
            person(
                $0.id, $0.username,
                [
                    (.accept, "Accept \($0.username)"), (.remove, "Decline \($0.username)"),
                    (.block, "Block \($0.username)"),
                ])
        }
        asked = list.filter { $0.status == .asked }.map {
            person($0.id, $0.username, [(.remove, "Take back the ask to \($0.username)")])
        }
        self.blocked = blocked.map { person($0.id, $0.username, [(.unblock, "Unblock \($0.username)")]) }
    }
}

extension WebPages {
    func registerFriendPages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.get, "/feed", next: { $0.uri.path }) { request, _, account in
            var cursor: StoreRepository.RunCursor?
            if let text = request.uri.queryParameters["after"].map(String.init) {
                guard let parsed = StoreRepository.RunCursor(text) else {
                    return Self.message(
                        "Not a page of your feed", "This link to a page of the feed is not one this site made.",
                        status: .unprocessableContent, account: account,
                        link: Link(href: SitePath.feed().path, label: "The newest runs"))
                }
                cursor = parsed
            }
            let scope = try await repository.feedScope(account.id)
            // The first page follows the person's groups: it says what happened, with a link.
            let followed = cursor == nil ? try await repository.followed(account: account.id) : []
            let page = try await repository.feed(viewer: account.id, scope: scope, limit: 25, after: cursor)
            var feed = FeedPage(
                runs: page.runs, scope: scope, next: page.next?.text, reader: Reader(account), viewer: account.username)
            let units = Reader(account).units.name
            feed.follow = followed.map { FeedPage.Follow(events: $0.events, name: $0.name, units: units) }
            let photos = try await repository.runPhotos(page.runs.map(\.run.id))
            for (index, item) in page.runs.enumerated() {
                feed.rows[index].media.photos = (photos[item.run.id] ?? []).prefix(FeedPage.photosShown).enumerated()
                    .map {
                        Picture($1, alt: "Photo \($0 + 1) of \(item.runner)'s run")
                    }
            }
            return Self.render(feed)
        }
        router.signedIn(.post, "/feed/scope") { request, context, account in
            let form = try await Self.form(request, context)
            try await repository.setFeedScope(account.id, form["scope"] == FeedScope.mine.rawValue ? .mine : .everyone)
            return Self.redirect(.feed())
        }
        router.signedIn(.get, "/friends") { request, _, account in
            var page = try await friendsPage(account)
            page.notice = request.uri.queryParameters["done"].flatMap { Self.friendNotices[String($0)] }
            return Self.render(page)
        }
        router.signedIn(.post, "/friends") { request, context, account in
            let form = try await Self.form(request, context)
            let name = (form["username"] ?? "").trimmingCharacters(in: .whitespaces)
            do {
                guard let other = try await repository.account(username: name) else { throw StoreRepository.noRunner }
                let status = try await repository.askFriend(account.id, other.id, now: services.now())
                return Self.redirect(SitePath.friends.path + "?done=" + (status == .friends ? "friends" : "asked"))
            } catch let error as StoreError where [.notFound, .conflict, .unprocessableContent].contains(error.status) {
                var page = try await friendsPage(account)
                page.error = error.message
                page.username = name
                return Self.render(page, status: error.status)
            }
        }
        router.signedIn(.post, "/friends/:account/accept") { _, context, account in
            try await friendAction(.accept, context, account)
        }
        router.signedIn(.post, "/friends/:account/remove") { _, context, account in
            try await friendAction(.remove, context, account)
        }
        router.signedIn(.post, "/friends/:account/block") { _, context, account in
            try await friendAction(.block, context, account)
        }
        router.signedIn(.post, "/friends/:account/unblock") { _, context, account in
            try await friendAction(.unblock, context, account)
        }
    }

    /// One of the friends page's buttons; then back to the page with a notice.
    func friendAction(_ action: FriendAction, _ context: StoreContext, _ account: Account) async throws -> Response {
        let repository = services.repository
        let other = try context.id("account", "account")
        do {
            switch action {
            case .accept: try await repository.acceptFriend(account.id, other, now: services.now())
            case .remove: try await repository.removeFriend(account.id, other)
            case .block: try await repository.block(account.id, other, now: services.now())
            case .unblock: try await repository.unblock(account.id, other)
            }
        } catch let error as StoreError where [.notFound, .unprocessableContent].contains(error.status) {
            return Self.message(
                "Not done", error.message, status: error.status, account: account,
                link: Link(href: SitePath.friends.path, label: "Your friends"))
        }
        return Self.redirect(SitePath.friends.path + "?done=" + action.rawValue)
    }

    func friendsPage(_ account: Account) async throws -> FriendsPage {
        FriendsPage(
            friends: try await services.repository.friends(account.id),
            blocked: try await services.repository.blocked(account.id), viewer: account.username)
    }

    static let friendNotices = [
        "asked": "Asked: they become your friend when they accept.",
        "friends": "You are friends now: they had asked you too.",
        "accept": "You are friends now.",
        "remove": "Done: neither of you is asking any more.",
        "block": "Blocked: neither of you sees the other's runs, and they cannot ask you.",
        "unblock": "Unblocked. They may ask you again.",
    ]
}
