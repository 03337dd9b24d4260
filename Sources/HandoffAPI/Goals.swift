/// A person's own goal (`POST /v1/me/goals`): per day or week, of distance, time, runs or steps,
/// in one sport or all. Setting a goal of the same period, measure and sport replaces it.
public struct GoalSet: Codable, Sendable, Hashable {
    /// `day` or `week` (the person's calendar; weeks start on Monday).
    public var period: String
    /// `distance` (metres), `time` (seconds of running time), `runs` or `steps`.
    public var measure: String
    /// One of the sports, or null for all of them.
    public var sport: String?
    public var target: Double

    public init(period: String, measure: String, sport: String? = nil, target: Double) {
        self.period = period
        self.measure = measure
        self.sport = sport
        self.target = target
    }

    enum CodingKeys: String, CodingKey { case period, measure, sport, target }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(period, forKey: .period)
        try c.encode(measure, forKey: .measure)
        try c.encode(sport, forKey: .sport)
        try c.encode(target, forKey: .target)
    }
}

/// A goal with how much of it is done in the current day or week, and its history.
public struct GoalView: Codable, Sendable, Hashable {
    /// One earlier day or week, newest first.
    public struct Period: Codable, Sendable, Hashable {
        /// The day, or the week's Monday (a date on the person's calendar).
        public var start: String
        public var done: Double
        public var met: Bool

        public init(start: String, done: Double, met: Bool) {
            self.start = start
            self.done = done
            self.met = met
        }
    }

    public var id: Int64
    public var period: String
    public var measure: String
    public var sport: String?
    public var target: Double
    /// Done in the current day or week, in the measure's unit.
    public var done: Double
    /// Whole percent of the target done, not capped at 100.
    public var percent: Int
    /// Consecutive finished periods met, up to the last one.
    public var streak: Int
    /// The 12 finished periods before the current one.
    public var history: [Period]

    public init(
        id: Int64, period: String, measure: String, sport: String?, target: Double, done: Double, percent: Int,
        streak: Int, history: [Period]
    ) {
        self.id = id
        self.period = period
        self.measure = measure
        self.sport = sport
        self.target = target
        self.done = done
        self.percent = percent
        self.streak = streak
        self.history = history
    }

    enum CodingKeys: String, CodingKey { case id, period, measure, sport, target, done, percent, streak, history }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(period, forKey: .period)
        try c.encode(measure, forKey: .measure)
        try c.encode(sport, forKey: .sport)
        try c.encode(target, forKey: .target)
        try c.encode(done, forKey: .done)
        try c.encode(percent, forKey: .percent)
        try c.encode(streak, forKey: .streak)
        try c.encode(history, forKey: .history)
    }
}

/// `GET /v1/me/goals`: daily goals first, then weekly.
public struct GoalList: Codable, Sendable, Hashable {
    public var goals: [GoalView]

    public init(goals: [GoalView]) { self.goals = goals }
}

/// `GET /v1/me/level`: the level earned from lifetime distance and objectives completed, all
/// computed from the runs kept now (a deleted run can take an objective back).
public struct LevelView: Codable, Sendable, Hashable {
    public struct Objective: Codable, Sendable, Hashable {
        /// Stable: `first_5k`, `first_10k`, `half_marathon`, `marathon`, `four_weeks`, `baton_leg`, `group_goal`.
        public var id: String
        public var name: String
        /// The rule, in words.
        public var rule: String
        public var done: Bool

        public init(id: String, name: String, rule: String, done: Bool) {
            self.id = id
            self.name = name
            self.rule = rule
            self.done = done
        }
    }

    public var level: Int
    /// Whole kilometres over every sport, and 50 for each objective done.
    public var points: Int
    public var distanceM: Double
    /// The points the next level needs.
    public var nextLevelPoints: Int
    public var objectives: [Objective]

    public init(level: Int, points: Int, distanceM: Double, nextLevelPoints: Int, objectives: [Objective]) {
        self.level = level
        self.points = points
        self.distanceM = distanceM
        self.nextLevelPoints = nextLevelPoints
        self.objectives = objectives
    }

    enum CodingKeys: String, CodingKey {
        case level, points, objectives
        case distanceM = "distance_m"
        case nextLevelPoints = "next_level_points"
    }
}
