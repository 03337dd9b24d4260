/// An account as the API shows it: never its password hash (`Account`).
public struct AccountView: Codable, Sendable, Hashable {
    public var id: Int64
    public var email: String
    public var username: String
    public var createdAt: String

    public init(id: Int64, email: String, username: String, createdAt: String) {
        self.id = id
        self.email = email
        self.username = username
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, email, username
        case createdAt = "created_at"
    }
}

/// `POST /v1/accounts` (201) and `POST /v1/sessions`: the account with a new session token.
public struct SignedIn: Codable, Sendable, Hashable {
    public var account: AccountView
    public var token: String
    public var expiresAt: String

    public init(account: AccountView, token: String, expiresAt: String) {
        self.account = account
        self.token = token
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case account, token
        case expiresAt = "expires_at"
    }
}

/// `POST /v1/accounts`.
public struct SignUp: Codable, Sendable, Hashable {
    public var email: String
    public var username: String
    public var password: String
    /// A group's invite code: needed when the store makes accounts by invitation only.
    public var inviteCode: String?

    public init(email: String, username: String, password: String, inviteCode: String? = nil) {
        self.email = email
        self.username = username
        self.password = password
        self.inviteCode = inviteCode
    }

    enum CodingKeys: String, CodingKey {
        case email, username, password
        case inviteCode = "invite_code"
    }
}

/// `POST /v1/sessions`: `login` is the username or the email.
public struct SignIn: Codable, Sendable, Hashable {
    public var login: String
    public var password: String

    public init(login: String, password: String) {
        self.login = login
        self.password = password
    }
}

/// `PATCH /v1/me`: absent keys keep their value.
public struct AccountChange: Codable, Sendable, Hashable {
    public var username: String?
    public var email: String?
    public var password: String?
    public var currentPassword: String?

    public init(
        username: String? = nil, email: String? = nil, password: String? = nil, currentPassword: String? = nil
    ) {
        self.username = username
        self.email = email
        self.password = password
        self.currentPassword = currentPassword
    }

    enum CodingKeys: String, CodingKey {
        case username, email, password
        case currentPassword = "current_password"
    }
}

/// `DELETE /v1/me`.
public struct AccountDeletion: Codable, Sendable, Hashable {
    public var password: String

    public init(password: String) { self.password = password }
}

/// `GET /v1/me/weeks`: the runner's distance week by week.
public struct Weeks: Codable, Sendable, Hashable {
    public struct Week: Codable, Sendable, Hashable {
        public var weekStarting: String
        public var distanceM: Double
        public var runs: Int64

        public init(weekStarting: String, distanceM: Double, runs: Int64) {
            self.weekStarting = weekStarting
            self.distanceM = distanceM
            self.runs = runs
        }

        enum CodingKeys: String, CodingKey {
            case weekStarting = "week_starting"
            case distanceM = "distance_m"
            case runs
        }
    }

    public var weeks: [Week]

    public init(weeks: [Week]) { self.weeks = weeks }
}
