import Synchronization

/// The SQL text with `?` placeholders numbered `$1`, `$2`, … for PostgreSQL, cached by text (the
/// repository's statements are a fixed set; the cache is emptied should it ever grow past 1,024).
final class PlaceholderCache: Sendable {
    private let texts = Mutex<[String: String]>([:])

    func numbered(_ sql: String) -> String {
        if let hit = texts.withLock({ $0[sql] }) { return hit }
        let converted = Self.number(sql)
        texts.withLock { texts in
            if texts.count >= 1024 { texts.removeAll(keepingCapacity: true) }
            texts[sql] = converted
        }
        return converted
    }

    /// `?` outside '…' literals and "…" identifiers (a doubled quote inside either closes and
    /// reopens it, which comes to the same). No E'\'' escapes, comments or $$ strings.
    static func number(_ sql: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(sql.utf8.count + 16)
        var n = 0
        var quote: UInt8? = nil
        for byte in sql.utf8 {
            if let open = quote {
                if byte == open { quote = nil }
                out.append(byte)
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
                out.append(byte)
            } else if byte == UInt8(ascii: "?") {
                n += 1
                out.append(contentsOf: "$\(n)".utf8)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
