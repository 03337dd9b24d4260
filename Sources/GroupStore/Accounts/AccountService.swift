import Crypto
import Foundation
import HandoffModel
import HummingbirdBcrypt
import Logging

/// Accounts and sign-in: the rules, password hashing, tokens and the login rate limit. Passwords
/// are never logged or returned; tokens are random and stored only as their SHA-256.
public struct AccountService: Sendable {
    public struct Configuration: Sendable {
        /// bcrypt's cost (2^cost rounds): 12 takes a few hundred milliseconds, as intended.
        public var bcryptCost: UInt8 = 12
        public var sessionLifetimeSeconds: Int64 = 30 * 24 * 3600
        /// Wrong passwords for one account (from one address, or from anywhere before an
        /// address that has been guessing is refused) within `loginWindowSeconds`.
        public var loginAttempts = 5
        /// Wrong passwords from one client address, whatever the account, in the same window.
        public var addressAttempts = 20
        public var loginWindowSeconds: Int64 = 15 * 60
        /// Accounts made from one client address within `signUpWindowSeconds`.
        public var signUpsPerAddress = 10
        public var signUpWindowSeconds: Int64 = 3600
        /// bcrypt hashes computed at once; more wait in a queue of `bcryptQueue`, and beyond
        /// that are answered `503` with `Retry-After`.
        public var bcryptConcurrency = 2
        public var bcryptQueue = 64
        /// Who may make an account.
        public var signUps = SignUps.open
        public init() {}
    }

    /// Who may make an account: anyone, only someone with a group's invite code, or nobody (the
    /// operator makes accounts).
    public enum SignUps: String, Sendable, CaseIterable {
        case open, invite, closed
    }

    let repository: StoreRepository
    let configuration: Configuration
    let now: @Sendable () -> WallInstant
    /// Where bcrypt runs: off the cooperative pool, a bounded number at once.
    let bcrypt: WorkLimiter
    /// A valid bcrypt hash, at the configured cost, of nothing anyone can type: checked when the
    /// login is unknown, so an unknown login costs what a known one does (and no more).
    let decoyHash: String

