import Foundation
import Testing

@testable import ActivityFormats

@Suite("Numbers and times in GPX and TCX text")
struct TextTests {
    @Test("Decimals: fixed digits, no trailing zeros, no negative zero; equal to printf's rounding of the scaled value")
    func decimals() {
        #expect(XMLText.decimal(0, 2) == "0")
        #expect(XMLText.decimal(1.5, 3) == "1.5")
        #expect(XMLText.decimal(-0.001, 2) == "0")
        #expect(XMLText.decimal(1000, 2) == "1000")
        #expect(XMLText.decimal(0.05, 2) == "0.05")
        #expect(XMLText.decimal(-3.1, 2) == "-3.1")
        #expect(XMLText.decimal(52.123456789, 8) == "52.12345679")
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let digits = Int.random(in: 0...8, using: &random)
            let value =
                Double.random(in: -200_000...200_000, using: &random) / Double(Int.random(in: 1...1000, using: &random))
            let text = XMLText.decimal(value, digits)
            var scale = 1.0
            for _ in 0..<digits { scale *= 10 }
            let expected = (value * scale).rounded() / scale
            #expect(abs(Double(text)! - expected) <= abs(expected) * 1e-15 + 1e-12, "\(value) at \(digits): \(text)")
            #expect(!text.contains(".") || !text.hasSuffix("0"))
        }
    }

    @Test("ISO 8601 times: zones, fractions, and what is not a time")
    func times() {
        #expect(XMLText.time("2021-01-07T21:51:59.179+01:15")?.nanosecondsSinceEpoch == 1_610_051_819_179_000_000)
        #expect(XMLText.time("2013-01-01T12:00:04")?.nanosecondsSinceEpoch == 1_357_041_604_000_000_000)
        #expect(XMLText.time("2013-01-01T12:00:04Z") == XMLText.time("2013-01-01T12:00:04"))
        #expect(XMLText.time("2013-01-01T13:00:04+01:00") == XMLText.time("2013-01-01T12:00:04Z"))
        for bad in [
            "", "yesterday", "2013-13-01T12:00:04Z", "2013-01-01T12:00:04.Z", "2013-01-01T12:00:04+1", "2013-01-01",
        ] {
            #expect(XMLText.time(bad) == nil, "\(bad)")
        }
    }
}
