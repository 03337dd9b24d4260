import Foundation
import HTTPTypes
import HandoffAPI
import Hummingbird

/// An error the API returns: an HTTP status, a stable `code` for programs and a `message` that
/// says what happened and what to do. The body is `{"error":{"code":…,"message":…}}`.
public struct StoreError: Error, Sendable, Equatable, HTTPResponseError {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    /// Seconds to wait before asking again (429, 503).
    public var retryAfter: Int?
    /// The methods the path does take (405).
    public var allow: [HTTPRequest.Method]?

    public init(
        _ status: HTTPResponse.Status, _ code: String, _ message: String, retryAfter: Int? = nil,
        allow: [HTTPRequest.Method]? = nil
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.allow = allow
    }

    /// The JSON error response.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfter { fields[.retryAfter] = String(retryAfter) }
        if let allow { fields[.allow] = allow.map(\.rawValue).joined(separator: ", ") }
        let data = (try? StoreJSON.encoder.encode(ErrorEnvelope(code: code, message: message))) ?? Data()
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The database cannot be reached now: the store answers at once rather than hang, and the
    /// client asks again (a pack's sync backs off by Retry-After).
    static let databaseUnavailable = StoreError(
        .serviceUnavailable, "database_unavailable",
        "the store cannot reach its database at the moment, so nothing was read or saved: try again in a few seconds",
        retryAfter: 2)

    /// The disk under the database is full: this write was refused whole; reads still work.
    static let storageFull = StoreError(
        .insufficientStorage, "storage_full",
        "The store's disk is full, so nothing was saved. Reading still works; try again later. The operator must free space in the data directory."
    )

    static let unauthorized = StoreError(
        .unauthorized, "unauthorized",
        "sign in first: send `Authorization: Bearer TOKEN` with a token from POST /v1/sessions")
}

extension HTTPResponse.Status {
    /// 507 (RFC 4918): the server cannot store what the request needs (its disk is full).
    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
}
