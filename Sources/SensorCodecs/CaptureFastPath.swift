import HandoffModel

/// Reads the one shape of line that makes up nearly all of a capture, a payload as the pack writes
/// it, without building a JSON tree:
///
///     {"mono_ns":N,"wall_ns":N,"sensor":"…","kind":"…","hex":"…"}   (or "text" for "hex")
///
/// Anything else (another key order, spaces, escapes, non-ASCII text, a number out of range,
/// hex that does not decode) answers `nil`, and the line goes to the full decoder, which is the
/// one that accepts or explains it. So both give the same event for every line this one reads
/// (CaptureFastPathTests checks that over whole captures and the fuzz corpus). It serves replay:
/// a pack that records live decodes sensor bytes, not capture lines.
enum CaptureFastPath {
    static func decode(_ line: [UInt8]) -> CaptureEvent? {
        line.withUnsafeBufferPointer { bytes in
            var scanner = Scanner(bytes: bytes)
            guard scanner.literal(#"{"mono_ns":"#), let mono = scanner.integer(),
                mono <= CaptureCodec.maximumMonotonicNanoseconds,
                scanner.literal(#","wall_ns":"#), let wall = scanner.integer(),
                wall < CivilTime.supportedInstants.upperBound.nanosecondsSinceEpoch,
                scanner.literal(#","sensor":""#), let sensor = scanner.string(),
                scanner.literal(#"","kind":""#), let kind = scanner.string(),
                kind != "command", kind != "clock", kind != "link",
                scanner.literal(#"",""#)
            else { return nil }
            let payload: Payload
            if scanner.literal(#"hex":""#) {
                guard scanner.stringEnd() != nil, let decoded = try? Hex.decode(bytes: Array(bytes[scanner.lastString]))
                else { return nil }
                payload = .bytes(decoded)
            } else if scanner.literal(#"text":""#), let text = scanner.string() {
                payload = .text(text)
            } else {
                return nil
            }
            guard scanner.literal(#""}"#), scanner.atEnd else { return nil }
            return CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: mono), wall: WallInstant(nanosecondsSinceEpoch: wall),
                body: .payload(sensor: SensorID(sensor), kind: PayloadKind(rawValue: kind), payload))
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0
        /// The bytes of the last string `stringEnd()` passed over.
        var lastString: Range<Int> = 0..<0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var atEnd: Bool { position == bytes.count }

        /// Passes over `text` if the line continues with it.
        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - position >= count else { return false }
            let expected = UnsafeBufferPointer(start: text.utf8Start, count: count)
            for offset in 0..<count where bytes[position + offset] != expected[offset] { return false }
            position += count
            return true
        }

        /// A non-negative integer as JSON writes it (no leading zeros), within 64 bits.
        mutating func integer() -> Int64? {
            let start = position
            var value: Int64 = 0
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                let digit = Int64(bytes[position] - UInt8(ascii: "0"))
                let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(digit)
                guard !overflow, !overflow2 else { return nil }
                value = sum
                position += 1
            }
            let digits = position - start
            guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
            return value
        }

        /// Passes over the rest of a string of plain printable ASCII up to its closing quote
        /// (left unread), noting its bytes in `lastString`; `nil` at an escape or any other byte.
        mutating func stringEnd() -> Int? {
            let start = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    lastString = start..<position
                    return position
                }
                guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
                position += 1
            }
            return nil
        }

        /// The rest of a plain string, as `stringEnd()` reads it.
        mutating func string() -> String? {
            guard stringEnd() != nil else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[lastString]), as: UTF8.self)
        }
    }
}
