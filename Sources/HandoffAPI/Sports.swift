/// The sports the store knows, by the names the API uses.
public enum Sport: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    case run, bike, walk, swim, other

    public static func < (a: Sport, b: Sport) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// `POST /v1/runs`: an activity entered by hand, for what no pack records (a swim, a run
/// without a watch). Answered like an upload: the new `Run`, where it counted and why not.
public struct ManualRun: Codable, Sendable, Hashable {
    /// `run`, `bike`, `walk`, `swim` or `other`.
    public var sport: String
    public var startedAt: String
    public var elapsedS: Double
    public var distanceM: Double
    /// Becomes the run's description.
    public var notes: String?
    /// A swim's pool length; absent or null: open water. Only for `swim`.
    public var poolLengthM: Double?
    /// A swim's strokes, when counted. Only for `swim`.
    public var strokes: Int?
    /// The client's name for the entry (a UUID): sent again, the same entry is answered 200,
    /// not stored twice. Absent: the store names it.
    public var uuid: String?

    public init(
        sport: String, startedAt: String, elapsedS: Double, distanceM: Double, notes: String? = nil,
        poolLengthM: Double? = nil, strokes: Int? = nil, uuid: String? = nil
    ) {
        self.sport = sport
        self.startedAt = startedAt
        self.elapsedS = elapsedS
        self.distanceM = distanceM
        self.notes = notes
        self.poolLengthM = poolLengthM
        self.strokes = strokes
        self.uuid = uuid
    }

    enum CodingKeys: String, CodingKey {
        case sport, notes, strokes, uuid
        case startedAt = "started_at"
        case elapsedS = "elapsed_s"
        case distanceM = "distance_m"
        case poolLengthM = "pool_length_m"
    }
}

/// One personal record (`Record`): a best effort over a standard distance (`kind`
/// `best_effort`: the fastest `distance_m` found anywhere inside one run), the longest run
/// (`longest`) or the biggest week (`biggest_week`, whose `uuid` is null and `week` its Monday).
public struct RecordView: Codable, Sendable, Hashable {
    public var kind: String
    /// "5 km", "Mile", "Longest", "Biggest week".
    public var name: String
    public var sport: String
    public var distanceM: Double
    public var elapsedS: Double
    /// The run that set it; null for a week.
    public var uuid: String?
    /// When the run started, or the week's Monday (a date).
    public var at: String

    public init(
        kind: String, name: String, sport: String, distanceM: Double, elapsedS: Double, uuid: String?, at: String
    ) {
        self.kind = kind
        self.name = name
        self.sport = sport
        self.distanceM = distanceM
        self.elapsedS = elapsedS
        self.uuid = uuid
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case kind, name, sport, uuid, at
        case distanceM = "distance_m"
        case elapsedS = "elapsed_s"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(name, forKey: .name)
        try c.encode(sport, forKey: .sport)
        try c.encode(distanceM, forKey: .distanceM)
        try c.encode(elapsedS, forKey: .elapsedS)
        try c.encode(uuid, forKey: .uuid)
        try c.encode(at, forKey: .at)
    }
}

/// `GET /v1/me/records`: per sport (run, bike, walk, swim, other in that order), the best
/// efforts shortest first, then the longest run and the biggest week.
public struct RecordList: Codable, Sendable, Hashable {
    public var records: [RecordView]

    public init(records: [RecordView]) { self.records = records }
}

/// `GET /v1/me/training`: distance per sport per week, and the training load day by day.
public struct TrainingView: Codable, Sendable, Hashable {
    public struct Week: Codable, Sendable, Hashable {
        /// The Monday (UTC) the week starts on, a date.
        public var weekStarting: String
        /// Metres per sport; a sport without activity that week is left out.
        public var sports: [String: Double]

        public init(weekStarting: String, sports: [String: Double]) {
            self.weekStarting = weekStarting
            self.sports = sports
        }

        enum CodingKeys: String, CodingKey {
            case sports
            case weekStarting = "week_starting"
        }
    }

    public struct Day: Codable, Sendable, Hashable {
        public var date: String
        /// The day's load (Banister's TRIMP, summed over its activities).
        public var load: Double
        /// 42-day exponentially weighted average of load.
        public var fitness: Double
        /// 7-day exponentially weighted average of load.
        public var fatigue: Double
        /// Fitness minus fatigue, as of the start of the day.
        public var form: Double

