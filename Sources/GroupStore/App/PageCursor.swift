import Foundation
import Hummingbird

/// Where a page of a group's list ends, so the next page starts right after it (keyset paging):
/// the sort keys of the page's last row, as opaque ASCII tagged with the list's kind and a
/// version. A cursor holds only sort keys of rows its caller could read; membership is checked
/// on every page, and its values are bound as parameters, so a forged cursor only starts the
/// same list somewhere else. Parsed strictly: anything else is a `422 invalid_cursor`.
enum PageCursor: Equatable, Sendable {
    /// Members by distance, after the member `account` at `mm` whose place was `rank`.
    case distance(mm: Int64, account: Int64, rank: Int64)
    /// Members in rotation order, after `account` at `turn`.
    case rotation(turn: Int64, account: Int64)
    /// Members found by name, after `account` whose name key is `key`.
    case name(key: String, account: Int64)
    /// Legs, newest first, after the leg `id` taken at `taken`.
    case leg(taken: Int64, id: Int64)

    enum Kind: String, Sendable {
        case distance = "m1"
        case rotation = "r1"
        case name = "n1"
        case leg = "l1"

        /// What the list is, for error messages.
        var list: String {
            switch self {
            case .distance: "members by distance"
            case .rotation: "members in rotation order"
            case .name: "members found by name"
            case .leg: "legs"
            }
        }
    }

    var kind: Kind {
        switch self {
        case .distance: .distance
        case .rotation: .rotation
        case .name: .name
        case .leg: .leg
        }
    }

    /// "m1.MM.ACCOUNT.RANK", "r1.TURN.ACCOUNT", "n1.HEX.ACCOUNT" (the name key's UTF-8 in hex),
    /// "l1.TAKEN_NS.ID".
    var text: String {
        switch self {
        case .distance(let mm, let account, let rank): "m1.\(mm).\(account).\(rank)"
        case .rotation(let turn, let account): "r1.\(turn).\(account)"
        case .name(let key, let account):
            "n1.\(key.utf8.map { String(format: "%02x", $0) }.joined()).\(account)"
        case .leg(let taken, let id): "l1.\(taken).\(id)"
        }
    }

    /// The longest cursor accepted: a name key of 200 bytes, and the numbers.
    static let maxLength = 480

    /// `text` as a cursor of the list `kind`, or a 422 that says what is wrong with it.
    init(_ text: String, kind: Kind) throws(StoreError) {
        guard let parsed = Self.parse(text) else {
            throw StoreError(
                .unprocessableContent, "invalid_cursor",
                "cursor is not a next_cursor this store gave: pass the next_cursor of the previous page as it was given, or leave cursor out for the first page"
            )
        }
        guard parsed.kind == kind else {
            throw StoreError(
                .unprocessableContent, "invalid_cursor",
                "this cursor continues the \(parsed.kind.list), not the \(kind.list): pass the next_cursor of a page of the same list"
            )
        }
        self = parsed
    }

    /// The cursor `text` is, if it is one; nil for anything else.
    static func parse(_ text: String) -> PageCursor? {
        guard text.utf8.count <= maxLength, text.allSatisfy({ $0.isASCII }) else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let tag = parts.first.flatMap(Kind.init(rawValue:)) else { return nil }
        let numbers = parts.dropFirst().map(integer)
        switch (tag, parts.count) {
        case (.distance, 4):
            // A place past any group's size is not one this store gave (and the ranks counted on
            // from it must not overflow).
            guard let mm = numbers[0], let account = numbers[1], let rank = numbers[2], account > 0,
                (1...Int64(Int32.max)).contains(rank)
            else {
                return nil
            }
            return .distance(mm: mm, account: account, rank: rank)
        case (.rotation, 3):
            guard let turn = numbers[0], let account = numbers[1], account > 0 else { return nil }
            return .rotation(turn: turn, account: account)
        case (.name, 3):
            guard let key = hexText(parts[1]), let account = numbers[1], account > 0 else { return nil }
            return .name(key: key, account: account)
        case (.leg, 3):
            guard let taken = numbers[0], let id = numbers[1], id > 0 else { return nil }
            return .leg(taken: taken, id: id)
        default:
            return nil
        }
    }

    /// A decimal integer written as this store writes one (no sign but `-`, no leading zeros).
    private static func integer(_ text: String) -> Int64? {
        guard let value = Int64(text), String(value) == text else { return nil }
        return value
    }

    /// UTF-8 text from lowercase hex, as `text` writes it.
    private static func hexText(_ hex: String) -> String? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2),
            digits.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension Request {
    /// The query parameter `name`, if the request has one.
    func query(_ name: String) -> String? { uri.queryParameters[Substring(name)].map(String.init) }

    /// The `limit` query parameter: `standard` without one, else a number from 1 to `most`.
    func pageLimit(standard: Int, most: Int) throws(StoreError) -> Int {
        guard let text = query("limit") else { return standard }
        guard let limit = Int(text), (1...most).contains(limit) else {
            throw StoreError(.unprocessableContent, "invalid_limit", "limit is a number from 1 to \(most)")
        }
        return limit
    }

    /// The `cursor` query parameter as a cursor of the list `kind`; nil for the first page.
    func pageCursor(_ kind: PageCursor.Kind, parameter: String = "cursor") throws(StoreError) -> PageCursor? {
        try query(parameter).map { text throws(StoreError) in try PageCursor(text, kind: kind) }
    }
}
