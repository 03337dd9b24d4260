/// Who holds a group's baton (`Baton`): all null when nobody does. Absent values are written as null.
public struct BatonView: Codable, Sendable, Hashable {
    public var holder: String?
    public var since: String?
    public var expiresAt: String?

    public init(holder: String? = nil, since: String? = nil, expiresAt: String? = nil) {
        self.holder = holder
        self.since = since
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case holder, since
        case expiresAt = "expires_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(holder, forKey: .holder)
        try c.encode(since, forKey: .since)
        try c.encode(expiresAt, forKey: .expiresAt)
    }
}

/// One holding of the baton, from take to pass, release or expiry (`Leg`). Absent values are
/// written as null.
public struct LegView: Codable, Sendable, Hashable {
    public var id: Int64
    /// The holder's username; null once the account is gone.
    public var runner: String?
    public var takenAt: String
    public var endedAt: String?
    /// How the leg ended (`passed`, `released`, `expired`…); null while it runs.
    public var ended: String?
    public var passedTo: String?
    public var distanceM: Double
    public var runs: Int64

    public init(
        id: Int64, runner: String?, takenAt: String, endedAt: String?, ended: String?, passedTo: String?,
        distanceM: Double, runs: Int64
    ) {
        self.id = id
        self.runner = runner
        self.takenAt = takenAt
        self.endedAt = endedAt
        self.ended = ended
        self.passedTo = passedTo
        self.distanceM = distanceM
        self.runs = runs
    }

    enum CodingKeys: String, CodingKey {
        case id, runner, ended, runs
        case takenAt = "taken_at"
        case endedAt = "ended_at"
        case passedTo = "passed_to"
        case distanceM = "distance_m"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(runner, forKey: .runner)
        try c.encode(takenAt, forKey: .takenAt)
        try c.encode(endedAt, forKey: .endedAt)
        try c.encode(ended, forKey: .ended)
        try c.encode(passedTo, forKey: .passedTo)
        try c.encode(distanceM, forKey: .distanceM)
        try c.encode(runs, forKey: .runs)
    }
}

/// `GET /v1/groups/{group}/baton`: the baton and its recent legs, and where
/// `GET /v1/groups/{group}/legs` goes on (null when there are no more; absent from a store older
/// than the pages).
public struct BatonState: Codable, Sendable, Hashable {
    public var baton: BatonView
    public var legs: [LegView]
    public var legsNextCursor: String?

    public init(baton: BatonView, legs: [LegView], legsNextCursor: String? = nil) {
        self.baton = baton
        self.legs = legs
        self.legsNextCursor = legsNextCursor
    }

    enum CodingKeys: String, CodingKey {
        case baton, legs
        case legsNextCursor = "legs_next_cursor"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(baton, forKey: .baton)
        try c.encode(legs, forKey: .legs)
        try c.encode(legsNextCursor, forKey: .legsNextCursor)
    }
}

/// `GET /v1/groups/{group}/legs`: a page of the group's legs, newest first.
public struct LegPage: Codable, Sendable, Hashable {
    public var legs: [LegView]
    /// The next page's `cursor`, or null on the last page.
    public var nextCursor: String?

    public init(legs: [LegView], nextCursor: String?) {
        self.legs = legs
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case legs
        case nextCursor = "next_cursor"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(legs, forKey: .legs)
        try c.encode(nextCursor, forKey: .nextCursor)
    }
}

/// `POST /v1/groups/{group}/baton/pass`: to a member, or (no `to`, or no body) to the next in
/// the rotation.
public struct BatonPass: Codable, Sendable, Hashable {
    public var to: String?

    public init(to: String? = nil) { self.to = to }
}
