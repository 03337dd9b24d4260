import ArgumentParser
import Foundation
import GroupStore
import Hummingbird
import Logging
import ServiceLifecycle

@main
struct HandoffStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoff-store",
        abstract: "The Handoff group store: accounts, groups, the baton and runs, over HTTP.",
        discussion: """
            Starts with no configuration: SQLite in the data directory, listening on 127.0.0.1:8080. \
            Every option has an environment variable twin (HANDOFF_STORE_HOST, _PORT, _DATA, _DATABASE, \
            _PUBLIC_URL, _HEADER_TIMEOUT, _IDLE_TIMEOUT, _TRUSTED_PROXY, _SIGNUPS). Listening on every address (0.0.0.0 or ::) needs \
            --public-url: the store tells packs where people link them, and will not guess it.
            """,
        version: StoreVersion.current,
        subcommands: [AccountCommand.self, ModerationCommand.self])

    @Option(help: "The address to listen on (HANDOFF_STORE_HOST).")
    var host: String?

    @Option(help: "The port to listen on (HANDOFF_STORE_PORT).")
    var port: Int?

    @OptionGroup var storage: StorageOptions

    @Option(help: "The address people open, when the store is behind a proxy (HANDOFF_STORE_PUBLIC_URL).")
    var publicURL: String?

    @Option(
        help: """
            Seconds a new connection may take to send its first whole request head before it is \
            closed (HANDOFF_STORE_HEADER_TIMEOUT; default 10).
            """)
    var headerTimeout: Double?

    @Option(
        help: """
            Seconds a kept-alive connection may stay idle between requests before it is closed \
            (HANDOFF_STORE_IDLE_TIMEOUT; default 300).
            """)
    var idleTimeout: Double?

    @Option(
        help: """
            The reverse proxy's IP address: requests from it are counted, for the per-address limits, \
            under the last address of their X-Forwarded-For (HANDOFF_STORE_TRUSTED_PROXY; unset, the \
            header is ignored).
            """)
    var trustedProxy: String?

    @OptionGroup var web: WebOptions

    @OptionGroup var mail: MailOptions

    @Option(help: "Hours a baton stays with a holder whose pack has gone quiet, unless a group sets its own.")
    var batonLeaseHours: Double = 6

    @Option(help: ArgumentHelp("bcrypt's cost for new passwords (12; lower only for tests).", visibility: .hidden))
    var bcryptCost: UInt8 = 12

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var configuration = StoreApplication.Configuration()
        configuration.network.host = host ?? environment["HANDOFF_STORE_HOST"] ?? configuration.network.host
        if let text = port.map(String.init) ?? environment["HANDOFF_STORE_PORT"] {
            guard let value = Int(text), (0...65535).contains(value) else {
                throw ValidationError("the port must be a number from 0 to 65535, not \(text)")
            }
            configuration.network.port = value
        }
        guard (4...31).contains(bcryptCost) else { throw ValidationError("bcrypt's cost is from 4 to 31") }
        configuration.accounts.bcryptCost = bcryptCost
        configuration.network.publicURL = (publicURL ?? environment["HANDOFF_STORE_PUBLIC_URL"]).flatMap {
            $0.isEmpty ? nil : $0
        }
        if configuration.network.publicURL == nil,
            ["0.0.0.0", "::", "[::]", "*", ""].contains(configuration.network.host)
        {
            throw ValidationError(
                "listening on every address (\(configuration.network.host)) needs --public-url: the address people open to link a pack"
            )
        }
        if let timeout = try Self.seconds(headerTimeout, environment["HANDOFF_STORE_HEADER_TIMEOUT"], "header") {
            configuration.network.headerTimeout = timeout
        }
        if let timeout = try Self.seconds(idleTimeout, environment["HANDOFF_STORE_IDLE_TIMEOUT"], "idle") {
            configuration.network.idleTimeout = timeout
        }
        if let proxy = trustedProxy ?? environment["HANDOFF_STORE_TRUSTED_PROXY"], !proxy.isEmpty {
            guard ClientAddress.isIPAddress(proxy) else {
                throw ValidationError("the trusted proxy is an IP address such as 127.0.0.1 or ::1, not \(proxy)")
            }
            configuration.network.trustedProxy = proxy
        }
        try web.apply(to: &configuration, environment)
        try mail.apply(to: &configuration, environment)
        guard batonLeaseHours >= 1.0 / 60, batonLeaseHours <= 336 else {
            throw ValidationError("the baton lease is from 1/60 hour (a minute) to 336 hours")
        }
        configuration.defaultLeaseSeconds = Int64(batonLeaseHours * 3600)
        var logger = Logger(label: "handoff.store")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let databaseURL = storage.databaseURL(environment)
        let directory = storage.directory(environment)
        // Before anything is made on disk: where the data goes, then where the store listens.
        do {
            if let databaseURL {
                try Preflight.checkDatabaseURL(databaseURL)
            } else {
                try Preflight.checkDataDirectory(directory)
            }
            try Preflight.checkListening(host: configuration.network.host, port: configuration.network.port)
        } catch {
            throw Self.refuse(error.description)
        }
        // A PostgreSQL pool runs in the application's ServiceGroup.
        let engine = try storage.open(environment, logger: logger)
        let app = StoreApplication.make(database: engine, configuration: configuration, logger: logger) {
            [logger] in
            if let url = databaseURL {
                logger.info("Store data in PostgreSQL", metadata: ["database": "\(PostgresDatabase.redacted(url))"])
            } else {
                logger.info("Store data in SQLite", metadata: ["database": "\(directory)/store.sqlite"])
            }
        }
        // SIGTERM or SIGINT: the server stops taking connections and finishes its requests (a
        // request waits at most a few seconds for the database), then the database closes. A
        // backstop all the same: after 7 s the rest is cancelled, and 9 s after the signal the
        // process ends whatever is left, so a stop always takes under 10 s.
        var group = ServiceGroupConfiguration(
            services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(7)
        Self.endWithin(seconds: 9, of: [SIGTERM, SIGINT])
        do {
            try await ServiceGroup(configuration: group).run()
        } catch let error as SQLError {
            // The migration before the server starts: the PostgreSQL server refused or could not
            // be reached, and its sentence names --database.
            throw Self.refuse(error.description)
        }
    }

    /// The last resort: `seconds` after one of `signals`, the process ends (status 1) whatever
    /// its shutdown is waiting for. A source beside ServiceLifecycle's, which both see the signal.
    static func endWithin(seconds: Double, of signals: [Int32]) {
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                    FileHandle.standardError.write(
                        Data("handoff-store: shutdown took over \(Int(seconds)) s; ending now\n".utf8))
                    _exit(1)
                }
            }
            source.resume()
            watchdogs.append(source)
        }
    }

    nonisolated(unsafe) static var watchdogs: [any DispatchSourceSignal] = []

    /// One sentence on standard error and a non-zero exit, without ArgumentParser's usage text.
    static func refuse(_ sentence: String) -> ExitCode {
        FileHandle.standardError.write(Data("handoff-store: \(sentence)\n".utf8))
        return ExitCode.failure
    }

    /// A time-out from its flag or else its environment twin: 0.1 to 3600 seconds.
    static func seconds(_ flag: Double?, _ twin: String?, _ what: String) throws -> Duration? {
        guard let text = flag.map({ String($0) }) ?? twin else { return nil }
        guard let seconds = Double(text), seconds.isFinite, (0.1...3600).contains(seconds) else {
            throw ValidationError("the \(what) timeout is a number of seconds from 0.1 to 3600, not \(text)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

}