    public init(
        repository: StoreRepository, configuration: Configuration = Configuration(),
        now: @escaping @Sendable () -> WallInstant = { WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970) }
    ) {
        self.repository = repository
        self.configuration = configuration
        self.now = now
        bcrypt = WorkLimiter(
            name: "bcrypt", permits: configuration.bcryptConcurrency, queueLimit: configuration.bcryptQueue)
        decoyHash = Bcrypt.hash(UUID().uuidString + UUID().uuidString, cost: configuration.bcryptCost)
    }

    /// A new session token for `account`.
    public struct Issued: Sendable, Encodable {
        public let token: String
        public let expiresAt: String
        enum CodingKeys: String, CodingKey {
            case token
            case expiresAt = "expires_at"
        }
    }

    /// A new account and its first session. Sign-ups are counted per client `address` before
    /// any password is hashed.
    public func signUp(
        email: String, username: String, password: String, address: String, inviteCode: String? = nil
    ) async throws -> (
        Account, Issued
    ) {
        // The first account is the operator's, whatever the policy: someone has to make the
        // first group.
        switch try await repository.hasAccounts() ? configuration.signUps : .open {
        case .open: break
        case .closed:
            throw StoreError(
                .forbidden, "signups_closed", "this store makes no new accounts: ask its operator for one")
        case .invite:
            guard let inviteCode, try await repository.inviteExists(inviteCode.lowercased()) else {
                throw StoreError(
                    .forbidden, "invite_only",
                    "this store makes accounts by invitation: open the invite link a group's member sent you")
            }
        }
        let email = try AccountRules.email(email)
        let username = try AccountRules.username(username)
        try AccountRules.password(password)
        if let wait = try await repository.countAttempt(
            key: "signup:\(address)", limit: configuration.signUpsPerAddress,
            windowSeconds: configuration.signUpWindowSeconds, now: now())
        {
            throw StoreError(
                .tooManyRequests, "too_many_signups",
                "too many accounts made from your address: try again in \(wait / 60 + 1) minutes", retryAfter: Int(wait)
            )
        }
        let hash = try await hashPassword(password)
        let account = try await repository.createAccount(
            email: email, username: username, passwordHash: hash, now: now())
        return (account, try await issue(account.id))
    }

    /// A session for the account `login` names (username or e-mail), if `password` is its own.
    public func signIn(login: String, password: String, address: String) async throws -> (Account, Issued) {
        // The same work whether or not the account exists, so timing does not tell.
        let account = try await repository.account(login: login)
        let key = account.map(Self.attemptKey) ?? "login:" + TextRules.key(login)
        let time = now()
        try await countAttempt(key, address, "sign-ins for \(login)", at: time)
        let ok = try await verify(password, hash: account?.passwordHash ?? decoyHash)
        guard let account, ok else {
            throw StoreError(.unauthorized, "wrong_credentials", "the login or the password is wrong")
        }
        try await repository.passwordAccepted(key: key, address: address, at: time)
        guard try await !repository.isSuspended(account.id) else { throw Self.suspended }
        return (account, try await issue(account.id))
    }

    static let suspended = StoreError(
        .forbidden, "account_suspended",
        "this account is suspended by the store's operator after a report: ask the operator if you think it is a mistake"
    )

    /// Password attempts are limited per account, however it is named (username or email) and
    /// wherever the password is asked (signing in, changing email or password, deleting), per
    /// account and client address, and per address; all in the database, so every store instance
    /// over it counts together (`StoreRepository.passwordAttempt` has the rule). Over a limit:
    /// 429 until the oldest attempt leaves the window.
    private func countAttempt(_ key: String, _ address: String, _ what: String, at time: WallInstant) async throws {
        let limits = StoreRepository.PasswordLimits(
            perAccount: configuration.loginAttempts, perAddress: configuration.addressAttempts,
            windowSeconds: configuration.loginWindowSeconds)
        if let wait = try await repository.passwordAttempt(key: key, address: address, limits: limits, now: time) {
            throw StoreError(
                .tooManyRequests, "too_many_attempts",
                "too many wrong passwords in a row (\(what)): try again in \(wait / 60 + 1) minutes",
                retryAfter: Int(wait))
        }
    }

    static func attemptKey(_ account: Account) -> String { "account:\(account.id)" }

    /// Checks the account's password, counting the attempt.
    private func checkPassword(
        _ account: Account, _ password: String, _ what: String, _ address: String
    )
        async throws -> Bool
    {
        let time = now()
        try await countAttempt(Self.attemptKey(account), address, what, at: time)
        guard try await verify(password, hash: account.passwordHash) else { return false }
        try await repository.passwordAccepted(key: Self.attemptKey(account), address: address, at: time)
        return true
    }

    /// The account behind a bearer token.
    public func authenticate(token: String) async throws -> Credential {
        guard let found = try await repository.token(hash: Self.digest(token), now: now()) else {
            throw StoreError(
                .unauthorized, "invalid_token",
                "this token is unknown, expired or revoked: sign in again (POST /v1/sessions)")
        }
        return found
    }

    public func signOut(token: String) async throws { try await repository.deleteToken(hash: Self.digest(token)) }

    /// Changes username, email or password; the current password is asked for all but the
    /// username. A new password ends every other session and unlinks every pack.
    public func update(
        _ account: Account, token: String, username: String?, email: String?, password: String?,
        currentPassword: String?, address: String
    ) async throws -> Account {
        var changed = account
        if let username { changed.username = try AccountRules.username(username) }
        if email != nil || password != nil {
            guard let currentPassword,
                try await checkPassword(account, currentPassword, "changing your account", address)
            else {
                throw StoreError(
                    .forbidden, "wrong_password",
                    "give your current password (current_password) to change email or password")
            }
        }
        if let email { changed.email = try AccountRules.email(email) }
        if let password {
            try AccountRules.password(password)
            changed.passwordHash = try await hashPassword(password)
        }
        try await repository.updateAccount(changed)
        if password != nil { try await repository.endTokens(account: account.id, keeping: Self.digest(token)) }
        return changed
    }

    /// Deletes the account with its sessions, packs and runs; what it ran stays in its groups'
    /// totals (as former members'). Asks for the password.
    public func delete(_ account: Account, password: String, address: String) async throws {
        guard try await checkPassword(account, password, "deleting your account", address) else {
            throw StoreError(.forbidden, "wrong_password", "give your password to delete the account")
        }
        try await repository.deleteAccount(id: account.id, now: now())
    }

    /// Sets a new password from the operator's one-time link: every session and pack token ends.
    public func resetPassword(token: String, password: String) async throws {
        try AccountRules.password(password)
        guard try await repository.passwordReset(token: token, now: now()) != nil else { throw Self.resetGone }
        let hash = try await hashPassword(password)
        guard try await repository.usePasswordReset(token: token, passwordHash: hash, now: now()) else {
            throw Self.resetGone
        }
    }

    static let resetGone = StoreError(
        .notFound, "not_found",
        "this reset link is used, expired or not one the store made: ask the store's operator for a new one")

    private func issue(_ account: Int64) async throws -> Issued {
        let token = Self.randomToken()
        let time = now()
        let expires = time.advanced(byNanoseconds: configuration.sessionLifetimeSeconds * nanosecondsPerSecond)
        try await repository.createToken(
            hash: Self.digest(token), account: account, scope: .session, expires: expires, now: time)
        return Issued(token: token, expiresAt: CivilTime(expires).iso8601())
    }

    /// 256 random bits as 64 hex digits.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// bcrypt off the async threads and bounded (it is meant to be slow): `503 busy` when the
    /// queue is full.
    private func hashPassword(_ password: String) async throws -> String {
        let cost = configuration.bcryptCost
        do {
            return try await bcrypt.run { Bcrypt.hash(password, cost: cost) }
        } catch {
            throw StoreError.busy("checking passwords")
        }
    }

    private func verify(_ password: String, hash: String) async throws -> Bool {
        do {
            return try await bcrypt.run { Bcrypt.verify(password, hash: hash) }
        } catch {
            throw StoreError.busy("checking passwords")
        }
    }
}
