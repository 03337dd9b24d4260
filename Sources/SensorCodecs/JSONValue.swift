/// A JSON value (RFC 8259), as the capture format reads and writes it.
///
/// Captures are read on the pack's hot path (every sensor event of a replay), so they use this
/// small parser rather than Foundation's `JSONDecoder`: it parses one line in a few thousand
/// instructions and keeps object keys in their order, so that re-encoding is byte-stable.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    /// An integer literal that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    public var int64Value: Int64? { if case .integer(let i) = self { i } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var isNull: Bool { self == .null }

    /// A number of either kind as a `Double`.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
}

/// A JSON object that keeps its members in order. Lookups are linear: objects here are small.
public struct JSONObject: Hashable, Sendable {
    public var members: [(key: String, value: JSONValue)]

    public init(_ members: [(key: String, value: JSONValue)] = []) { self.members = members }

    public subscript(key: String) -> JSONValue? {
        for member in members where member.key == key { return member.value }
        return nil
    }

    public mutating func append(_ key: String, _ value: JSONValue) { members.append((key, value)) }

    public static func == (a: Self, b: Self) -> Bool {
        a.members.count == b.members.count
            && zip(a.members, b.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}

/// Why a text is not JSON, with the byte offset where it went wrong.
public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String

    public var description: String { "\(reason) at byte \(offset + 1)" }
}
