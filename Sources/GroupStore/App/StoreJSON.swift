import Foundation

/// JSON as the API writes it: snake_case keys as declared, sorted, ISO 8601 times.
enum StoreJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let decoder = JSONDecoder()
}
