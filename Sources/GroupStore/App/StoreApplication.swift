import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The request context of every route: JSON bodies up to 64 kB (uploads read their own larger
/// bodies), JSON answers with sorted keys, and the peer's address (for the per-address limits).
public struct StoreContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The TCP peer: the client, or the reverse proxy in front of the store.
    public let remoteAddress: SocketAddress?
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
    public var maxUploadSize: Int { 64 * 1024 }
    public var responseEncoder: JSONEncoder { StoreJSON.encoder }
}

/// The store's HTTP application: its routes over a repository.
public enum StoreApplication {
    /// Every route, as "METHOD /path/{param}", in the order registered: the OpenAPI document
    /// must describe exactly these (a test checks).
    public static func routes(_ repository: StoreRepository, _ configuration: Configuration) -> [String] {
        let router = RouteRecorder(Router(context: StoreContext.self))
        register(router, Services(repository: repository, configuration: configuration))
        return router.recorded
    }

    public static func make(
        repository: StoreRepository, configuration: Configuration, logger: Logger,
        now: @escaping @Sendable () -> WallInstant = { WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970) }
    ) -> some ApplicationProtocol {
        application(repository: repository, configuration: configuration, logger: logger, now: now)
    }

    /// The store over `database` as `handoff-store` runs it: an engine that is a `Service`
    /// (PostgreSQL's connection pool) runs in the application's ServiceGroup, started before the
    /// server and stopped after it, and so does the tally's roller (`TallyRoller`); the schema is
    /// brought up to date, then the roller starts and `migrated` is called, before the server starts. A migration that fails (an `SQLError`: the database refused or
    /// could not be reached) is thrown from the application's `run()`.
    public static func make(
        database: any SQLDatabase, configuration: Configuration, logger: Logger,
        migrated: @escaping @Sendable () -> Void = {}
    ) -> some ApplicationProtocol {
        let repository = StoreRepository(unmigrated: database)
        let (mailReady, mailStarts) = AsyncStream<Void>.makeStream()
        var app = application(
            repository: repository, configuration: configuration, logger: logger, mailReady: mailReady)
        if let service = database as? any Service { app.addServices(service) }
        let (ready, schemaReady) = AsyncStream<Void>.makeStream()
        app.addServices(TallyRoller(repository: repository, logger: logger, ready: ready))
        // Once the schema is up to date: a store that cannot reach its database says so once.
        let (listen, listenReady) = AsyncStream<Void>.makeStream()
        if let postgres = database as? PostgresDatabase {
            app.addServices(EventListener(database: postgres, hub: repository.events, logger: logger, ready: listen))
        }
        app.beforeServerStarts {
            try await repository.migrate()
            for stream in [schemaReady, listenReady, mailStarts] {
                stream.yield()
                stream.finish()
            }
            migrated()
        }
        return app
    }

    static func application(
        repository: StoreRepository, configuration: Configuration, logger: Logger,
        now: @escaping @Sendable () -> WallInstant = { WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970) },
        mailReady: AsyncStream<Void>? = nil
    ) -> Application<RouterResponder<StoreContext>> {
        let router = Router(context: StoreContext.self)
        let known = KnownRoutes()
        router.add(middleware: ErrorMiddleware(known: known))
        let recorder = RouteRecorder(router)
        let services = Services(repository: repository, configuration: configuration, now: now)
        register(recorder, services)
        known.set(recorder.recorded)
        let header = TimeAmount(configuration.network.headerTimeout)
        var app = Application(
            router: router,
            // Hummingbird closes a connection that has read no whole request part for
            // `idleTimeout`, unless a response is under way; ours closes one whose first head is
            // late.
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [HeaderTimeoutHandler(timeout: header)],
                    idleTimeout: TimeAmount(configuration.network.idleTimeout))),
            configuration: .init(
                address: .hostname(configuration.network.host, port: configuration.network.port), serverName: nil),
            onServerRunning: { channel in services.listening.set(channel.localAddress) },
            logger: logger)
        if let mail = configuration.mail {
            app.addServices(
                Mailer(
                    repository: repository, configuration: mail, origin: { services.origin }, now: now,
                    goals: { try await services.goalLines($0) }, logger: logger,
                    ready: mailReady))
        }
        return app
    }

    static func register(_ router: RouteRecorder, _ services: Services) {
        router.get("/v1/health") { _, _ in Health(status: "ok", version: StoreVersion.current) }
        router.get("/openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
        AccountRoutes(services: services).register(router)
        DeviceRoutes(services: services).register(router)
        GroupRoutes(services: services).register(router)
        BatonRoutes(services: services).register(router)
        EventRoutes(services: services).register(router)
        LiveRoutes(services: services).register(router)
        NotificationRoutes(services: services).register(router)
        RunRoutes(services: services).register(router)
        RecordRoutes(services: services).register(router)
        TrainingRoutes(services: services).register(router)
        GoalRoutes(services: services).register(router)
        FriendRoutes(services: services).register(router)
        SocialRoutes(services: services).register(router)
        ModerationRoutes(services: services).register(router)
        PhotoRoutes(services: services).register(router)
        PeopleRoutes(services: services).register(router)
        WebPages(services: services).register(router)
    }
}

/// What routes share: the repository, the account service, the clock, the configuration, where
/// uploads are read, and the address the server listens on.
struct Services: Sendable {
    let repository: StoreRepository
    let accounts: AccountService
    let configuration: StoreApplication.Configuration
    let now: @Sendable () -> WallInstant
    let uploads: WorkLimiter
    let listening = ListeningAddress()

    init(
        repository: StoreRepository, configuration: StoreApplication.Configuration,
        now: @escaping @Sendable () -> WallInstant = { WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970) }
    ) {
        self.repository = repository
        self.configuration = configuration
        self.now = now
        accounts = AccountService(repository: repository, configuration: configuration.accounts, now: now)
        uploads = WorkLimiter(
            name: "uploads", permits: configuration.uploads.concurrency, queueLimit: configuration.uploads.queue)
    }

    /// The caller, from the bearer token. `device` says whether a pack's token may do this.
    func caller(_ request: Request, device allowed: Bool = false) async throws -> Credential {
        let credential = try await accounts.authenticate(token: try bearer(request))
        guard allowed || credential.scope == .session else {
            throw StoreError(
                .forbidden, "wrong_scope",
                "a pack's device token only uploads runs and uses the baton: sign in as a person for this")
        }
        return credential
    }
}

extension TimeAmount {
    /// A Swift `Duration` in NIO's nanoseconds.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .seconds(seconds) + .nanoseconds(attoseconds / 1_000_000_000)
    }
}

/// The address the server is bound to, once it is (the port may have been 0).
final class ListeningAddress: Sendable {
    private let address = Mutex<SocketAddress?>(nil)
    func set(_ value: SocketAddress?) { address.withLock { $0 = value } }
    var port: Int? { address.withLock { $0?.port } }
}
