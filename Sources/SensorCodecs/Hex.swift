import HandoffModel

/// Hexadecimal text for raw payloads, as captures and `handoff decode` use it.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Lower-case hex, two digits per byte, no separators.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses hex digits (either case). Spaces, colons, dashes and a leading `0x` between
    /// bytes are accepted, so `16 48 54 01`, `16:48:54:01` and `0x16485401` all work.
    public static func decode(_ text: some StringProtocol) throws(HexError) -> [UInt8] {
        try decode(bytes: Array(text.utf8))
    }

    /// Parses hex digits given as UTF-8 bytes.
    public static func decode(bytes: [UInt8]) throws(HexError) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count / 2)
        var high: UInt8?
        var previous: UInt8 = 0
        var position = 0
        for char in bytes {
            position += 1
            if char == UInt8(ascii: "x") || char == UInt8(ascii: "X"), previous == UInt8(ascii: "0"), high == 0 {
                high = nil  // "0x" prefix: drop the 0 we took as a high nibble
                previous = char
                continue
            }
            previous = char
            if char == UInt8(ascii: " ") || char == UInt8(ascii: ":") || char == UInt8(ascii: "-")
                || char == UInt8(ascii: "\t")
            {
                if high != nil { throw .oddDigitCount }
                continue
            }
            guard let nibble = value(of: char) else { throw .invalidCharacter(position: position) }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        if high != nil { throw .oddDigitCount }
        return out
    }

    private static func value(of char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): char - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

public enum HexError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidCharacter(position: Int)
    case oddDigitCount

    public var description: String {
        switch self {
        case .invalidCharacter(let position): "not a hex digit at character \(position)"
        case .oddDigitCount: "a byte needs two hex digits; one is missing"
        }
    }
}

extension Payload {
    /// The payload for a log line: hex for bytes, the text itself (at most 200 characters).
    public var loggable: String {
        switch self {
        case .bytes(let bytes): bytes.isEmpty ? "(empty)" : Hex.encode(Array(bytes.prefix(100)))
        case .text(let text): String(text.prefix(200))
        }
    }
}