        public init(date: String, load: Double, fitness: Double, fatigue: Double, form: Double) {
            self.date = date
            self.load = load
            self.fitness = fitness
            self.fatigue = fatigue
            self.form = form
        }
    }

    /// Oldest first.
    public var weeks: [Week]
    /// Oldest first, one per day up to today.
    public var days: [Day]
    public var restingHeartRate: Int
    public var maximumHeartRate: Int
    /// How the two heart rates were had: `settings`, or `estimated` from the runs.
    public var heartRateSource: String
    /// The same weeks as `weeks`: seconds in each heart-rate zone.
    public var zoneWeeks: [ZoneWeek]

    /// A week's seconds in the five zones: zone k from (40 + 10k) % of `maximum_heart_rate` up to
    /// the next; zone 5 is 90 % and over. Seconds under 50 % are in no zone.
    public struct ZoneWeek: Codable, Sendable, Hashable {
        public var weekStarting: String
        /// Five numbers, zone 1 first.
        public var seconds: [Double]

        public init(weekStarting: String, seconds: [Double]) {
            self.weekStarting = weekStarting
            self.seconds = seconds
        }

        enum CodingKeys: String, CodingKey {
            case seconds
            case weekStarting = "week_starting"
        }
    }

    public init(
        weeks: [Week], days: [Day], restingHeartRate: Int, maximumHeartRate: Int, heartRateSource: String,
        zoneWeeks: [ZoneWeek] = []
    ) {
        self.weeks = weeks
        self.days = days
        self.restingHeartRate = restingHeartRate
        self.maximumHeartRate = maximumHeartRate
        self.heartRateSource = heartRateSource
        self.zoneWeeks = zoneWeeks
    }

    enum CodingKeys: String, CodingKey {
        case weeks, days
        case restingHeartRate = "resting_heart_rate"
        case maximumHeartRate = "maximum_heart_rate"
        case heartRateSource = "heart_rate_source"
        case zoneWeeks = "zone_weeks"
    }
}

/// `GET /v1/me/steps`: steps per day over the last 30 days of the person's calendar.
public struct StepsView: Codable, Sendable, Hashable {
    public struct Day: Codable, Sendable, Hashable {
        public var date: String
        /// All the day's steps: its runs' and those outside runs.
        public var steps: Int
        /// Of those, the steps a pack counted outside runs (`PUT /v1/me/steps`).
        public var outsideRuns: Int

        public init(date: String, steps: Int, outsideRuns: Int = 0) {
            self.date = date
            self.steps = steps
            self.outsideRuns = outsideRuns
        }

        enum CodingKeys: String, CodingKey {
            case date, steps
            case outsideRuns = "outside_runs"
        }
    }

    /// Oldest first, today last; a day without steps is 0.
    public var days: [Day]
    /// The daily goal; null until the person sets one.
    public var goal: Int?

    public init(days: [Day], goal: Int?) {
        self.days = days
        self.goal = goal
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(days, forKey: .days)
        try c.encode(goal, forKey: .goal)
    }

    enum CodingKeys: String, CodingKey {
        case days, goal
    }
}

/// `PUT /v1/me/steps`: the steps a pack counted outside runs, per day of its own calendar. Each
/// day's count replaces what the same pack (or, with a person's session, the person) said for
/// that day before; the store adds them to the steps of the day's runs.
public struct StepsOutsideRuns: Codable, Sendable, Hashable {
    public struct Day: Codable, Sendable, Hashable {
        /// `2026-11-28`.
        public var date: String
        public var steps: Int

        public init(date: String, steps: Int) {
            self.date = date
            self.steps = steps
        }
    }

    /// At most 62 days.
    public var days: [Day]
    /// The counting pack's own lasting id (1–64 letters, digits and hyphens): a pack linked again
    /// replaces its earlier counts instead of adding to them. Absent: the token's pack, or the
    /// person's own count.
    public var pack: String?

    public init(days: [Day], pack: String? = nil) {
        self.days = days
        self.pack = pack
    }
}
