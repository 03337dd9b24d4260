import HandoffModel

/// Where the store keeps its data. One protocol; SQLite is the embedded default (PostgreSQL
/// comes as a second implementation with the same test suite).
public protocol StoreRepository: Sendable {
    /// Creates an account; a taken email or username is a `StoreError` 409 naming which.
    func createAccount(email: String, username: String, passwordHash: String, now: WallInstant) async throws -> Account
    func account(id: Int64) async throws -> Account?
    /// By email (any case) or username.
    func account(login: String) async throws -> Account?
    func updateAccount(_ account: Account) async throws
    /// Deletes the account with its tokens.
    func deleteAccount(id: Int64) async throws

    func createToken(
        hash: String, account: Int64, scope: TokenScope, expires: WallInstant, now: WallInstant) async throws
    /// The account and scope of an unexpired token.
    func token(hash: String, now: WallInstant) async throws -> (account: Account, scope: TokenScope)?
    func deleteToken(hash: String) async throws
    /// Every token of an account but `keeping` (after a password change: other sessions end).
    func deleteTokens(account: Int64, keeping: String?) async throws
}
