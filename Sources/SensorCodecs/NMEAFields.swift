/// Typed access to a sentence's fields; an empty field is `nil`, a malformed one an error.
struct NMEAFields {
    let sentence: String
    let fields: [Substring]

    private func field(_ index: Int) -> Substring? {
        guard index < fields.count, !fields[index].isEmpty else { return nil }
        return fields[index]
    }

    private func bad(_ name: String, _ index: Int) -> NMEAError {
        .badField(sentence: sentence, field: name, value: String(fields[index]))
    }

    func number(_ index: Int, _ name: String) throws(NMEAError) -> Double? {
        guard let text = field(index) else { return nil }
        guard let value = Self.decimal(text) else { throw bad(name, index) }
        return value
    }

    func integer(_ index: Int, _ name: String) throws(NMEAError) -> Int? {
        guard let text = field(index) else { return nil }
        guard text.utf8.count <= 9, let value = Int(text), value >= 0 else { throw bad(name, index) }
        return value
    }

    func character(_ index: Int, _ name: String, allowed: String) throws(NMEAError) -> Character? {
        guard let text = field(index) else { return nil }
        guard text.count == 1, let c = text.first, allowed.contains(c) else { throw bad(name, index) }
        return c
    }

    /// `hhmmss[.sss]`.
    func time(_ index: Int) throws(NMEAError) -> NMEATime? {
        guard let text = field(index) else { return nil }
        let utf8 = Array(text.utf8)
        guard utf8.count >= 6, utf8[..<6].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let seconds = Self.decimal(text.dropFirst(4))
        else { throw bad("time", index) }
        let hour = Int(utf8[0] - 0x30) * 10 + Int(utf8[1] - 0x30)
        let minute = Int(utf8[2] - 0x30) * 10 + Int(utf8[3] - 0x30)
        guard hour < 24, minute < 60, seconds < 61 else { throw bad("time", index) }
        return NMEATime(hour: hour, minute: minute, second: seconds)
    }

    /// `ddmmyy`; two-digit years are 2000–2079 or 1980–1999 (GPS began in 1980).
    func date(_ index: Int) throws(NMEAError) -> NMEADate? {
        guard let text = field(index) else { return nil }
        let utf8 = Array(text.utf8)
        guard utf8.count == 6, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { throw bad("date", index) }
        if text == "000000" { return nil }  // some receivers' "date not known yet"
        let digits = utf8.map { Int($0 - 0x30) }
        let day = digits[0] * 10 + digits[1]
        let month = digits[2] * 10 + digits[3]
        let yy = digits[4] * 10 + digits[5]
        guard (1...31).contains(day), (1...12).contains(month) else { throw bad("date", index) }
        return NMEADate(year: yy < 80 ? 2000 + yy : 1900 + yy, month: month, day: day)
    }

    /// Latitude `ddmm.mmmm,N|S` then longitude `dddmm.mmmm,E|W`, starting at `index`.
    /// Both absent is a sentence without a fix; half a position is an error.
    func position(_ index: Int) throws(NMEAError) -> (Double?, Double?) {
        let lat = try coordinate(index, hemispheres: ("N", "S"), limit: 90, name: "latitude")
        let lon = try coordinate(index + 2, hemispheres: ("E", "W"), limit: 180, name: "longitude")
        guard (lat == nil) == (lon == nil) else { throw bad(lat == nil ? "latitude" : "longitude", index) }
        return (lat, lon)
    }

    private func coordinate(
        _ index: Int, hemispheres: (Character, Character), limit: Double, name: String
    ) throws(NMEAError) -> Double? {
        let value = try number(index, name)
        let hemisphere = field(index + 1)
        // No fix: receivers leave the number empty, some with the hemisphere letter kept.
        guard let value else { return nil }
        guard let hemisphere, hemisphere.count == 1 else { throw bad(name, index) }
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
    static func decimal(_ text: Substring) -> Double? {
        var mantissa: Int64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        var negative = false
        var first = true
        for c in text.utf8 {
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
