/// Cuts a receiver's byte stream into sentence candidates, whatever the reads looked like.
///
/// A serial port or a socket delivers bytes in arbitrary pieces: a sentence may be split across
/// reads, several may arrive at once, and receivers emit binary protocol messages, boot banners
/// and line noise between sentences. The framer keeps at most one unfinished line, starts a line
/// at every `$` or `!` (so `$$GPGGA` and a sentence cut short by the next one both resynchronise),
/// ends it at CR or LF, and counts every byte it throws away.
public struct NMEAFramer: Sendable {
    /// The longest line kept. NMEA 0183 allows 82 characters; proprietary sentences run longer
    /// (a SiRF `$PSRF` or u-blox `$PUBX` can reach ~120), so anything past this is noise.
    public static let maximumLineLength = 160

    private var line: [UInt8] = []
    private var inLine = false
    /// Bytes that were not part of any complete line.
    public private(set) var discardedBytes = 0
    /// Lines dropped because they ran past `maximumLineLength` without ending.
    public private(set) var overlongLines = 0

    public init() {
        line.reserveCapacity(Self.maximumLineLength)
    }

    /// Takes the next bytes; calls `body` with each complete line (without its line ending).
    public mutating func append(_ bytes: some Sequence<UInt8>, _ body: ([UInt8]) throws -> Void) rethrows {
        // The loop runs on contiguous bytes, not through the generic iterator: callers in other
        // modules would otherwise step every byte through unspecialised witness calls (2/3 of the
        // decoder's instructions, measured with callgrind).
        let done: Void? = try bytes.withContiguousStorageIfAvailable { try append(buffer: $0, body) }
        if done == nil { try Array(bytes).withUnsafeBufferPointer { try append(buffer: $0, body) } }
    }

    private mutating func append(buffer bytes: UnsafeBufferPointer<UInt8>, _ body: ([UInt8]) throws -> Void) rethrows {
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "$"), UInt8(ascii: "!"):
                if inLine { discardedBytes += line.count }
                line.removeAll(keepingCapacity: true)
                line.append(byte)
                inLine = true
            case 0x0D, 0x0A:
                if inLine, line.count > 1 { try body(line) } else if inLine { discardedBytes += line.count }
                line.removeAll(keepingCapacity: true)
                inLine = false
            default:
                guard inLine else {
                    discardedBytes += 1
                    continue
                }
                if byte < 0x20 || byte >= 0x7F || line.count >= Self.maximumLineLength {
                    // Binary inside a line: the line is corrupt; wait for the next start.
                    if line.count >= Self.maximumLineLength { overlongLines += 1 }
                    discardedBytes += line.count + 1
                    line.removeAll(keepingCapacity: true)
                    inLine = false
                } else {
                    line.append(byte)
                }
            }
        }
    }

    /// Ends the input: a last line without a line ending still counts.
    public mutating func finish(_ body: ([UInt8]) throws -> Void) rethrows {
        if inLine, line.count > 1 { try body(line) }
        line.removeAll(keepingCapacity: true)
        inLine = false
    }

    /// The complete lines in `bytes`, for callers that have everything at once.
    public static func lines(in bytes: some Sequence<UInt8>) -> [[UInt8]] {
        var framer = NMEAFramer()
        var lines: [[UInt8]] = []
        framer.append(bytes) { lines.append($0) }
        framer.finish { lines.append($0) }
        return lines
    }
}
