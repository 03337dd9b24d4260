import Foundation
import GRDB
import HandoffModel

/// The store in one SQLite file (WAL), through GRDB on the system SQLite.
public final class SQLiteRepository: StoreRepository {
    let pool: DatabasePool

    /// Opens (creating and migrating) the database at `path`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        configuration.busyMode = .timeout(10)
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: accounts and tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE account (
                        id INTEGER PRIMARY KEY,
                        email TEXT NOT NULL UNIQUE,
                        username TEXT NOT NULL,
                        password_hash TEXT NOT NULL,
                        created_ns INTEGER NOT NULL
                    );
                    CREATE UNIQUE INDEX account_username ON account (lower(username));
                    CREATE TABLE token (
                        hash TEXT PRIMARY KEY,
                        account_id INTEGER NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                        scope TEXT NOT NULL CHECK (scope IN ('session', 'device')),
                        created_ns INTEGER NOT NULL,
                        expires_ns INTEGER NOT NULL
                    );
                    CREATE INDEX token_account ON token (account_id);
                    """)
        }
        return migrator
    }

    private static func account(_ row: Row) -> Account {
        Account(
            id: row["id"], email: row["email"], username: row["username"], passwordHash: row["password_hash"],
            created: WallInstant(nanosecondsSinceEpoch: row["created_ns"]))
    }

    public func createAccount(
        email: String, username: String, passwordHash: String, now: WallInstant
    ) async throws
        -> Account
    {
        try await pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM account WHERE email = ?", arguments: [email]) == true {
                throw StoreError(
                    .conflict, "email_taken", "an account with \(email) exists: sign in, or use another email")
            }
            if try Bool.fetchOne(
                db, sql: "SELECT 1 FROM account WHERE lower(username) = lower(?)", arguments: [username])
                == true
            {
                throw StoreError(.conflict, "username_taken", "the username \(username) is taken: choose another")
            }
            try db.execute(
                sql: "INSERT INTO account (email, username, password_hash, created_ns) VALUES (?, ?, ?, ?)",
                arguments: [email, username, passwordHash, now.nanosecondsSinceEpoch])
            return Account(
                id: db.lastInsertedRowID, email: email, username: username, passwordHash: passwordHash, created: now)
        }
    }

    public func account(id: Int64) async throws -> Account? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM account WHERE id = ?", arguments: [id]).map(Self.account)
        }
    }

    public func account(login: String) async throws -> Account? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM account WHERE email = lower(?) OR lower(username) = lower(?)",
                arguments: [login, login]
            ).map(Self.account)
        }
    }

    public func updateAccount(_ account: Account) async throws {
        try await pool.write { db in
            if try Bool.fetchOne(
                db, sql: "SELECT 1 FROM account WHERE email = ? AND id != ?", arguments: [account.email, account.id])
                == true
            {
                throw StoreError(.conflict, "email_taken", "another account uses \(account.email)")
            }
            if try Bool.fetchOne(
                db, sql: "SELECT 1 FROM account WHERE lower(username) = lower(?) AND id != ?",
                arguments: [account.username, account.id]) == true
            {
                throw StoreError(
                    .conflict, "username_taken", "the username \(account.username) is taken: choose another")
            }
            try db.execute(
                sql: "UPDATE account SET email = ?, username = ?, password_hash = ? WHERE id = ?",
                arguments: [account.email, account.username, account.passwordHash, account.id])
        }
    }

    public func deleteAccount(id: Int64) async throws {
        try await pool.write { db in try db.execute(sql: "DELETE FROM account WHERE id = ?", arguments: [id]) }
    }

    public func createToken(
        hash: String, account: Int64, scope: TokenScope, expires: WallInstant, now: WallInstant
    )
        async throws
    {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO token (hash, account_id, scope, created_ns, expires_ns) VALUES (?, ?, ?, ?, ?)",
                arguments: [hash, account, scope.rawValue, now.nanosecondsSinceEpoch, expires.nanosecondsSinceEpoch])
        }
    }

    public func token(hash: String, now: WallInstant) async throws -> (account: Account, scope: TokenScope)? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT account.*, token.scope FROM token JOIN account ON account.id = token.account_id
                        WHERE token.hash = ? AND token.expires_ns > ?
                        """, arguments: [hash, now.nanosecondsSinceEpoch]),
                let scope = TokenScope(rawValue: row["scope"])
            else { return nil }
            return (Self.account(row), scope)
        }
    }

    public func deleteToken(hash: String) async throws {
        try await pool.write { db in try db.execute(sql: "DELETE FROM token WHERE hash = ?", arguments: [hash]) }
    }

    public func deleteTokens(account: Int64, keeping: String?) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM token WHERE account_id = ? AND hash != ?", arguments: [account, keeping ?? ""])
        }
    }
}
