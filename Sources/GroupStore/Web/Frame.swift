import Foundation
import HandoffModel

/// The layout's part of a page model: the title, the links of the header and who is signed in.
struct Frame: Sendable, Equatable {
    var title: String
    var home: String
    var stylesheet: String
    var script: String
    var nav: [Link]
    /// The signed-in person, nil on the pages for anyone.
    var viewer: Viewer?
    /// The link to the person's notifications, with how many are unread (signed in only).
    var bell: Bell?

    /// How many notifications the signed-in person has unread, read once per page by the route
    /// (`PageRouter.signedIn`) before the page is made; nil when it was not read.
    @TaskLocal static var unread: Int?

    struct Bell: Sendable, Equatable {
        var href = SitePath.notifications().path
        /// "3 unread notifications", for a screen reader; nil for none.
        var unread: String?
        var count: String?
        var current = false
    }

    struct Viewer: Sendable, Equatable {
        var name: String
        var signOut: String
    }

    /// The frame of a page; `current` marks the header's link to the page itself.
    init(_ title: String, viewer: String?, current: SitePath? = nil) {
        self.title = title
        home = SitePath.home.path
        stylesheet = SitePath.stylesheet.path
        script = SitePath.script.path
        let links: [(SitePath, String)] =
            viewer == nil
            ? [(.login(), "Sign in"), (.signup(), "Sign up")]
            : [
                (.home, "Home"), (.feed(), "Feed"), (.runs(), "Runs"), (.friends, "Friends"), (.upload, "Upload"),
                (.settings, "Settings"),
            ]
        nav = links.map { Link(href: $0.0.path, label: $0.1, current: $0.0 == current) }
        self.viewer = viewer.map { Viewer(name: $0, signOut: SitePath.logout.path) }
        if viewer != nil {
            let count = Self.unread ?? 0
            bell = Bell(
                unread: count == 0 ? nil : "\(count) unread",
                count: count == 0 ? nil : count > 99 ? "99+" : String(count),
                current: current == .notifications())
        }
    }
}

/// A link on a page: where (a path built from ids, never from what a person typed) and its words.
struct Link: Sendable, Equatable {
    var href: String
    var label: String
    var current = false
}

/// An instant as a page shows it: words for the reader and the exact instant for the machine.
struct TimeText: Sendable, Equatable {
    var iso: String
    var text: String
}

/// A page that only says something: a fault, a page not found, a form sent from elsewhere.
struct MessagePage: PageModel {
    static let template = "message"
    var frame: Frame
    var message: Message
    var link: Link?

    struct Message: Sendable, Equatable {
        var text: String
        var isError: Bool
    }

    init(_ title: String, _ text: String, isError: Bool = true, link: Link? = nil, viewer: String? = nil) {
        frame = Frame(title, viewer: viewer)
        message = Message(text: text, isError: isError)
        self.link = link
    }
}
