import Crypto
import Dispatch
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
        public var loginAttempts = 5
        public var loginWindowSeconds: Int64 = 15 * 60
        public init() {}
    }

    let repository: StoreRepository
    let configuration: Configuration
    let now: @Sendable () -> WallInstant

    public init(
        repository: StoreRepository, configuration: Configuration = Configuration(),
        now: @escaping @Sendable () -> WallInstant = { WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970) }
    ) {
        self.repository = repository
        self.configuration = configuration
        self.now = now
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

    public func signUp(email: String, username: String, password: String) async throws -> (Account, Issued) {
        let email = try AccountRules.email(email)
        let username = try AccountRules.username(username)
        try AccountRules.password(password)
        let hash = await hashPassword(password)
        let account = try await repository.createAccount(
            email: email, username: username, passwordHash: hash, now: now())
        return (account, try await issue(account.id))
    }

    public func signIn(login: String, password: String) async throws -> (Account, Issued) {
        // The same work whether or not the account exists, so timing does not tell.
        let account = try await repository.account(login: login)
        let key = account.map(Self.attemptKey) ?? "login:" + login.lowercased()
        try await countAttempt(key, "sign-ins for \(login)")
        let ok = await verify(password, hash: account?.passwordHash ?? Self.decoyHash)
        guard let account, ok else {
            throw StoreError(.unauthorized, "wrong_credentials", "the login or the password is wrong")
        }
        try await repository.passwordAccepted(key: key)
        return (account, try await issue(account.id))
    }

    /// Password attempts are limited per account, however it is named (username or email) and
    /// wherever the password is asked (signing in, changing email or password, deleting), and in
    /// the database, so every store instance over it counts together: `loginAttempts` in
    /// `loginWindowSeconds`, then 429 until the oldest leaves the window.
    private func countAttempt(_ key: String, _ what: String) async throws {
        if let wait = try await repository.passwordAttempt(
            key: key, limit: configuration.loginAttempts, window: configuration.loginWindowSeconds, now: now())
        {
            throw StoreError(
                .tooManyRequests, "too_many_attempts",
                "too many wrong passwords in a row (\(what)): try again in \(wait / 60 + 1) minutes",
                retryAfter: Int(wait))
        }
    }

    static func attemptKey(_ account: Account) -> String { "account:\(account.id)" }

    /// Checks the account's password, counting the attempt.
    private func checkPassword(_ account: Account, _ password: String, _ what: String) async throws -> Bool {
        try await countAttempt(Self.attemptKey(account), what)
        guard await verify(password, hash: account.passwordHash) else { return false }
        try await repository.passwordAccepted(key: Self.attemptKey(account))
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
    /// username. A new password ends every other session.
    public func update(
        _ account: Account, token: String, username: String?, email: String?, password: String?,
        currentPassword: String?
    ) async throws -> Account {
        var changed = account
        if let username { changed.username = try AccountRules.username(username) }
        if email != nil || password != nil {
            guard let currentPassword, try await checkPassword(account, currentPassword, "changing your account")
            else {
                throw StoreError(
                    .forbidden, "wrong_password",
                    "give your current password (current_password) to change email or password")
            }
        }
        if let email { changed.email = try AccountRules.email(email) }
        if let password {
            try AccountRules.password(password)
            changed.passwordHash = await hashPassword(password)
        }
        try await repository.updateAccount(changed)
        if password != nil { try await repository.deleteSessions(account: account.id, keeping: Self.digest(token)) }
        return changed
    }

    /// Deletes the account with its sessions, packs and runs; what it ran stays in its groups'
    /// totals (as former members'). Asks for the password.
    public func delete(_ account: Account, password: String) async throws {
        guard try await checkPassword(account, password, "deleting your account") else {
            throw StoreError(.forbidden, "wrong_password", "give your password to delete the account")
        }
        try await repository.deleteAccount(id: account.id, now: now())
    }

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

    /// bcrypt off the async threads: it is meant to be slow.
    private func hashPassword(_ password: String) async -> String {
        let cost = configuration.bcryptCost
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Bcrypt.hash(password, cost: cost)) }
        }
    }

    private func verify(_ password: String, hash: String) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Bcrypt.verify(password, hash: hash)) }
        }
    }

    /// A valid bcrypt hash of nothing anyone can type, checked when the login is unknown.
    static let decoyHash = Bcrypt.hash(UUID().uuidString + UUID().uuidString, cost: 12)
}
