/// One NMEA 0183 sentence, framed and checksum-verified, split into fields.
///
/// `$<talker><type>,<field>,…*<checksum>`: the checksum is the XOR of every byte between `$`
/// and `*`, written as two hex digits in either case (NMEA 0183 v4.11 §5.3.1).
public struct NMEASentence: Hashable, Sendable {
    /// Two letters naming the source (`GP`, `GN`, `GL`, …); empty for proprietary sentences.
    public var talker: String
    /// The sentence formatter (`RMC`, `GGA`, …), or the whole address after `P` when proprietary.
    public var type: String
    public var isProprietary: Bool
    /// The bytes between `$` and `*`, and where each data field after the address lies in them.
    let body: [UInt8]
    let fieldRanges: [Range<Int>]

    /// The data fields after the address, possibly empty strings.
    public var fields: [Substring] {
        let text = String(decoding: body, as: UTF8.self)
        return text.split(separator: ",", omittingEmptySubsequences: false).dropFirst().map { $0 }
    }

    public var fieldCount: Int { fieldRanges.count }

    /// Frames one sentence. Bytes before the last `$` (line noise, a doubled `$$`) and the
    /// line ending are dropped. Works on the bytes throughout: this is on every GPS epoch's path.
    public init(parsing line: String, checksum: NMEAChecksumPolicy = .required) throws(NMEAError) {
        var line = line
        let parsed = line.withUTF8 { bytes in Result { () throws(NMEAError) in try Self.parse(bytes, checksum) } }
        self = try parsed.get()
    }

    /// Frames one sentence from its bytes (as `NMEAFramer` delivers them).
    public init(bytes: [UInt8], checksum: NMEAChecksumPolicy = .required) throws(NMEAError) {
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(NMEAError) in try Self.parse(buffer, checksum) }
        }
        self = try parsed.get()
    }

    private init(talker: String, type: String, isProprietary: Bool, body: [UInt8], fieldRanges: [Range<Int>]) {
        self.talker = talker
        self.type = type
        self.isProprietary = isProprietary
        self.body = body
        self.fieldRanges = fieldRanges
    }

    private static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, _ policy: NMEAChecksumPolicy
    ) throws(NMEAError) -> NMEASentence {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0D || bytes[end - 1] == 0x0A || bytes[end - 1] == 0x20 { end -= 1 }
        var star: Int?
        var index = end - 1
        while index >= 0 {
            if bytes[index] == UInt8(ascii: "*") {
                star = index
                break
            }
            index -= 1
        }
        guard let star else {
            guard let dollar = bytes[..<end].lastIndex(of: UInt8(ascii: "$")) else { throw .missingStart }
            return try parseUnchecked(Array(bytes[(dollar + 1)..<end]), policy)
        }
        var dollar: Int?
        index = star - 1
        while index >= 0 {
            if bytes[index] == UInt8(ascii: "$") {
                dollar = index
                break
            }
            index -= 1
        }
        guard let dollar else { throw .missingStart }
        let checksumText = bytes[(star + 1)..<end]
        guard checksumText.count == 2, let expected = hexByte(checksumText) else {
            throw .malformedChecksum(String(decoding: checksumText, as: UTF8.self))
        }
        var computed: UInt8 = 0
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(20)
        var fieldStart = 0
        let body = Array(bytes[(dollar + 1)..<star])
        for (offset, byte) in body.enumerated() {
            guard byte >= 0x20, byte < 0x7F else { throw .notPrintableASCII }
            computed ^= byte
            if byte == UInt8(ascii: ",") {
                ranges.append(fieldStart..<offset)
                fieldStart = offset + 1
            }
        }
        ranges.append(fieldStart..<body.count)
        guard computed == expected else { throw .badChecksum(stated: expected, computed: computed) }
        return try split(body, ranges)
    }

    /// A sentence sent without a checksum: accepted only from receivers known to do that.
    private static func parseUnchecked(
        _ body: [UInt8], _ policy: NMEAChecksumPolicy
    ) throws(NMEAError) -> NMEASentence {
        let addressEnd = body.firstIndex(of: UInt8(ascii: ",")) ?? body.count
        let address = String(decoding: body[..<addressEnd], as: UTF8.self)
        guard policy.allowsMissingChecksum(address) else { throw .missingChecksum }
        var ranges: [Range<Int>] = []
        var fieldStart = 0
        for (offset, byte) in body.enumerated() {
            guard byte >= 0x20, byte < 0x7F else { throw .notPrintableASCII }
            if byte == UInt8(ascii: ",") {
                ranges.append(fieldStart..<offset)
                fieldStart = offset + 1
            }
        }
        ranges.append(fieldStart..<body.count)
        return try split(body, ranges)
    }

    private static func split(_ body: [UInt8], _ fieldRanges: [Range<Int>]) throws(NMEAError) -> NMEASentence {
        var ranges = fieldRanges
        let address = ranges.removeFirst()
        if address.count >= 1, body[address.lowerBound] == UInt8(ascii: "P") {
            return NMEASentence(
                talker: "", type: String(decoding: body[(address.lowerBound + 1)..<address.upperBound], as: UTF8.self),
                isProprietary: true, body: body, fieldRanges: ranges)
        }
        let isAddressByte = { (b: UInt8) in (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) }
        guard address.count == 5, body[address].allSatisfy(isAddressByte) else {
            throw .badAddress(String(decoding: body[address], as: UTF8.self))
        }
        let talkerEnd = address.lowerBound + 2
        return NMEASentence(
            talker: String(decoding: body[address.lowerBound..<talkerEnd], as: UTF8.self),
            type: String(decoding: body[talkerEnd..<address.upperBound], as: UTF8.self), isProprietary: false,
            body: body, fieldRanges: ranges)
    }

    /// The bytes of data field `index`, or `nil` when it is absent or empty.
    func field(_ index: Int) -> ArraySlice<UInt8>? {
        guard index < fieldRanges.count, !fieldRanges[index].isEmpty else { return nil }
        return body[fieldRanges[index]]
    }

    private static func hexByte(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> UInt8? {
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

/// Which sentences may come without a `*hh` checksum.
///
/// NMEA 0183 makes the checksum optional for some sentences, but every receiver we know sends it
/// except where listed here; accepting unchecked sentences in general would let line noise in.
public struct NMEAChecksumPolicy: Hashable, Sendable {
    /// Addresses (talker and type, or `P` and the proprietary name) accepted without a checksum.
    public var addressesWithoutChecksum: Set<String>

    public init(addressesWithoutChecksum: Set<String>) {
        self.addressesWithoutChecksum = addressesWithoutChecksum
    }

    /// The receivers known to send sentences without a checksum: the MediaTek MT3301 sends its
    /// `$POLYN` start-up lines bare (they are proprietary, so they are then skipped and counted).
    public static let required = NMEAChecksumPolicy(addressesWithoutChecksum: ["POLYN"])

    func allowsMissingChecksum(_ address: String) -> Bool { addressesWithoutChecksum.contains(address) }
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
