/// Something the store tells one person (issue 35): the baton passed to them, the baton free in
/// their group, a friend's ask, kudos or a comment on their run, their group's goal reached.
public struct NotificationView: Codable, Sendable, Hashable {
    public var id: Int64
    /// `baton_passed`, `baton_released`, `baton_expired`, `friend_request`, `kudos`, `comment` or
    /// `goal_reached`.
    public var kind: String
    public var at: String
    /// Whether the person has marked it as read.
    public var read: Bool
    /// The notification in words, as the page shows it.
    public var text: String
    /// The page it is about (a path on the store).
    public var href: String
    /// Who did it (null: the store, or an account since deleted).
    public var actor: String?
    /// The group it happened in, when one.
    public var group: Int64?
    /// The run it is about, when one.
    public var run: String?

    public init(
        id: Int64, kind: String, at: String, read: Bool, text: String, href: String, actor: String?, group: Int64?,
        run: String?
    ) {
        self.id = id
        self.kind = kind
        self.at = at
        self.read = read
        self.text = text
        self.href = href
        self.actor = actor
        self.group = group
        self.run = run
    }

    /// Every key, null where there is nothing.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encode(at, forKey: .at)
        try c.encode(read, forKey: .read)
        try c.encode(text, forKey: .text)
        try c.encode(href, forKey: .href)
        try c.encode(actor, forKey: .actor)
        try c.encode(group, forKey: .group)
        try c.encode(run, forKey: .run)
    }
}

/// A page of the person's notifications, newest first; `next` is the `before` of the page after
/// (null: none); `unread` counts all of theirs not yet read.
public struct NotificationList: Codable, Sendable, Hashable {
    public var notifications: [NotificationView]
    public var unread: Int
    public var next: Int64?

    public init(notifications: [NotificationView], unread: Int, next: Int64?) {
        self.notifications = notifications
        self.unread = unread
        self.next = next
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(notifications, forKey: .notifications)
        try c.encode(unread, forKey: .unread)
        try c.encode(next, forKey: .next)
    }
}

/// `POST /v1/notifications/read`: marks the person's notifications up to `up_to` as read (all
/// of them, when it is absent).
public struct NotificationsRead: Codable, Sendable, Hashable {
    public var upTo: Int64?

    public init(upTo: Int64? = nil) { self.upTo = upTo }

    enum CodingKeys: String, CodingKey {
        case upTo = "up_to"
    }
}

/// How many of the person's notifications are unread.
public struct NotificationCount: Codable, Sendable, Hashable {
    public var unread: Int

    public init(unread: Int) { self.unread = unread }
}
