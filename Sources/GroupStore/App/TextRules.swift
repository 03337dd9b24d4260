import Foundation

/// The rules every name a person types follows (usernames, e-mail, group and pack names), in one
/// place: text is normalised to NFC on the way in, refused when it carries characters that hide
/// or reorder what a reader sees, and compared by a key that folds case and compatibility forms.
enum TextRules {
    /// Bidirectional controls (RFC 9839 and Unicode TR #9): embeddings and overrides
    /// U+202A–U+202E, isolates U+2066–U+2069, and the marks U+200E, U+200F. They make a name
    /// read differently from what it is.
    static let bidiControls: ClosedRange<UInt32> = 0x202A...0x202E
    static let bidiIsolates: ClosedRange<UInt32> = 0x2066...0x2069

    /// Whether `scalar` may not appear in a name: C0 controls (NUL included), DEL, C1 controls,
    /// and the bidirectional controls.
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || bidiControls.contains(value)
            || bidiIsolates.contains(value) || value == 0x200E || value == 0x200F
    }

    /// `text` in NFC, or a `400 invalid_text` naming `field` when it holds a forbidden character.
    static func plain(_ text: String, field: String) throws(StoreError) -> String {
        if let bad = text.unicodeScalars.first(where: isForbidden) {
            let code = String(format: "U+%04X", bad.value)
            throw StoreError(
                .badRequest, "invalid_text",
                "the \(field) contains \(code), a control or text-direction character: type it again without it")
        }
        return text.precomposedStringWithCanonicalMapping
    }

    /// Several lines of plain text (a comment, a description): line ends made `\n`, each line
    /// checked as `plain`, blank lines and spaces around the whole trimmed.
    static func paragraphs(_ text: String, field: String) throws(StoreError) -> String {
        let unified = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var lines: [String] = []
        for line in unified.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append(try plain(String(line), field: field))
        }
        return lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The key two spellings of one name share: NFKC, then case folded. The Kelvin sign K (U+212A)
    /// and "K", "ﬁ" and "fi", "Ｇ" and "g", NFC and NFD spellings all give one key, so they cannot
    /// be two accounts.
    static func key(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping.folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCompatibilityMapping
    }
}
