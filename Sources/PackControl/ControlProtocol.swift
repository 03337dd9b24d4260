import Foundation

/// Why a request failed, in a form a script can test (`code`) and a person can act on (`message`).
public struct ControlError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// An error's `code`: an open set (the store's and Bluetooth's codes pass through), written
    /// on the socket as the bare string. docs/control-api.md lists them; the ones code on either
    /// side tests are named here.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
        CustomStringConvertible
    {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }

        /// Nothing answers on the socket (the CLI's own).
        public static let notRunning: Code = "not_running"
        /// handoffd replays a capture instead of using Bluetooth.
        public static let replaying: Code = "replaying"
        public static let badRequest: Code = "bad_request"
        public static let unknownCommand: Code = "unknown_command"

        public var description: String { rawValue }

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}

/// The reply: `{"ok":true,"result":…}` or `{"ok":false,"error":{"code":…,"message":…}}`.
public struct ControlResponse<Result: Codable & Sendable>: Codable, Sendable {
    public var ok: Bool
    public var result: Result?
    public var error: ControlError?

    public init(result: Result) {
        ok = true
        self.result = result
        error = nil
    }

    public init(error: ControlError) {
        ok = false
        result = nil
        self.error = error
    }
}

/// JSON for the control API and `--json` output: snake_case keys as declared, sorted, compact.
public enum ControlJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
