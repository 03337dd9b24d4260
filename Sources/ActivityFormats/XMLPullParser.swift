import HandoffModel

/// A small XML pull parser for GPX and TCX: elements, attributes, text, CDATA, comments and the
/// five predefined and numeric character references. It is strict where that protects the
/// reader: a DOCTYPE (and so any entity expansion) is refused, tags must nest, nesting is
/// bounded, and every error names its line. Names are reported without their prefix, as GPX
/// and TCX readers match them (namespace prefixes differ from file to file).
struct XMLPullParser {
    enum Event {
        /// A start tag (an empty-element tag gives `start` then `end`).
        case start(name: Substring, attributes: [(name: Substring, value: String)])
        /// An end tag, with the text directly inside the element (for leaf elements: its value).
        case end(name: Substring, text: String)
    }

    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var position = 0
    private var stack: [Substring] = []
    private var text: [UInt8] = []
    private var pendingEnd: Substring?
    /// The default namespace of the root element.
    private(set) var rootNamespace: String?
    private(set) var rootName: Substring?

    init(_ bytes: [UInt8]) throws(ActivityFileError) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            throw .xml(line: 1, problem: "the file is UTF-16; save it as UTF-8 and import it again")
        }
    }

    /// Where `line` last counted to, so that asking for every element's line stays linear.
    private var lineMark = (offset: 0, line: 1)

    /// The 1-based line of the current position, for error messages.
    var line: Int {
        mutating get {
            var count = lineMark.line
            for b in bytes[lineMark.offset..<min(position, bytes.count)] where b == 0x0A { count += 1 }
            lineMark = (max(lineMark.offset, min(position, bytes.count)), count)
            return count
        }
    }

    private func lineAt(_ offset: Int) -> Int {
        var count = 1
        for b in bytes[0..<min(offset, bytes.count)] where b == 0x0A { count += 1 }
        return count
    }

    private func fail(_ problem: String) -> ActivityFileError { .xml(line: lineAt(position), problem: problem) }

    /// The next start or end tag; nil at the end of the document.
    mutating func next() throws(ActivityFileError) -> Event? {
        if let name = pendingEnd {
            pendingEnd = nil
            return .end(name: localName(name), text: "")
        }
        while position < bytes.count {
            let byte = bytes[position]
            guard byte == UInt8(ascii: "<") else {
                try readText()
                continue
            }
            guard position + 1 < bytes.count else { throw fail("the file ends inside a tag") }
            switch bytes[position + 1] {
            case UInt8(ascii: "?"):
                try skip(past: Array("?>".utf8), what: "processing instruction")
            case UInt8(ascii: "!"):
                if starts("<!--") {
                    try skip(past: Array("-->".utf8), what: "comment")
                } else if starts("<![CDATA[") {
                    position += 9
                    let end = try find(Array("]]>".utf8), what: "CDATA section")
                    if !stack.isEmpty { text += bytes[position..<end] }
                    position = end + 3
                } else if starts("<!DOCTYPE") {
                    throw fail("a DOCTYPE declaration is not accepted (GPX and TCX files never need one)")
                } else {
                    throw fail("unexpected \"<!\"")
                }
            case UInt8(ascii: "/"):
                return try readEndTag()
            default:
                return try readStartTag()
            }
        }
        if let open = stack.last { throw fail("the file ends before <\(open)> is closed (was it cut short?)") }
        return nil
    }

    private func starts(_ literal: String) -> Bool {
        let l = Array(literal.utf8)
        return bytes.count - position >= l.count && bytes[position..<position + l.count].elementsEqual(l)
    }

    private func find(_ needle: [UInt8], what: String) throws(ActivityFileError) -> Int {
        var i = position
        while i + needle.count <= bytes.count {
            if bytes[i] == needle[0], bytes[i..<i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        throw fail("a \(what) is never closed")
    }

    private mutating func skip(past needle: [UInt8], what: String) throws(ActivityFileError) {
        position = try find(needle, what: what) + needle.count
    }

    private mutating func readText() throws(ActivityFileError) {
        let start = position
        while position < bytes.count, bytes[position] != UInt8(ascii: "<") { position += 1 }
        if stack.isEmpty {
            guard bytes[start..<position].allSatisfy(Self.isSpace) else {
                throw .xml(line: lineAt(start), problem: "text outside the root element")
            }
            return
        }
        try decodeReferences(bytes[start..<position], into: &text, at: start)
    }

    private mutating func readStartTag() throws(ActivityFileError) -> Event {
        position += 1
        let name = try readName()
        var attributes: [(name: Substring, value: String)] = []
        while true {
            skipSpace()
            guard position < bytes.count else { throw fail("the file ends inside <\(name)>") }
            if bytes[position] == UInt8(ascii: ">") {
                position += 1
                break
            }
            if bytes[position] == UInt8(ascii: "/") {
                guard position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: ">") else {
                    throw fail("\"/\" inside <\(name)> is not followed by \">\"")
                }
                position += 2
                pendingEnd = name
                break
            }
            let attribute = try readName()
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                throw fail("attribute \(attribute) of <\(name)> has no value")
            }
            position += 1
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'")
            else { throw fail("attribute \(attribute) of <\(name)> is not quoted") }
            let quote = bytes[position]
            position += 1
            let start = position
            while position < bytes.count, bytes[position] != quote { position += 1 }
            guard position < bytes.count else { throw fail("attribute \(attribute) of <\(name)> is never closed") }
            var value: [UInt8] = []
            try decodeReferences(bytes[start..<position], into: &value, at: start)
            position += 1
            attributes.append((attribute, String(decoding: value, as: UTF8.self)))
        }
        if stack.isEmpty {
            guard rootName == nil else { throw fail("a second root element <\(name)>") }
            rootName = localName(name)
            rootNamespace = attributes.first { $0.name == "xmlns" }?.value
        }
        if pendingEnd == nil {
            guard stack.count < Self.maximumDepth else {
                throw .tooLarge("elements are nested more than \(Self.maximumDepth) deep at line \(line)")
            }
            stack.append(name)
        }
        text.removeAll(keepingCapacity: true)
        return .start(name: localName(name), attributes: attributes)
    }

    private mutating func readEndTag() throws(ActivityFileError) -> Event {
        position += 2
        let name = try readName()
        skipSpace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
            throw fail("</\(name) is not closed")
        }
        position += 1
        guard let open = stack.popLast() else { throw fail("</\(name)> closes nothing") }
        guard open == name else { throw fail("</\(name)> closes <\(open)>") }
        let value = String(decoding: text, as: UTF8.self)
        text.removeAll(keepingCapacity: true)
        return .end(name: localName(name), text: value)
    }

    private mutating func readName() throws(ActivityFileError) -> Substring {
        let start = position
        while position < bytes.count {
            let b = bytes[position]
            if Self.isSpace(b) || b == UInt8(ascii: ">") || b == UInt8(ascii: "/") || b == UInt8(ascii: "=") { break }
            position += 1
        }
        guard position > start else { throw fail("a tag has no name") }
        return Substring(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func skipSpace() {
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    /// The name without its prefix (found byte-wise: Character indexing is slow).
    private func localName(_ name: Substring) -> Substring {
        guard let colon = name.utf8.firstIndex(of: UInt8(ascii: ":")) else { return name }
        return name[name.utf8.index(after: colon)...]
    }

    /// Appends `raw` with its character references replaced.
    private func decodeReferences(
        _ raw: ArraySlice<UInt8>, into out: inout [UInt8], at offset: Int
    ) throws(ActivityFileError) {
        guard raw.contains(UInt8(ascii: "&")) else {
            out += raw
            return
        }
        var i = raw.startIndex
        while i < raw.endIndex {
            guard raw[i] == UInt8(ascii: "&") else {
                out.append(raw[i])
                i += 1
                continue
            }
            guard let semicolon = raw[i..<min(raw.endIndex, i + 12)].firstIndex(of: UInt8(ascii: ";")) else {
                throw .xml(line: lineAt(offset), problem: "an \"&\" that starts no reference (write &amp;)")
            }
            let name = String(decoding: raw[(i + 1)..<semicolon], as: UTF8.self)
            switch name {
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "amp": out.append(UInt8(ascii: "&"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                let scalar: UInt32? =
                    name.hasPrefix("#x")
                    ? UInt32(name.dropFirst(2), radix: 16)
                    : name.hasPrefix("#") ? UInt32(name.dropFirst(), radix: 10) : nil
                guard let scalar, let character = Unicode.Scalar(scalar) else {
                    throw .xml(line: lineAt(offset), problem: "unknown reference &\(name);")
                }
                out += Array(String(Character(character)).utf8)
            }
            i = semicolon + 1
        }
    }
}

/// XML text escaping and the ISO 8601 times GPX and TCX use.
public enum XMLText {
    /// Text for an XML element or attribute: markup characters escaped, and the characters XML
    /// 1.0 cannot carry at all (C0 controls but tab and line ends, U+FFFE, U+FFFF) left out.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r": out.unicodeScalars.append(c)
            default:
                if c.value >= 0x20, c.value != 0xFFFE, c.value != 0xFFFF { out.unicodeScalars.append(c) }
            }
        }
        return out
    }

    /// Parses `2021-01-07T21:51:59.179+01:15`, `…Z` or a time without a zone (taken as UTC, as
    /// gpxpy and Garmin do).
    static func time(_ text: String) -> WallInstant? {
        let u = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= u.count else { return nil }
            var v = 0
            for b in u[range] {
                guard b >= 48, b <= 57 else { return nil }
                v = v * 10 + Int(b - 48)
            }
            return v
        }
        guard u.count >= 19, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-"),
            u[10] == UInt8(ascii: "T") || u[10] == UInt8(ascii: " "), u[13] == UInt8(ascii: ":"),
            u[16] == UInt8(ascii: ":"), let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            hour < 24, minute < 60, second < 61,
            // A real day of the month (no 31 February) in 1980–2100: no file from a GPS device
            // is older, and every such time fits 64-bit nanoseconds (they run out in 2262).
            CivilTime.supportedYears.contains(year), (1...12).contains(month),
            (1...CivilTime.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var i = 19
        var nanos = 0
        if i < u.count, u[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < u.count, u[i] >= 48, u[i] <= 57 {
                if digits < 9 {
                    nanos = nanos * 10 + Int(u[i] - 48)
                    digits += 1
                }
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<9 { nanos *= 10 }
        }
        var offsetSeconds = 0
        if i < u.count {
            if u[i] == UInt8(ascii: "Z") {
                i += 1
            } else if u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-") {
                // xsd:dateTime's zones run from -14:00 to +14:00.
                guard let h = number(i + 1..<i + 3), u.count >= i + 6, u[i + 3] == UInt8(ascii: ":"),
                    let m = number(i + 4..<i + 6), m < 60, h * 60 + m <= 14 * 60
                else { return nil }
                offsetSeconds = (h * 3600 + m * 60) * (u[i] == UInt8(ascii: "+") ? 1 : -1)
                i += 6
            }
        }
        guard i == u.count else { return nil }
        let civil = CivilTime(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, nanosecond: nanos)
        guard let local = civil.checkedInstant else { return nil }
        let utc = local.advanced(byNanoseconds: -Int64(offsetSeconds) * nanosecondsPerSecond)
        return CivilTime.supportedInstants.contains(utc) ? utc : nil
    }

    /// A number in XML text (xsd:decimal or xsd:double), nil when it is not one.
    static func number(_ text: String) -> Double? {
        let trimmed = text.trimmingSpaces
        guard let v = Double(trimmed), v.isFinite else { return nil }
        return v
    }

    /// `12.3456789` with at most `digits` decimals and no trailing zeros. Digits are made by
    /// integer arithmetic into a small buffer: the writers call this for every value.
    static func decimal(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (value * scale).rounded()
        guard scaled.isFinite, abs(scaled) < 9e15 else { return value.isFinite ? String(value) : "0" }
        var n = Int64(scaled)
        let negative = n < 0
        if negative { n = -n }
        var fraction = digits
        while fraction > 0, n % 10 == 0 {
            n /= 10
            fraction -= 1
        }
        var reversed: [UInt8] = []
        reversed.reserveCapacity(24)
        var count = 0
        while n > 0 || count <= fraction {
            reversed.append(UInt8(48 + n % 10))
            n /= 10
            count += 1
            if count == fraction { reversed.append(UInt8(ascii: ".")) }
        }
        if negative, reversed.contains(where: { $0 != UInt8(ascii: "0") && $0 != UInt8(ascii: ".") }) {
            reversed.append(UInt8(ascii: "-"))
        }
        return String(decoding: reversed.reversed(), as: UTF8.self)
    }
}

extension String {
    /// Without leading and trailing XML whitespace, found byte-wise.
    var trimmingSpaces: Substring {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = bytes.lastIndex(where: { !isSpace($0) })!
        return self[first...last]
    }
}

extension WallInstant {
    /// An ISO 8601 / RFC 3339 time: `2026-11-23T07:00:00Z`, with fraction or offset; without a
    /// zone it is taken as UTC.
    public init?(iso8601 text: String) {
        guard let instant = XMLText.time(text) else { return nil }
        self = instant
    }
}
