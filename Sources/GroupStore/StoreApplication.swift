import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird
import Logging
import NIOCore
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
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port = 8080
        public var accounts = AccountService.Configuration()
        /// How long a baton stays with a holder whose pack has gone quiet, unless the group says.
        public var defaultLeaseSeconds: Int64 = 6 * 3600
        /// The largest activity file accepted.
        public var maxRunBytes = 32 * 1024 * 1024
        /// The address people open for the device page, when the store is behind a proxy;
        /// otherwise the address the store listens on (never the request's Host, which the
        /// client chooses).
        public var publicURL: String?
        /// A connection that has not sent a whole request head this long after connecting is
        /// closed (`HeaderTimeoutHandler`): a client that connects and trickles holds nothing.
        public var headerTimeout: Duration = .seconds(10)
        /// A kept-alive connection that has sent no whole request part this long after its
        /// previous response (or, mid-head, after its last part) is closed (Hummingbird's
        /// `idleTimeout`).
        public var idleTimeout: Duration = .seconds(300)
        /// The reverse proxy's address: requests from it are counted under the last address of
        /// their `X-Forwarded-For`. Unset, that header is ignored.
        public var trustedProxy: String?
        /// Uploaded activity files read at once, off the cooperative pool; more wait in a queue
        /// of `uploadQueue`, beyond which uploads are answered `503` with `Retry-After`.
        public var uploadConcurrency = 2
        public var uploadQueue = 256
        /// Device codes asked for from one client address, and wrong user codes entered by one
        /// account, within `deviceWindowSeconds` (RFC 8628 §5.1, §5.2).
        public var deviceCodesPerAddress = 30
        public var deviceApprovalsPerAccount = 10
        public var deviceWindowSeconds: Int64 = 15 * 60
        public init() {}
    }

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
        let router = Router(context: StoreContext.self)
        let known = KnownRoutes()
        router.add(middleware: ErrorMiddleware(known: known))
        let recorder = RouteRecorder(router)
        let services = Services(repository: repository, configuration: configuration, now: now)
        register(recorder, services)
        known.set(recorder.recorded)
        let header = TimeAmount(configuration.headerTimeout)
        return Application(
            router: router,
            // Hummingbird closes a connection that has read no whole request part for
            // `idleTimeout`, unless a response is under way; ours closes one whose first head is
            // late.
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [HeaderTimeoutHandler(timeout: header)],
                    idleTimeout: TimeAmount(configuration.idleTimeout))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in services.listening.set(channel.localAddress) },
            logger: logger)
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
        RunRoutes(services: services).register(router)
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
            name: "uploads", permits: configuration.uploadConcurrency, queueLimit: configuration.uploadQueue)
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

/// Registers routes on a router and remembers them (method and OpenAPI-style path).
final class RouteRecorder {
    let router: Router<StoreContext>
    private(set) var recorded: [String] = []

    init(_ router: Router<StoreContext>) { self.router = router }

    typealias Handler = @Sendable (Request, StoreContext) async throws -> any ResponseGenerator

    func on(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping Handler) {
        let openAPIPath = path.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0)
        }.joined(separator: "/")
        recorded.append("\(method.rawValue) \(openAPIPath)")
        router.on(RouterPath(path), method: method) { request, context in
            try await handler(request, context).response(from: request, context: context)
        }
    }

    func get(_ path: String, _ handler: @escaping Handler) { on(.get, path, handler) }
    func post(_ path: String, _ handler: @escaping Handler) { on(.post, path, handler) }
    func put(_ path: String, _ handler: @escaping Handler) { on(.put, path, handler) }
    func patch(_ path: String, _ handler: @escaping Handler) { on(.patch, path, handler) }
    func delete(_ path: String, _ handler: @escaping Handler) { on(.delete, path, handler) }
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

/// The registered routes by path template, to tell "no such path" (404) from "this path, another
/// method" (405 with `Allow`). Filled once, after the routes are registered.
final class KnownRoutes: Sendable {
    private let routes = Mutex<[(method: HTTPRequest.Method, template: [Substring])]>([])

