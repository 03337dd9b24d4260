import SensorCodecs

/// A run as stored (`Run`): `PUT`, `GET /v1/runs/{uuid}` and the items of `GET /v1/runs`.
public struct RunView: Codable, Sendable, Hashable {
    /// A group the run counts toward. `relay_leg` is written as null when there is none.
    public struct Counted: Codable, Sendable, Hashable {
        public var groupID: Int64
        public var group: String
        public var distanceM: Double
        /// The baton leg the run was part of.
        public var relayLeg: Int64?

        public init(groupID: Int64, group: String, distanceM: Double, relayLeg: Int64?) {
            self.groupID = groupID
            self.group = group
            self.distanceM = distanceM
            self.relayLeg = relayLeg
        }

        enum CodingKeys: String, CodingKey {
            case group
            case groupID = "group_id"
            case distanceM = "distance_m"
            case relayLeg = "relay_leg"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(groupID, forKey: .groupID)
            try c.encode(group, forKey: .group)
            try c.encode(distanceM, forKey: .distanceM)
            try c.encode(relayLeg, forKey: .relayLeg)
        }
    }

    /// A group of the runner's that the run did not count in, and why.
    public struct NotCounted: Codable, Sendable, Hashable {
        public var groupID: Int64
        public var group: String
        /// `started_before_joining`, `after_deadline`, `sport_not_counted` or `not_counted`.
        public var reasonCode: String
        /// The reason in words.
        public var reason: String

        public init(groupID: Int64, group: String, reasonCode: String, reason: String) {
            self.groupID = groupID
            self.group = group
            self.reasonCode = reasonCode
            self.reason = reason
        }

        enum CodingKeys: String, CodingKey {
            case group, reason
            case groupID = "group_id"
            case reasonCode = "reason_code"
        }
    }

    /// What the file says of the run (seconds and metres as the API shows them): the `started_at`,
    /// `elapsed_s`, `timer_s`, `distance_m` and `sport` of the run's object.
    public struct Measures: Codable, Sendable, Hashable {
        public var startedAt: String
        public var elapsedS: Double
        public var timerS: Double
        public var distanceM: Double
        public var sport: String

        public init(startedAt: String, elapsedS: Double, timerS: Double, distanceM: Double, sport: String) {
            self.startedAt = startedAt
            self.elapsedS = elapsedS
            self.timerS = timerS
            self.distanceM = distanceM
            self.sport = sport
        }

        enum CodingKeys: String, CodingKey {
            case sport
            case startedAt = "started_at"
            case elapsedS = "elapsed_s"
            case timerS = "timer_s"
            case distanceM = "distance_m"
        }
    }

    /// The stored file: the `format`, `size` and `sha256` of the run's object.
    public struct File: Codable, Sendable, Hashable {
        /// `fit`, `gpx` or `tcx`, judged by the content.
        public var format: String
        public var size: Int64
        public var sha256: String

        public init(format: String, size: Int64, sha256: String) {
            self.format = format
            self.size = size
            self.sha256 = sha256
        }
    }

    /// Whose run it is, its title ("Morning run" and the like when its runner gave none) and its
    /// runner's description: `runner`, `title` and `description`, written flat.
    public struct Post: Sendable, Hashable {
        public var runner: String?
        public var title: String?
        public var description: String?

        public init(runner: String? = nil, title: String? = nil, description: String? = nil) {
            self.runner = runner
            self.title = title
            self.description = description
        }
    }

    public var uuid: String
    /// Written flat into the run's object, as are `file`'s fields.
    public var measures: Measures
    public var file: File
    public var uploadedAt: String
    /// The upload's `summary` part, kept as sent (an object; `{}` when there was none). A pack
    /// sends an `UploadSummary`.
    public var summary: JSONValue
    /// Always sent by the store; `nil` only from stores that predate it.
    public var countedIn: [Counted]?
    /// In the replies about one run (PUT and GET /v1/runs/{uuid}); absent from the list.
    public var notCounted: [NotCounted]?
    /// Who sees the run: `private`, `friends`, `groups` or `public`; nil from stores that predate it.
    public var visibility: String?
    /// Who sees its map, never more people than see the run.
    public var mapVisibility: String?
    public var post: Post
    /// In `GET /v1/runs/{uuid}`, when the run has a minute or more of RR intervals.
    public var hrv: HRVView?

