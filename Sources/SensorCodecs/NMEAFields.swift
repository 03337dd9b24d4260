/// Typed access to a sentence's fields; an empty field is `nil`, a malformed one an error.
/// Everything works on the field's bytes.
struct NMEAFields {
    let sentenceName: String
    let sentence: NMEASentence

    init(sentence name: String, _ sentence: NMEASentence) {
        sentenceName = name
        self.sentence = sentence
    }

    func bad(_ name: String, _ index: Int) -> NMEAError {
        .badField(
            sentence: sentenceName, field: name, value: String(decoding: sentence.field(index) ?? [], as: UTF8.self))
    }

    func number(_ index: Int, _ name: String) throws(NMEAError) -> Double? {
        guard let bytes = sentence.field(index) else { return nil }
        guard let value = Self.decimal(bytes) else { throw bad(name, index) }
        return value
    }

    func integer(_ index: Int, _ name: String) throws(NMEAError) -> Int? {
        guard let bytes = sentence.field(index) else { return nil }
        guard bytes.count <= 9, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { throw bad(name, index) }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// An integer that may be negative (a GSV elevation below the horizon).
    func signedInteger(_ index: Int, _ name: String) throws(NMEAError) -> Int? {
        guard let bytes = sentence.field(index) else { return nil }
        let negative = bytes.first == UInt8(ascii: "-")
        let digits = negative ? bytes.dropFirst() : bytes
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw bad(name, index)
        }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return negative ? -value : value
    }

    func character(_ index: Int, _ name: String, allowed: StaticString) throws(NMEAError) -> Character? {
        guard let bytes = sentence.field(index) else { return nil }
        let permitted = UnsafeBufferPointer(start: allowed.utf8Start, count: allowed.utf8CodeUnitCount)
        guard bytes.count == 1, let byte = bytes.first, permitted.contains(byte) else { throw bad(name, index) }
        return Character(Unicode.Scalar(byte))
    }

    /// `hhmmss[.sss]`.
    func time(_ index: Int) throws(NMEAError) -> NMEATime? {
        guard let bytes = sentence.field(index) else { return nil }
        let b = Array(bytes)
        guard b.count >= 6, b[..<6].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Self.decimal(b[4...])
        else { throw bad("time", index) }
        let hour = Int(b[0] - 0x30) * 10 + Int(b[1] - 0x30)
        let minute = Int(b[2] - 0x30) * 10 + Int(b[3] - 0x30)
        guard hour < 24, minute < 60, seconds < 61 else { throw bad("time", index) }
        return NMEATime(hour: hour, minute: minute, second: seconds)
    }

    /// `ddmmyy`; two-digit years are 2000–2079 or 1980–1999 (GPS began in 1980).
    func date(_ index: Int) throws(NMEAError) -> NMEADate? {
        guard let bytes = sentence.field(index) else { return nil }
        guard bytes.count == 6, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { throw bad("date", index) }
        let digits = bytes.map { Int($0 - 0x30) }
        if digits.allSatisfy({ $0 == 0 }) { return nil }  // some receivers' "date not known yet"
        let day = digits[0] * 10 + digits[1]
        let month = digits[2] * 10 + digits[3]
        let yy = digits[4] * 10 + digits[5]
        guard (1...31).contains(day), (1...12).contains(month) else { throw bad("date", index) }
        return NMEADate(year: yy < 80 ? 2000 + yy : 1900 + yy, month: month, day: day)
    }

    /// Latitude `ddmm.mmmm,N|S` then longitude `dddmm.mmmm,E|W`, starting at `index`.
    /// Both absent is a sentence without a fix; half a position is an error.
    func position(_ index: Int) throws(NMEAError) -> (Double?, Double?) {
        let lat = try coordinate(
            index, hemispheres: (UInt8(ascii: "N"), UInt8(ascii: "S")), limit: 90, name: "latitude")
        let lon = try coordinate(
            index + 2, hemispheres: (UInt8(ascii: "E"), UInt8(ascii: "W")), limit: 180, name: "longitude")
        guard (lat == nil) == (lon == nil) else { throw bad(lat == nil ? "latitude" : "longitude", index) }
        return (lat, lon)
    }

    private func coordinate(
        _ index: Int, hemispheres: (UInt8, UInt8), limit: Double, name: String
    ) throws(NMEAError) -> Double? {
        // No fix: receivers leave the number empty, some with the hemisphere letter kept.
        guard let value = try number(index, name) else { return nil }
        guard let hemisphere = sentence.field(index + 1), hemisphere.count == 1 else { throw bad(name, index) }
        let degrees = (value / 100).rounded(.towardZero)
        let minutes = value - degrees * 100
        guard value >= 0, minutes < 60 else { throw bad(name, index) }
        var result = degrees + minutes / 60
        guard result <= limit else { throw bad(name, index) }
        switch hemisphere.first {
        case hemispheres.0: break
        case hemispheres.1: result = -result
        default: throw bad(name, index + 1)
        }
        return result
    }

    /// A plain decimal (`-12.345`), correctly rounded; no exponents, no `inf`/`nan`.
    static func decimal(_ bytes: some Collection<UInt8>) -> Double? {
        var mantissa: Int64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        var negative = false
        var first = true
        for c in bytes {
            defer { first = false }
            if first && (c == UInt8(ascii: "-") || c == UInt8(ascii: "+")) {
                negative = c == UInt8(ascii: "-")
                continue
            }
            if c == UInt8(ascii: ".") {
                if seenPoint { return nil }
                seenPoint = true
                continue
            }
            guard c >= 0x30, c <= 0x39 else { return nil }
            digits += 1
            guard digits <= 15 else { return nil }
            mantissa = mantissa * 10 + Int64(c - 0x30)
            if seenPoint { fractionDigits += 1 }
        }
        guard digits > 0 else { return nil }
        let value = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    private static let powersOfTen: [Double] = (0...15).map { exponent in
        var p = 1.0
        for _ in 0..<exponent { p *= 10 }
        return p
    }
}
