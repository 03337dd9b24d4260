// The group store's HTTP API as types: the request and response bodies of every route, the
// summary a pack uploads beside a run, and the error envelope. The store encodes and decodes
// these; the pack, the CLI's demo and the tests read the store's replies through them. JSON keys
// are snake_case, written out in each type's `CodingKeys`; the store writes keys sorted.
// `Tests/GroupStoreTests/OpenAPITypesTests.swift` checks these types against the API document
// (`Sources/GroupStore/Resources/openapi.json`).

/// `{"error":{"code":…,"message":…}}`: the body of every error reply (`Error` in the document).
public struct ErrorEnvelope: Codable, Sendable, Hashable {
    public struct Detail: Codable, Sendable, Hashable {
        /// Stable, for programs (`invalid_name`, `authorization_pending`…).
        public var code: String
        /// What happened and what to do, for people.
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var error: Detail

    public init(code: String, message: String) { error = Detail(code: code, message: message) }
}

/// `GET /v1/health`.
public struct Health: Codable, Sendable, Hashable {
    /// `ok`.
    public var status: String
    public var version: String

    public init(status: String, version: String) {
        self.status = status
        self.version = version
    }
}
