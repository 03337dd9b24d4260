/// A `multipart/form-data` body (RFC 7578), already collected: its parts by name. Only what an
/// upload needs: each part's name, file name, content type and bytes. Pure (no I/O, no Foundation), linear
/// in the body's size, and total: any bytes give parts or a `MultipartError`, never a trap.
public struct MultipartForm: Sendable {
    /// One part of the form.
    public struct Part: Sendable {
        /// The `name` of its `Content-Disposition: form-data`.
        public let name: String
        /// The `filename` of its `Content-Disposition`, as sent: a file's name on the sender's
        /// computer, text a person chose (a browser sends the base name only).
        public let filename: String?
        /// Its `Content-Type`, as sent.
        public let contentType: String?
        /// Its content: the bytes between its header block and the next delimiter.
        public let body: ArraySlice<UInt8>
    }

    /// How much work a body may ask for.
    public struct Limits: Sendable {
        /// The most parts in a body.
        public var parts = 16
        /// The longest header block of a part, in bytes.
        public var headerBytes = 8 * 1024
        public init() {}
    }

    /// The parts, in the order sent.
    public let parts: [Part]

    /// The first part named `name`.
    public subscript(_ name: String) -> Part? { parts.first { $0.name == name } }

    /// The boundary from a `Content-Type: multipart/form-data; boundary=…` header: nil for
    /// another type, or a boundary RFC 2046 §5.1.1 does not allow (empty, over 70 characters,
    /// or with a control character).
    public static func boundary(_ contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(trimmed)
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value = unquoted(pair[1])
                guard (1...70).contains(value.utf8.count),
                    value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F })
                else { return nil }
                return value
            }
        }
        return nil
    }

    /// Parses the body.
    public init(_ body: [UInt8], boundary: String, limits: Limits = Limits()) throws(MultipartError) {
        let delimiter = Array("--\(boundary)".utf8)
        let first = ByteSearch(delimiter)
        let next = ByteSearch([13, 10] + delimiter)
        let blankLine = ByteSearch([13, 10, 13, 10])
        guard var cursor = first.firstIndex(in: body, from: 0) else { throw .noBoundary(boundary) }
        var parts: [Part] = []
        while true {
            cursor += delimiter.count
            if Self.has([45, 45], in: body, at: cursor) { break }  // "--": the closing delimiter
            guard Self.has([13, 10], in: body, at: cursor) else { throw .boundaryNotFollowedByCRLF }
            cursor += 2
            guard parts.count < limits.parts else { throw .tooManyParts(limit: limits.parts) }
            let window = cursor + limits.headerBytes + 4
            guard let headerEnd = blankLine.firstIndex(in: body, from: cursor, to: window) else {
                throw body.count > window ? .headersTooLong(limit: limits.headerBytes) : .headersDoNotEnd
            }
            let (name, filename, type) = try Self.headers(body[cursor..<headerEnd])
            let start = headerEnd + 4
            guard let end = next.firstIndex(in: body, from: start) else { throw .partDoesNotEnd }
            guard let name else { throw .partWithoutName }
            parts.append(Part(name: name, filename: filename, contentType: type, body: body[start..<end]))
            cursor = end + 2
        }
        self.parts = parts
    }

    /// A part's name and file name (from `Content-Disposition`) and `Content-Type`.
    private static func headers(
        _ block: ArraySlice<UInt8>
    ) throws(MultipartError) -> (String?, String?, String?) {
        var name: String?
        var filename: String?
        var type: String?
        for line in String(decoding: block, as: UTF8.self).split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2 else { throw .headerWithoutColon }
            let field = trimmed(pair[0]).lowercased()
            let value = trimmed(pair[1])
            if field == "content-disposition" {
                name = parameter("name", in: value)
                filename = parameter("filename", in: value)
            } else if field == "content-type" {
                type = value
            }
        }
        return (name, filename, type)
    }

    private static func has(_ bytes: [UInt8], in body: [UInt8], at index: Int) -> Bool {
        index >= 0 && index <= body.count - bytes.count && body[index..<(index + bytes.count)].elementsEqual(bytes)
    }

    private static func parameter(_ key: String, in value: String) -> String? {
        for item in value.split(separator: ";").dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1).map(trimmed)
            guard pair.count == 2, pair[0].lowercased() == key else { continue }
            return unquoted(pair[1])
        }
        return nil
    }

    private static func unquoted(_ value: String) -> String {
        value.utf8.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"")
            ? String(value.dropFirst().dropLast()) : value
    }

    /// Without leading and trailing spaces and tabs (Foundation-free).
    private static func trimmed(_ text: Substring) -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return String(text[first...last])
    }
}
