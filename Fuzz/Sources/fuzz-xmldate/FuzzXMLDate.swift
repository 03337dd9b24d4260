import ActivityFormats
import FuzzSupport
import HandoffModel

/// The XML date parser (GPX and TCX times: `WallInstant(iso8601:)`) on any text: nil or an
/// instant, never a trap. A time it accepts prints and parses back to the same second, and a
/// plain `YYYY-MM-DDTHH:MM:SS[Z]` that it accepts is a real date: it prints back as written
/// (so no 31 February), and an offset it accepts is a real one (hours 00–23, minutes 00–59).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMLDate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    guard let instant = WallInstant(iso8601: text) else { return 0 }
    let printed = CivilTime(instant).iso8601()
    guard let again = WallInstant(iso8601: printed) else {
        fatalError("\(text) parses, but its own print \(printed) does not")
    }
    let ns = instant.nanosecondsSinceEpoch
    let whole = ns &- ((ns % 1_000_000_000) + 1_000_000_000) % 1_000_000_000
    Fuzz.require(again.nanosecondsSinceEpoch == whole, "\(text) prints as \(printed), which parses to another second")

    let u = Array(text.utf8)
    let digits = u.prefix(19).enumerated().allSatisfy { i, c in [4, 7, 10, 13, 16].contains(i) || (48...57).contains(c)
    }
    if (u.count == 19 || (u.count == 20 && u[19] == UInt8(ascii: "Z"))) && digits && u[17...18] != [54, 48] {
        var expected = Array(u.prefix(19))
        expected[10] = UInt8(ascii: "T")
        Fuzz.require(Array(printed.utf8.prefix(19)) == expected, "\(text) is accepted but is the date \(printed)")
    }
    if u.count >= 25,
        let sign = u.dropFirst(19).firstIndex(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }),
        u.count == sign + 6
    {
        let hours = Int(String(decoding: u[(sign + 1)...(sign + 2)], as: UTF8.self)) ?? 99
        let minutes = Int(String(decoding: u[(sign + 4)...(sign + 5)], as: UTF8.self)) ?? 99
        Fuzz.require(hours < 24 && minutes < 60, "\(text) is accepted with the offset \(hours):\(minutes)")
    }
    return 0
}

@_cdecl("fuzz_xmldate_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzXMLDate)
}
