import Hummingbird
import NIOCore

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
            if error.status == .insufficientStorage {
                context.logger.warning("A write was refused: the disk under the database is full; free space there")
            }
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
