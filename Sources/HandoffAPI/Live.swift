/// Something that happened in a group, as the event stream (`GET /v1/groups/{id}/events`, one
/// `event:` each, `id:` its `id`) and the JSON list carry it (issue 35).
public struct GroupEventView: Codable, Sendable, Hashable {
    /// The group's own sequence: 1 for its first event, one more for each after it. A client
    /// resumes with the last it saw (`Last-Event-ID`, or `after`).
    public var id: Int64
    /// `baton_taken`, `baton_passed`, `baton_released`, `baton_expired`, `run_counted` or
    /// `goal_reached` (once for each goal the group sets, by the run that reached it).
    public var kind: String
    public var at: String
    /// Who holds the baton after the event (null: it is free).
    public var holder: String?
    /// Who held it before (passed, released, expired).
    public var from: String?
    /// A counted run's runner and the distance it counted (after the group's factor).
    public var runner: String?
    public var distanceM: Double?
    /// The group's total after a counted run.
    public var totalM: Double?

    public init(
        id: Int64, kind: String, at: String, holder: String? = nil, from: String? = nil, runner: String? = nil,
        distanceM: Double? = nil, totalM: Double? = nil
    ) {
        self.id = id
        self.kind = kind
        self.at = at
        self.holder = holder
        self.from = from
        self.runner = runner
        self.distanceM = distanceM
        self.totalM = totalM
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, at, holder, from, runner
        case distanceM = "distance_m"
        case totalM = "total_m"
    }

    /// Every key, null where there is nothing, so that a page's script reads one shape.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encode(at, forKey: .at)
        try c.encode(holder, forKey: .holder)
        try c.encode(from, forKey: .from)
        try c.encode(runner, forKey: .runner)
        try c.encode(distanceM, forKey: .distanceM)
        try c.encode(totalM, forKey: .totalM)
    }
}

/// A group's events after a given one, oldest first, at most `limit`; `last_id` is the group's
/// newest event (0: none yet), from which a client that wants only new events starts.
public struct GroupEventList: Codable, Sendable, Hashable {
    public var events: [GroupEventView]
    public var lastID: Int64

    public init(events: [GroupEventView], lastID: Int64) {
        self.events = events
        self.lastID = lastID
    }

    enum CodingKeys: String, CodingKey {
        case events
        case lastID = "last_id"
    }
}
