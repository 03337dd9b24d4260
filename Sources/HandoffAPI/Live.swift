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

/// One moment of a run being recorded, as the pack sends it (`POST /v1/live/{run}`) and the store
/// shows it. A point inside one of the runner's privacy zones comes without its position.
public struct LivePoint: Codable, Sendable, Hashable {
    /// Seconds since the run started (its recorded second): a run's points are told apart by it.
    public var elapsedS: Int
    /// When, by the pack's clock (ISO 8601, UTC).
    public var at: String
    public var lat: Double?
    public var lon: Double?
    /// The distance run since the start, in metres.
    public var distanceM: Double
    public var speedMps: Double?
    public var heartRate: Int?

    public init(
        elapsedS: Int, at: String, lat: Double? = nil, lon: Double? = nil, distanceM: Double, speedMps: Double? = nil,
        heartRate: Int? = nil
    ) {
        self.elapsedS = elapsedS
        self.at = at
        self.lat = lat
        self.lon = lon
        self.distanceM = distanceM
        self.speedMps = speedMps
        self.heartRate = heartRate
    }

    enum CodingKeys: String, CodingKey {
        case at, lat, lon
        case elapsedS = "elapsed_s"
        case distanceM = "distance_m"
        case speedMps = "speed_mps"
        case heartRate = "heart_rate"
    }
}

/// What the pack sends during a live run: the points since its last update (oldest first), the
/// run's sport and start, and `ended` with the run's last update.
public struct LiveUpdate: Codable, Sendable, Hashable {
    public var sport: String?
    public var startedAt: String
    public var points: [LivePoint]
    public var ended: Bool?

    public init(sport: String? = nil, startedAt: String, points: [LivePoint], ended: Bool? = nil) {
        self.sport = sport
        self.startedAt = startedAt
        self.points = points
        self.ended = ended
    }

    enum CodingKeys: String, CodingKey {
        case sport, points, ended
        case startedAt = "started_at"
    }
}

/// The store's answer to a live update: how many of its points were new.
public struct LiveAccepted: Codable, Sendable, Hashable {
    public var run: String
    public var accepted: Int
    public var points: Int

    public init(run: String, accepted: Int, points: Int) {
        self.run = run
        self.accepted = accepted
        self.points = points
    }
}

/// A run as it happens: its runner, when the store last heard from it, and its points. For
/// anyone but the runner the first metres are left out (as on a finished run's map), and the
/// positions too when the runner shows their maps to fewer people.
public struct LiveRunView: Codable, Sendable, Hashable {
    public var run: String
    public var runner: String
    public var sport: String
    public var startedAt: String
    /// The store's time of the latest update.
    public var lastSeenAt: String
    /// Set once the run ended (its last update, or its upload).
    public var endedAt: String?
    public var distanceM: Double
    /// Whether positions are shown to this viewer.
    public var mapShown: Bool
    public var points: [LivePoint]

    public init(
        run: String, runner: String, sport: String, startedAt: String, lastSeenAt: String, endedAt: String?,
        distanceM: Double, mapShown: Bool, points: [LivePoint]
    ) {
        self.run = run
        self.runner = runner
        self.sport = sport
        self.startedAt = startedAt
        self.lastSeenAt = lastSeenAt
        self.endedAt = endedAt
        self.distanceM = distanceM
        self.mapShown = mapShown
        self.points = points
    }

    enum CodingKeys: String, CodingKey {
        case run, runner, sport, points
        case startedAt = "started_at"
        case lastSeenAt = "last_seen_at"
        case endedAt = "ended_at"
        case distanceM = "distance_m"
        case mapShown = "map_shown"
    }
}

/// Asks for a share link to a live run: valid until the run ends, or for `hours` at most.
public struct LiveLinkRequest: Codable, Sendable, Hashable {
    public var hours: Int?

    public init(hours: Int? = nil) { self.hours = hours }
}

/// A share link to a live run (`/live/{token}`). The token is given once, when the link is made.
public struct LiveLinkView: Codable, Sendable, Hashable {
    public var id: Int64
    public var run: String
    public var url: String?
    public var createdAt: String
    /// nil: until the run ends.
    public var expiresAt: String?

    public init(id: Int64, run: String, url: String?, createdAt: String, expiresAt: String?) {
        self.id = id
        self.run = run
        self.url = url
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case id, run, url
        case createdAt = "created_at"
        case expiresAt = "expires_at"
    }
}

/// A live run's share links still in force.
public struct LiveLinkList: Codable, Sendable, Hashable {
    public var links: [LiveLinkView]

    public init(links: [LiveLinkView]) { self.links = links }
}
