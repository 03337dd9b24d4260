import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird
import Logging

/// The store's HTTP application: its routes over a repository.
public enum StoreApplication {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port = 8080
        public var accounts = AccountService.Configuration()
        public init() {}
    }

    public static func make(
        repository: any StoreRepository, configuration: Configuration, logger: Logger
    ) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: ErrorMiddleware())
        let accounts = AccountService(repository: repository, configuration: configuration.accounts)
        AccountRoutes(accounts: accounts).register(router.group("v1"))
        router.get("v1/health") { _, _ in Health(status: "ok", version: StoreVersion.current) }
        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            logger: logger)
    }
}

struct Health: ResponseEncodable {
    let status: String
    let version: String
}

/// Turns what escapes a route into the API's JSON error: decoding failures are 400s, our own
/// errors keep their status, anything else is a 500 that says nothing of its internals.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
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
                throw StoreError(
                    .notFound, "not_found", "there is no \(request.method) \(request.uri.path) in this API")
            }
            let code = error.status == .contentTooLarge ? "too_large" : "bad_request"
            throw StoreError(error.status, code, error.body ?? error.status.reasonPhrase)
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
