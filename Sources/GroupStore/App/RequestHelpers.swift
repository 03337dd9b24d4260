import Foundation
import HandoffModel
import Hummingbird

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

extension Optional {
    func asyncMap<U>(_ transform: (Wrapped) async throws -> U) async rethrows -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
