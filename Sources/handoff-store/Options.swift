import ArgumentParser
import Foundation
import GroupStore
import HandoffModel
import Logging

/// Where the store keeps its data: SQLite in a directory, or a PostgreSQL database.
struct StorageOptions: ParsableArguments {
    @Option(
        help: "The data directory for the SQLite database (HANDOFF_STORE_DATA; default $XDG_DATA_HOME/handoff-store).")
    var data: String?

    @Option(
        help: """
            A PostgreSQL database instead of SQLite, as postgres://USER:PASSWORD@HOST:PORT/NAME \
            (HANDOFF_STORE_DATABASE).
            """)
    var database: String?

    func databaseURL(_ environment: [String: String]) -> String? {
        (database ?? environment["HANDOFF_STORE_DATABASE"]).flatMap { $0.isEmpty ? nil : $0 }
    }

    func directory(_ environment: [String: String]) -> String {
        if let data = data ?? environment["HANDOFF_STORE_DATA"] { return data }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/handoff-store" }
        return (environment["HOME"] ?? ".") + "/.local/share/handoff-store"
    }

    /// Runs `body` with the store's repository over its database (migrated first), for the
    /// operator's commands; the store's own errors become a sentence and a non-zero exit.
    func withRepository<T: Sendable>(_ body: @escaping @Sendable (StoreRepository) async throws -> T) async throws -> T
    {
        var logger = Logger(label: "handoff.store")
        logger.logLevel = .warning
        let database = try open(ProcessInfo.processInfo.environment, logger: logger)
        let work = { @Sendable in try await body(try await StoreRepository(database)) }
        do {
            if let postgres = database as? PostgresDatabase {
                return try await postgres.whileRunning { try await work() }
            }
            return try await work()
        } catch let error as StoreError {
            throw HandoffStore.refuse(error.message)
        } catch let error as SQLError {
            throw HandoffStore.refuse(error.description)
        }
    }

    /// The database, not yet migrated.
    func open(_ environment: [String: String], logger: Logger) throws -> any SQLDatabase {
        if let url = databaseURL(environment) { return try PostgresDatabase(url: url, logger: logger) }
        let directory = directory(environment)
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return try SQLiteDatabase(path: directory + "/store.sqlite")
    }
}

/// What the web pages offer: who may sign up, and map tiles.
struct WebOptions: ParsableArguments {
    @Option(
        help: """
            Who may make an account: open (anyone), invite (only from a group's invite link) or closed \
            (nobody); the first account is always allowed, for the operator (HANDOFF_STORE_SIGNUPS; default open).
            """)
    var signups: String?

    @Option(
        help: """
            Map tiles under each run's route: an OpenStreetMap-style URL template such as \
            https://tile.example.org/{z}/{x}/{y}.png (HANDOFF_STORE_MAP_TILES). Unset, no page asks \
            anything of another site.
            """)
    var mapTiles: String?

    @Option(help: "The attribution the tile server's terms ask for, shown on each map (HANDOFF_STORE_MAP_ATTRIBUTION).")
    var mapAttribution: String?

    func apply(to configuration: inout StoreApplication.Configuration, _ environment: [String: String]) throws {
        if let text = signups ?? environment["HANDOFF_STORE_SIGNUPS"], !text.isEmpty {
            guard let policy = AccountService.SignUps(rawValue: text) else {
                throw ValidationError("sign-ups are open, invite or closed, not \(text)")
            }
            configuration.accounts.signUps = policy
        }
        if let template = mapTiles ?? environment["HANDOFF_STORE_MAP_TILES"], !template.isEmpty {
            do {
                configuration.mapTiles = try MapTiles(
                    template: template,
                    attribution: mapAttribution ?? environment["HANDOFF_STORE_MAP_ATTRIBUTION"] ?? "")
            } catch {
                throw ValidationError(error.message)
            }
        }
    }
}

/// E-mail: the SMTP server, the sender, and the certificates to trust for its STARTTLS.
struct MailOptions: ParsableArguments {
    @Option(
        name: .customLong("smtp"),
        help: """
            The SMTP server the store sends e-mail through: smtp://user:password@host:587, STARTTLS \
            required (?starttls=off only for a relay on this machine). Better in HANDOFF_STORE_SMTP, \
            where the password is not on the command line. Unset: no e-mail; notifications stay on the site.
            """)
    var smtp: String?

    @Option(help: "The address the store's e-mail comes from, such as handoff@club.example (HANDOFF_STORE_MAIL_FROM).")
    var mailFrom: String?

    @Option(
        name: .customLong("smtp-ca"),
        help:
            "A PEM file of the certificates to trust for the SMTP server, instead of the system's (HANDOFF_STORE_SMTP_CA)."
    )
    var smtpCA: String?

    func apply(to configuration: inout StoreApplication.Configuration, _ environment: [String: String]) throws {
        guard let url = smtp ?? environment["HANDOFF_STORE_SMTP"], !url.isEmpty else { return }
        guard let from = mailFrom ?? environment["HANDOFF_STORE_MAIL_FROM"], !from.isEmpty else {
            throw ValidationError("--smtp needs --mail-from: the address the store's e-mail comes from")
        }
        let ca = (smtpCA ?? environment["HANDOFF_STORE_SMTP_CA"]).flatMap { $0.isEmpty ? nil : $0 }
        if let ca, !FileManager.default.isReadableFile(atPath: ca) {
            throw ValidationError("--smtp-ca: \(ca) cannot be read")
        }
        do {
            configuration.mail = .init(smtp: try SMTPConfiguration(url: url, from: from, trustedCertificates: ca))
        } catch {
            throw ValidationError(error.description)
        }
    }
}

/// `handoff-store account reset-password USER`: a one-time link, valid for a day, that the
/// operator hands to a person who forgot their password (with --smtp, people ask for one by
/// e-mail at /forgot).
struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account", abstract: "Look after people's accounts.", subcommands: [ResetPassword.self])

    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password",
            abstract: "Print a one-time link, valid for 24 hours, that sets a new password for USER.")

        @Argument(help: "The account's username.")
        var user: String

        @OptionGroup var storage: StorageOptions

        @Option(
            name: .customLong("url"),
            help:
                "The store's address as people open it (default HANDOFF_STORE_PUBLIC_URL, else http://127.0.0.1:8080).")
        var url: String?

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let base =
                (url ?? environment["HANDOFF_STORE_PUBLIC_URL"]).flatMap { $0.isEmpty ? nil : $0 }
                ?? "http://127.0.0.1:8080"
            let now = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970)
            let token = try await storage.withRepository { [user] repository in
                try await repository.issuePasswordReset(username: user, now: now)
            }
            print((base.hasSuffix("/") ? String(base.dropLast()) : base) + "/reset/" + token)
            FileHandle.standardError.write(
                Data("handoff-store: give this link to \(user) only; it works once, for 24 hours.\n".utf8))
        }
    }
}
