import Foundation
import Testing
import WebForms

/// The multipart parser the uploads use (issue 27, finding 3): linear in the body, total, and
/// the same parts whatever the bytes around them.
@Suite("WebForms: multipart/form-data in linear time, never a trap")
struct WebFormsTests {
    static func naive(_ needle: [UInt8], _ haystack: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, from <= haystack.count - needle.count else {
            return nil
        }
        return (from...(haystack.count - needle.count)).first {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    @Test("The search finds what a naive search finds, on random bytes from a small alphabet")
    func searchAgreesWithNaive() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let needle = (0..<Int.random(in: 1...6, using: &generator)).map { _ in UInt8.random(in: 0...2) }
            let haystack = (0..<Int.random(in: 0...60, using: &generator)).map { _ in UInt8.random(in: 0...2) }
            let from = Int.random(in: 0...max(0, haystack.count), using: &generator)
            #expect(ByteSearch(needle).firstIndex(in: haystack, from: from) == Self.naive(needle, haystack, from: from))
        }
    }

    @Test(
        "1 MB of near-miss boundaries is refused after at most two comparisons a byte (it took 2.6 s of CPU when the search was O(n·m))"
    )
    func nearMissBoundariesAreLinear() throws {
        let boundary = String(repeating: "b", count: 70)
        let body = Self.nearMiss(boundary: boundary, bytes: 1 << 20)
        #expect(throws: MultipartError.partDoesNotEnd) { try MultipartForm(body, boundary: boundary) }
        // Counted, not timed: the search for the next delimiter over the megabyte makes at most
        // two comparisons a byte, whatever the bytes.
        let next = ByteSearch(Array("\r\n--\(boundary)".utf8))
        let (index, comparisons) = next.search(in: body, from: 0)
        #expect(index == nil)
        #expect(comparisons <= 2 * body.count, "\(comparisons) comparisons for \(body.count) bytes")
    }

    /// A part that opens, then `bytes` of "\r\n--bbbb…b" lines each one byte short of the delimiter.
    static func nearMiss(boundary: String, bytes: Int) -> [UInt8] {
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n".utf8)
        let miss = Array("\r\n--\(boundary.dropLast())x".utf8)
        while body.count < bytes { body += miss }
        return body
    }

    @Test("A form parses to its parts; each malformed body gives its own error")
    func partsAndErrors() throws {
        let body = Array(
            "preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"summary\"\r\nContent-Type: application/json\r\n\r\n{}\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.fit\"\r\n\r\n\r\n--X\r\n--XyZ--\r\n"
                .utf8)
        let form = try MultipartForm(body, boundary: "XyZ")
        #expect(form.parts.map(\.name) == ["summary", "file"])
        #expect(form["summary"]?.contentType == "application/json" && Array(form["summary"]!.body) == Array("{}".utf8))
        #expect(Array(form["file"]!.body) == Array("\r\n--X".utf8))
        #expect(MultipartForm.boundary("multipart/form-data; boundary=\"XyZ\"") == "XyZ")
        #expect(MultipartForm.boundary("multipart/form-data; boundary=a\u{0}b") == nil)
        #expect(MultipartForm.boundary("text/plain; boundary=XyZ") == nil)

        let cases: [(String, MultipartError)] = [
            ("nothing here", .noBoundary("XyZ")),
            ("--XyZ!", .boundaryNotFollowedByCRLF),
            ("--XyZ\r\nContent-Disposition: form-data; name=a\r\n", .headersDoNotEnd),
            ("--XyZ\r\nno colon\r\n\r\nx\r\n--XyZ--", .headerWithoutColon),
            ("--XyZ\r\nContent-Type: a\r\n\r\nx\r\n--XyZ--", .partWithoutName),
            ("--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nx", .partDoesNotEnd),
        ]
        for (text, error) in cases {
            #expect(throws: error, "\(text)") { try MultipartForm(Array(text.utf8), boundary: "XyZ") }
        }
        var limits = MultipartForm.Limits()
        limits.parts = 2
        let three =
            String(repeating: "--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n", count: 3) + "--XyZ--"
        #expect(throws: MultipartError.tooManyParts(limit: 2)) {
            try MultipartForm(Array(three.utf8), boundary: "XyZ", limits: limits)
        }
        let longHeaders = "--XyZ\r\nX: " + String(repeating: "h", count: 9000) + "\r\n\r\nx\r\n--XyZ--"
        #expect(throws: MultipartError.headersTooLong(limit: 8192)) {
            try MultipartForm(Array(longHeaders.utf8), boundary: "XyZ")
        }
    }

    @Test("Random bytes and random cuts of a real form never trap")
    func randomBytesNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        let real = Array(
            "--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc\r\n--XyZ--\r\n".utf8)
        for _ in 0..<3_000 {
            var bytes = real
            for _ in 0..<Int.random(in: 0...4, using: &generator) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
            _ = try? MultipartForm(bytes, boundary: "XyZ")
        }
    }
}
