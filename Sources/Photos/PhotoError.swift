/// Why a photo is refused. Each case carries what a log needs; `message` is what the person
/// who sent it reads.
public enum PhotoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is larger than the limit (checked before anything in it is read).
    case tooLarge(bytes: Int, limit: Int)
    /// The file starts with neither JPEG's nor PNG's magic bytes.
    case notAnImage
    /// The file stops early: `what` says where, as a clause ("the JPEG ends inside a segment").
    case truncated(String)
    /// The picture claims more pixels than the limits allow (a decompression bomb, or just large).
    case tooManyPixels(width: Int, height: Int)
    /// The file breaks its format's rules: `what` says which, as a clause.
    case malformed(String)
    /// A PNG chunk's CRC-32 does not match its bytes (PNG §5.3).
    case badChecksum(chunk: String)
    /// The file uses a part of its format the store does not take: `what` names it.
    case unsupported(String)

    /// One sentence for the person who sent the photo: what happened and what to do.
    public var message: String {
        switch self {
        case .tooLarge(let bytes, let limit):
            "The photo is \(Self.size(bytes, roundingUp: true)); the most is \(Self.size(limit, roundingUp: false)): send a smaller one."
        case .notAnImage:
            "That file is not a JPEG or PNG photo."
        case .truncated(let what):
            "The photo is cut short (\(what)): send the whole file again."
        case .tooManyPixels(let width, let height):
            "The photo is \(width) × \(height) pixels, more than the store takes: send a smaller one."
        case .malformed(let what):
            "The photo is damaged (\(what)): save it again as a JPEG or PNG and send that."
        case .badChecksum(let chunk):
            "The photo is damaged (its PNG chunk \(chunk) fails its checksum): send the file again."
        case .unsupported(let what):
            "The photo uses \(what), which the store does not take: save it as an ordinary JPEG or PNG."
        }
    }

    /// The same as `message`, for logs.
    public var description: String { message }

    /// A size as a person reads it: "7.2 MB", "5 MB", "300 kB", "12 bytes" (1 MB is 1024 × 1024
    /// bytes). A file's size is rounded up and a limit's down, so a file just over the limit never
    /// reads as equal to it.
    static func size(_ bytes: Int, roundingUp: Bool) -> String {
        let megabyte = 1024 * 1024
        guard bytes >= 0 else { return "\(bytes) bytes" }
        if bytes >= megabyte {
            var whole = bytes / megabyte
            var tenth = (bytes % megabyte * 10 + (roundingUp ? megabyte - 1 : 0)) / megabyte
            if tenth == 10 { (whole, tenth) = (whole + 1, 0) }
            return tenth == 0 ? "\(whole) MB" : "\(whole).\(tenth) MB"
        }
        if bytes >= 1024 {
            return "\(bytes / 1024 + (roundingUp && bytes % 1024 != 0 ? 1 : 0)) kB"
        }
        return bytes == 1 ? "1 byte" : "\(bytes) bytes"
    }
}
