import Foundation
import PropertyBased
import SensorCodecs
import Testing

@Suite("JSON codec (RFC 8259)")
struct JSONTests {
    @Test("Parses every kind of value and keeps member order")
    func parsesValues() throws {
        let value = try JSONParser.parse(#" {"b": [1, -2.5e3, true, false, null], "a": "x\u00e9\ud83c\udfc3\n"} "#)
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.members.map(\.key) == ["b", "a"])
        #expect(object["b"] == .array([.integer(1), .double(-2500), .bool(true), .bool(false), .null]))
        #expect(object["a"] == .string("xé🏃\n"))
    }

    @Test("Integers beyond 64 bits become doubles; integers within stay exact")
    func numbers() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .integer(.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .integer(.min))
        #expect(try JSONParser.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONParser.parse("0.1") == .double(0.1))
    }

    @Test(
        "Rejects what RFC 8259 does not allow",
        arguments: [
            "", "{", "[1,]", "{\"a\" 1}", "01", "1.", ".5", "-", "+1", "tru", "nul", "\"abc", "\"\\x\"", "\"\u{01}\"",
            "[1] 2", "{\"a\":1,}", "\"\\ud800\"", "\"\\udc00x\"", "1e", "NaN", "Infinity", "1e999",
        ])
    func rejects(text: String) {
        #expect(throws: JSONError.self) { try JSONParser.parse(text) }
    }

    @Test("Rejects invalid UTF-8 inside strings")
    func rejectsInvalidUTF8() {
        #expect(throws: JSONError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test("Nesting is limited, so hostile input cannot exhaust the stack")
    func depthLimit() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONError.self) { try JSONParser.parse(deep) }
        let fine = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        #expect(throws: Never.self) { try JSONParser.parse(fine) }
    }

    @Test("What the writer writes, Foundation reads back the same")
    func writerAgreesWithFoundation() throws {
        var object = JSONObject()
        object.append("s", .string("quote \" backslash \\ tab \t ctrl \u{01} é"))
        object.append("i", .integer(-42))
        object.append("d", .double(0.1))
        object.append("w", .double(5))
        object.append("n", .null)
        var writer = JSONWriter()
        writer.write(.object(object))
        let parsed = try JSONSerialization.jsonObject(with: Data(writer.bytes)) as! [String: Any]
        #expect(parsed["s"] as? String == "quote \" backslash \\ tab \t ctrl \u{01} é")
        #expect(parsed["i"] as? Int == -42)
        #expect(parsed["d"] as? Double == 0.1)
        #expect(parsed["w"] as? Double == 5)
        #expect(try JSONParser.parse(writer.bytes) == .object(object))
    }

    @Test("Random bytes never trap the parser, and what parses re-parses from its own writing")
    func randomBytes() async {
        let alphabet = Array(#"{}[]:,"\ u0123456789.eE+-truefalsn"#.utf8)
        let text = Gen.int(in: 0..<alphabet.count).array(of: 0...40).map { $0.map { alphabet[$0] } }
        await propertyCheck(count: 4000, input: text) { bytes in
            guard let value = try? JSONParser.parse(bytes) else { return }
            var writer = JSONWriter()
            writer.write(value)
            #expect((try? JSONParser.parse(writer.bytes)) == value)
        }
        await propertyCheck(count: 1000, input: Gen.uint8().array(of: 0...40)) { bytes in
            _ = try? JSONParser.parse(bytes)
        }
    }
}