    /// `recorded` is RouteRecorder's "METHOD /path/{param}" list.
    func set(_ recorded: [String]) {
        routes.withLock {
            $0 = recorded.compactMap { line in
                let parts = line.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, let method = HTTPRequest.Method(String(parts[0])) else { return nil }
                return (method, parts[1].split(separator: "/", omittingEmptySubsequences: false))
            }
        }
    }

    /// The methods registered for a concrete path, in registration order. As in OpenAPI, a
    /// template with more literal segments wins: `/v1/groups/join` is its own path, not a group
    /// named "join".
    func methods(for path: String) -> [HTTPRequest.Method] {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        let matching = routes.withLock { routes in
            routes.compactMap { route -> (method: HTTPRequest.Method, literals: Int)? in
                guard route.template.count == parts.count,
                    zip(route.template, parts).allSatisfy({ $0.hasPrefix("{") ? !$1.isEmpty : $0 == $1 })
                else { return nil }
                return (route.method, route.template.filter { !$0.hasPrefix("{") }.count)
            }
        }
        let best = matching.map(\.literals).max()
        return matching.filter { $0.literals == best }.map(\.method)
    }
}

/// Turns what escapes a route into the API's JSON error: decoding failures are 400s, our own
/// errors keep their status, a known path asked with another method is a 405 naming the methods
/// it takes, anything else is a 500 that says nothing of its internals.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let known: KnownRoutes

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as StoreError {
            throw error
        } catch let error as DecodingError {
            throw StoreError(
                .badRequest, "bad_request", "the body is not the JSON this route takes: \(Self.describe(error))")
        } catch let error as HTTPError {
            if error.status == .notFound {
                let allowed = known.methods(for: request.uri.path)
                if !allowed.isEmpty {
                    throw StoreError(
                        .methodNotAllowed, "method_not_allowed",
                        "\(request.uri.path) does not take \(request.method); it takes "
                            + allowed.map(\.rawValue).joined(separator: ", "), allow: allowed)
                }
                throw StoreError(
                    .notFound, "not_found", "there is no \(request.method) \(request.uri.path) in this API")
            }
            if error.status == .contentTooLarge {
                throw StoreError(.contentTooLarge, "too_large", "the body is larger than this route accepts")
            }
            throw StoreError(error.status, "bad_request", error.body ?? error.status.reasonPhrase)
        } catch is NIOTooManyBytesError {
            throw StoreError(.contentTooLarge, "too_large", "the body is larger than this route accepts")
        } catch {
            context.logger.error("Request failed", metadata: ["error": "\(error)"])
            throw StoreError(.internalServerError, "internal", "the store failed; the error is in its log")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "\"\(key.stringValue)\" is missing"
        case .typeMismatch(_, let c), .valueNotFound(_, let c):
            "\"\(c.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        case .dataCorrupted(let c): c.debugDescription
        @unknown default: "\(error)"
        }
    }
}

/// The bearer token of a request.
func bearer(_ request: Request) throws(StoreError) -> String {
    guard let value = request.headers[.authorization], value.lowercased().hasPrefix("bearer "),
        case let token = value.dropFirst(7).trimmingCharacters(in: .whitespaces), !token.isEmpty
    else { throw StoreError.unauthorized }
    return token
}

extension Request {
    /// A JSON body within the context's limit, as `T`.
    func json<T: Decodable>(_ type: T.Type, _ context: StoreContext) async throws -> T {
        try await decode(as: type, context: context)
    }
}

extension StoreContext {
    /// A numeric path parameter (ids); anything else is a 404 like an unknown id.
    func id(_ name: String, _ what: String) throws(StoreError) -> Int64 {
        let text = parameters.get(name) ?? ""
        guard let id = Int64(text), id > 0 else { throw StoreError.notFound(what, text) }
        return id
    }
}

/// Metres as the API shows them, from the stored millimetres.
func metres(_ mm: Int64) -> Double { Double(mm) / 1000 }

func iso(_ instant: WallInstant) -> String { CivilTime(instant).iso8601() }
