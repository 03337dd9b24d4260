/// Totals over a set of runs.
public struct RunTotals: Codable, Sendable, Hashable {
    public var runs: Int64
    public var distanceM: Double
    public var timerS: Double
    /// The longest run's distance.
    public var longestM: Double

    public init(runs: Int64, distanceM: Double, timerS: Double, longestM: Double) {
        self.runs = runs
        self.distanceM = distanceM
        self.timerS = timerS
        self.longestM = longestM
    }

    enum CodingKeys: String, CodingKey {
        case runs
        case distanceM = "distance_m"
        case timerS = "timer_s"
        case longestM = "longest_m"
    }
}

/// A person's profile fields, each present only where its owner lets the caller see it.
public struct ProfileFields: Codable, Sendable, Hashable {
    public var nickname: String?
    public var heightCm: Int?
    public var weightKg: Double?
    /// `woman`, `man` or `nonbinary`.
    public var gender: String?
    public var birthYear: Int?

    public init(
        nickname: String? = nil, heightCm: Int? = nil, weightKg: Double? = nil, gender: String? = nil,
        birthYear: Int? = nil
    ) {
        self.nickname = nickname
        self.heightCm = heightCm
        self.weightKg = weightKg
        self.gender = gender
        self.birthYear = birthYear
    }

    enum CodingKeys: String, CodingKey {
        case nickname, gender
        case heightCm = "height_cm"
        case weightKg = "weight_kg"
        case birthYear = "birth_year"
    }
}

/// `GET /v1/people/{username}`: a person as the caller may see them.
public struct PersonView: Codable, Sendable, Hashable {
    public var username: String
    public var profile: ProfileFields
    /// Their profile photo, where its level lets the caller see it.
    public var photo: PhotoView?
    /// `self`, `friends`, `asked` (the caller asked), `asking` (they asked the caller), or absent.
    public var friendship: String?
    /// Over the runs the caller may see.
    public var totals: RunTotals
    /// The newest ten of those runs.
    public var runs: [FeedItem]

    public init(
        username: String, profile: ProfileFields, photo: PhotoView?, friendship: String?, totals: RunTotals,
        runs: [FeedItem]
    ) {
        self.username = username
        self.profile = profile
        self.photo = photo
        self.friendship = friendship
        self.totals = totals
        self.runs = runs
    }
}

/// `GET /v1/compare/{username}`: the caller and another side by side, the other's runs counted
/// only where the caller may see them.
public struct ComparisonView: Codable, Sendable, Hashable {
    public struct Period: Codable, Sendable, Hashable {
        /// `week`, `four_weeks`, `year` or `all`.
        public var period: String
        public var mine: RunTotals
        public var theirs: RunTotals

        public init(period: String, mine: RunTotals, theirs: RunTotals) {
            self.period = period
            self.mine = mine
            self.theirs = theirs
        }
    }

    public struct Week: Codable, Sendable, Hashable {
        /// The Monday it starts on (UTC).
        public var weekStarting: String
        public var mineM: Double
        public var theirsM: Double

        public init(weekStarting: String, mineM: Double, theirsM: Double) {
            self.weekStarting = weekStarting
            self.mineM = mineM
            self.theirsM = theirsM
        }

        enum CodingKeys: String, CodingKey {
            case weekStarting = "week_starting"
            case mineM = "mine_m"
            case theirsM = "theirs_m"
        }
    }

    public var username: String
    public var periods: [Period]
    /// Twelve weeks, oldest first.
    public var weeks: [Week]

    public init(username: String, periods: [Period], weeks: [Week]) {
        self.username = username
        self.periods = periods
        self.weeks = weeks
    }
}

/// One field of the caller's own profile: its value as typed and who sees it.
public struct ProfileEntry: Codable, Sendable, Hashable {
    public var value: String
    /// `private`, `friends`, `groups` (people who share a group with you now) or `public`.
    public var visibility: String

    public init(value: String, visibility: String) {
        self.value = value
        self.visibility = visibility
    }
}

/// `GET` and `PUT /v1/me/profile`: the caller's profile, each field optional with who sees it. A
/// `PUT` replaces it whole: a field left out is removed.
public struct ProfileSettings: Codable, Sendable, Hashable {
    public var nickname: ProfileEntry?
    public var heightCm: ProfileEntry?
    public var weightKg: ProfileEntry?
    public var gender: ProfileEntry?
    public var birthYear: ProfileEntry?

    public init(
        nickname: ProfileEntry? = nil, heightCm: ProfileEntry? = nil, weightKg: ProfileEntry? = nil,
        gender: ProfileEntry? = nil, birthYear: ProfileEntry? = nil
    ) {
        self.nickname = nickname
        self.heightCm = heightCm
        self.weightKg = weightKg
        self.gender = gender
        self.birthYear = birthYear
    }

    enum CodingKeys: String, CodingKey {
        case nickname, gender
        case heightCm = "height_cm"
        case weightKg = "weight_kg"
        case birthYear = "birth_year"
    }
}