    public init(
        uuid: String, measures: Measures, file: File, uploadedAt: String, summary: JSONValue, countedIn: [Counted]?,
        notCounted: [NotCounted]? = nil, visibility: String? = nil, mapVisibility: String? = nil
    ) {
        self.uuid = uuid
        self.measures = measures
        self.file = file
        self.uploadedAt = uploadedAt
        self.summary = summary
        self.countedIn = countedIn
        self.notCounted = notCounted
        self.visibility = visibility
        self.mapVisibility = mapVisibility
        self.post = Post()
    }

    public var runner: String? {
        get { post.runner }
        set { post.runner = newValue }
    }
    public var title: String? {
        get { post.title }
        set { post.title = newValue }
    }
    public var description: String? {
        get { post.description }
        set { post.description = newValue }
    }
    public var startedAt: String { measures.startedAt }
    public var elapsedS: Double { measures.elapsedS }
    public var timerS: Double { measures.timerS }
    public var distanceM: Double { measures.distanceM }
    public var sport: String { measures.sport }
    public var format: String { file.format }
    public var size: Int64 { file.size }
    public var sha256: String { file.sha256 }

    enum CodingKeys: String, CodingKey {
        case uuid, summary
        case uploadedAt = "uploaded_at"
        case countedIn = "counted_in"
        case notCounted = "not_counted"
        case visibility, runner, title, description, hrv
        case mapVisibility = "map_visibility"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try c.decode(String.self, forKey: .uuid)
        measures = try Measures(from: decoder)
        file = try File(from: decoder)
        uploadedAt = try c.decode(String.self, forKey: .uploadedAt)
        summary = try c.decode(JSONValue.self, forKey: .summary)
        countedIn = try c.decodeIfPresent([Counted].self, forKey: .countedIn)
        notCounted = try c.decodeIfPresent([NotCounted].self, forKey: .notCounted)
        visibility = try c.decodeIfPresent(String.self, forKey: .visibility)
        mapVisibility = try c.decodeIfPresent(String.self, forKey: .mapVisibility)
        post = Post(
            runner: try c.decodeIfPresent(String.self, forKey: .runner),
            title: try c.decodeIfPresent(String.self, forKey: .title),
            description: try c.decodeIfPresent(String.self, forKey: .description))
        hrv = try c.decodeIfPresent(HRVView.self, forKey: .hrv)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uuid, forKey: .uuid)
        try measures.encode(to: encoder)
        try file.encode(to: encoder)
        try c.encode(uploadedAt, forKey: .uploadedAt)
        try c.encode(summary, forKey: .summary)
        try c.encodeIfPresent(countedIn, forKey: .countedIn)
        try c.encodeIfPresent(notCounted, forKey: .notCounted)
        try c.encodeIfPresent(visibility, forKey: .visibility)
        try c.encodeIfPresent(mapVisibility, forKey: .mapVisibility)
        try c.encodeIfPresent(runner, forKey: .runner)
        try c.encodeIfPresent(title, forKey: .title)
        try c.encodeIfPresent(description, forKey: .description)
        try c.encodeIfPresent(hrv, forKey: .hrv)
    }
}

/// `PATCH /v1/runs/{uuid}`: who sees the run and its map, its title and description; any may be
/// left out.
public struct RunChange: Codable, Sendable, Hashable {
    public var visibility: String?
    public var mapVisibility: String?
    /// The run's title (empty: the default from its time of day and sport) and description.
    public var title: String?
    public var description: String?
    /// `run`, `bike`, `walk`, `swim` or `other`: the run counts again by its new sport.
    public var sport: String?

    public init(
        visibility: String? = nil, mapVisibility: String? = nil, title: String? = nil, description: String? = nil,
        sport: String? = nil
    ) {
        self.visibility = visibility
        self.mapVisibility = mapVisibility
        self.title = title
        self.description = description
        self.sport = sport
    }

    enum CodingKeys: String, CodingKey {
        case visibility, title, description, sport
        case mapVisibility = "map_visibility"
    }
}

/// `GET /v1/runs`: a page of runs, newest first.
public struct RunList: Codable, Sendable, Hashable {
    public var runs: [RunView]
    /// The next page's `cursor`, or null on the last page.
    public var nextCursor: String?

    public init(runs: [RunView], nextCursor: String?) {
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
