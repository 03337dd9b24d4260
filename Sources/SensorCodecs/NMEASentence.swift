/// One NMEA 0183 sentence, framed and checksum-verified, split into fields.
///
/// `$<talker><type>,<field>,…*<checksum>`: the checksum is the XOR of every byte between `$`
/// and `*`, written as two hex digits in either case (NMEA 0183 v4.11 §5.3.1).
public struct NMEASentence: Hashable, Sendable {
    /// Two letters naming the source (`GP`, `GN`, `GL`, …); empty for proprietary sentences.
    public var talker: String
    /// The sentence formatter (`RMC`, `GGA`, …), or the whole address after `P` when proprietary.
    public var type: String
    /// The data fields after the address, possibly empty strings.
    public var fields: [Substring]
    public var isProprietary: Bool

    /// Frames one sentence. Bytes before the last `$` (line noise, a doubled `$$`) and the
    /// line ending are dropped.
    public init(parsing line: String) throws(NMEAError) {
        var bytes = Array(line.utf8)
        while let last = bytes.last, last == 0x0D || last == 0x0A || last == 0x20 { bytes.removeLast() }
        guard let star = bytes.lastIndex(of: UInt8(ascii: "*")) else {
            guard bytes.contains(UInt8(ascii: "$")) else { throw .missingStart }
            throw .missingChecksum
        }
        guard let dollar = bytes[..<star].lastIndex(of: UInt8(ascii: "$")) else { throw .missingStart }
        let body = bytes[(dollar + 1)..<star]
        let checksumText = bytes[(star + 1)...]
        guard checksumText.count == 2, let expected = Self.hexByte(checksumText) else {
            throw .malformedChecksum(String(decoding: checksumText, as: UTF8.self))
        }
        var computed: UInt8 = 0
        for byte in body {
            guard byte >= 0x20, byte < 0x7F else { throw .notPrintableASCII }
            computed ^= byte
        }
        guard computed == expected else { throw .badChecksum(stated: expected, computed: computed) }

        let text = String(decoding: body, as: UTF8.self)
        var parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let address = parts.removeFirst()
        fields = parts
        if address.first == "P" {
            isProprietary = true
            talker = ""
            type = String(address.dropFirst())
        } else {
            guard address.count == 5, address.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
                throw .badAddress(String(address))
            }
            isProprietary = false
            talker = String(address.prefix(2))
            type = String(address.dropFirst(2))
        }
    }

    private static func hexByte(_ digits: ArraySlice<UInt8>) -> UInt8? {
        var value: UInt8 = 0
        for digit in digits {
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = digit - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | nibble
        }
        return value
    }

    /// The checksum of a sentence body (the bytes between `$` and `*`).
    public static func checksum(of body: String) -> UInt8 {
        body.utf8.reduce(0, ^)
    }

    /// `$<body>*HH` with the checksum computed, without a line ending.
    public static func frame(_ body: String) -> String {
        let sum = checksum(of: body)
        let hex = Array("0123456789ABCDEF")
        return "$\(body)*\(hex[Int(sum >> 4)])\(hex[Int(sum & 0x0F)])"
    }
}

/// Why an NMEA sentence could not be used.
public enum NMEAError: Error, Hashable, Sendable, CustomStringConvertible {
    case missingStart
    case missingChecksum
    case malformedChecksum(String)
    case badChecksum(stated: UInt8, computed: UInt8)
    case notPrintableASCII
    case badAddress(String)
    /// A proprietary sentence (`$P…`): skipped, not an error in the data.
    case proprietary(String)
    /// A valid sentence of a type this decoder does not read.
    case unsupported(String)
    case missingFields(sentence: String, needed: Int, have: Int)
    case badField(sentence: String, field: String, value: String)

    public var description: String {
        switch self {
        case .missingStart: "no '$' starts a sentence"
        case .missingChecksum: "no '*' checksum at the end"
        case .malformedChecksum(let text): "checksum '\(text)' is not two hex digits"
        case .badChecksum(let stated, let computed):
            "checksum mismatch: sentence says \(Self.hex(stated)), bytes give \(Self.hex(computed))"
        case .notPrintableASCII: "sentence contains bytes that are not printable ASCII"
        case .badAddress(let address): "'\(address)' is not a talker and sentence type"
        case .proprietary(let type): "proprietary sentence P\(type) (skipped)"
        case .unsupported(let type): "\(type) sentences are not decoded"
        case .missingFields(let sentence, let needed, let have):
            "\(sentence) needs \(needed) fields, has \(have)"
        case .badField(let sentence, let field, let value): "\(sentence) \(field) '\(value)' is not valid"
        }
    }

    private static func hex(_ value: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "\(digits[Int(value >> 4)])\(digits[Int(value & 0x0F)])"
    }
}
