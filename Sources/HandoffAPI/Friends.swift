/// `POST /v1/friends` and `POST /v1/blocks`: the other person, by username.
public struct FriendAsk: Codable, Sendable, Hashable {
    public var username: String

    public init(username: String) { self.username = username }
}

/// One person in `GET /v1/friends`: a friend, someone the caller asked (`asked`), or someone
/// asking the caller (`asking`: `POST /v1/friends/{username}/accept` makes them friends).
public struct FriendView: Codable, Sendable, Hashable {
    public var username: String
    public var status: String

    public init(username: String, status: String) {
        self.username = username
        self.status = status
    }
}

/// `GET /v1/friends`: friends and open asks both ways, by name.
public struct FriendList: Codable, Sendable, Hashable {
    public var friends: [FriendView]

    public init(friends: [FriendView]) { self.friends = friends }
}

/// One run in `GET /v1/feed`: whose, when, and what, as far as the caller may see it.
public struct FeedItem: Codable, Sendable, Hashable {
    public var uuid: String
    public var runner: String
    public var startedAt: String
    public var sport: String
    public var distanceM: Double
    public var elapsedS: Double
    public var timerS: Double
    /// Whether the caller may see the run's map.
    public var map: Bool
    /// Kudos and comments on it, as the caller sees them.
    public var kudos: Int
    public var comments: Int
    /// The runner's title ("Morning run" and the like when they gave none) and description.
    public var title: String?
    public var description: String?

    public init(
        uuid: String, runner: String, startedAt: String, sport: String, distanceM: Double, elapsedS: Double,
        timerS: Double, map: Bool, kudos: Int = 0, comments: Int = 0, title: String? = nil, description: String? = nil
    ) {
        self.uuid = uuid
        self.runner = runner
        self.startedAt = startedAt
        self.sport = sport
        self.distanceM = distanceM
        self.elapsedS = elapsedS
        self.timerS = timerS
        self.map = map
        self.kudos = kudos
        self.comments = comments
        self.title = title
        self.description = description
    }

    enum CodingKeys: String, CodingKey {
        case uuid, runner, sport, map, kudos, comments, title, description
        case startedAt = "started_at"
        case distanceM = "distance_m"
        case elapsedS = "elapsed_s"
        case timerS = "timer_s"
    }
}

/// `GET /v1/feed`: a page of runs, newest first.
public struct Feed: Codable, Sendable, Hashable {
    public var runs: [FeedItem]
    /// The next page's `cursor`, or null on the last page.
    public var nextCursor: String?

    public init(runs: [FeedItem], nextCursor: String?) {
        self.runs = runs
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case runs
        case nextCursor = "next_cursor"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(runs, forKey: .runs)
        try c.encode(nextCursor, forKey: .nextCursor)
    }
}
