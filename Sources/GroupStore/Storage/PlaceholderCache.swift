import Synchronization

/// The SQL text with `?` placeholders numbered `$1`, `$2`, … for PostgreSQL, cached by text and
/// argument types (the repository's statements are a fixed set; the cache is emptied should it
/// ever grow past 1,024).
final class PlaceholderCache: Sendable {
    private let texts = Mutex<[String: String]>([:])

    func numbered(_ sql: String) -> String {
        cached(sql) { Self.number(sql) }
    }

    /// Numbered, each placeholder cast to its argument's type (`$1::int8`), except NULLs, whose
    /// type the server infers from where they stand. A statement prepared from this text means
    /// what the unnamed statement means with the same types given in its Parse message.
    func typed(_ sql: String, _ arguments: [SQLValue]) -> String {
        let casts = arguments.map(\.postgresCast)
        return cached(sql + "\u{0}" + casts.map { $0 ?? "" }.joined(separator: ",")) {
            Self.number(sql, casts: casts)
        }
    }

    private func cached(_ key: String, _ convert: () -> String) -> String {
        if let hit = texts.withLock({ $0[key] }) { return hit }
        let converted = convert()
        texts.withLock { texts in
            if texts.count >= 1024 { texts.removeAll(keepingCapacity: true) }
            texts[key] = converted
        }
        return converted
    }

    /// `?` outside '…' literals and "…" identifiers (a doubled quote inside either closes and
    /// reopens it, which comes to the same). No E'\'' escapes, comments or $$ strings. The n-th
    /// placeholder gets `::` and `casts[n-1]` after it when that is there.
    static func number(_ sql: String, casts: [String?] = []) -> String {
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
                if n <= casts.count, let cast = casts[n - 1] { out.append(contentsOf: "::\(cast)".utf8) }
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension SQLValue {
    /// The PostgreSQL type a session binds this value as; nil for NULL (the server infers it).
    var postgresCast: String? {
        switch self {
        case .integer: "int8"
        case .real: "float8"
        case .text: "text"
        case .blob: "bytea"
        case .null: nil
        }
    }
}
