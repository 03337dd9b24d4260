/// A `multipart/form-data` body (RFC 7578), already collected: its parts by name. Only what an
/// upload needs: each part's name, content type and bytes.
struct MultipartForm {
    struct Part {
        let name: String
        let contentType: String?
        let body: ArraySlice<UInt8>
    }

    let parts: [Part]

    subscript(_ name: String) -> Part? { parts.first { $0.name == name } }

    /// The boundary from a `Content-Type: multipart/form-data; boundary=…` header.
    static func boundary(_ contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value =
                    pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2
                    ? String(pair[1].dropFirst().dropLast()) : pair[1]
                return (1...70).contains(value.count) ? value : nil
            }
        }
        return nil
    }

    /// Parses the body; a malformed one is a 400 saying what is wrong.
    init(_ body: [UInt8], boundary: String) throws(StoreError) {
        let delimiter = Array("--\(boundary)".utf8)
        func bad(_ what: String) -> StoreError {
            StoreError(.badRequest, "bad_multipart", "the multipart/form-data body is malformed: \(what)")
        }
        guard var cursor = Self.find(delimiter, in: body, from: 0) else { throw bad("no boundary \(boundary)") }
        var parts: [Part] = []
        while true {
            cursor += delimiter.count
            if body[cursor...].starts(with: Array("--".utf8)) { break }
            guard body[cursor...].starts(with: [13, 10]) else { throw bad("a boundary is not followed by CRLF") }
            cursor += 2
            guard let headerEnd = Self.find([13, 10, 13, 10], in: body, from: cursor) else {
                throw bad("a part's headers do not end")
            }
            var name: String?
            var type: String?
            for line in String(decoding: body[cursor..<headerEnd], as: UTF8.self).split(separator: "\r\n") {
                let pair = line.split(separator: ":", maxSplits: 1)
                guard pair.count == 2 else { throw bad("a header line has no colon") }
                let field = pair[0].lowercased().trimmingCharacters(in: .whitespaces)
                let value = pair[1].trimmingCharacters(in: .whitespaces)
                if field == "content-disposition" {
                    name = Self.parameter("name", in: value)
                } else if field == "content-type" {
                    type = value
                }
            }
            let start = headerEnd + 4
            guard let end = Self.find([13, 10] + delimiter, in: body, from: start) else {
                throw bad("a part does not end with the boundary")
            }
            guard let name else { throw bad("a part has no Content-Disposition name") }
            parts.append(Part(name: name, contentType: type, body: body[start..<end]))
            cursor = end + 2
        }
        self.parts = parts
    }

    private static func parameter(_ key: String, in value: String) -> String? {
        for item in value.split(separator: ";").dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == key else { continue }
            return pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2
                ? String(pair[1].dropFirst().dropLast()) : pair[1]
        }
        return nil
    }

    /// The first index of `needle` in `haystack` at or after `from`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var i = from
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first, haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
