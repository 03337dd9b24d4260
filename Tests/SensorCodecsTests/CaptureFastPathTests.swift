import Foundation
import HandoffModel
import Testing

@testable import SensorCodecs

/// The capture reader's fast path for payload lines must read exactly what the full JSON decoder
/// reads, and leave to it every line it is not sure of.
@Suite("Capture format: the fast path for payload lines")
struct CaptureFastPathTests {
    static let wall = WallInstant(nanosecondsSinceEpoch: 1_781_418_559_560_000_000)

    /// Lines as the pack writes them, and some it never writes.
    static let lines: [String] = [
        CaptureCodec.encode(
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 42_528_000_000), wall: wall,
                body: .payload(sensor: "hr0", kind: .heartRateMeasurement, .bytes([0x16, 0x56, 0xCE, 0x02])))),
        CaptureCodec.encode(
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 0), wall: WallInstant(nanosecondsSinceEpoch: 0),
                body: .payload(sensor: "gps0", kind: .nmea, .text("$GNGGA,062919.00,,,,,0,00,99.99,,,,,,*7D")))),
        CaptureCodec.encode(
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: CaptureCodec.maximumMonotonicNanoseconds), wall: wall,
                body: .payload(sensor: "pod \"1\" é", kind: PayloadKind(rawValue: "rsc"), .bytes([])))),
        CaptureCodec.encode(
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 7), wall: nil,
                body: .payload(sensor: "hr0", kind: .heartRateMeasurement, .bytes([0x00])))),
        CaptureCodec.encode(
            CaptureEvent(monotonic: MonotonicInstant(nanoseconds: 8), wall: wall, body: .command(.pause))),
        CaptureCodec.encode(
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 9), wall: wall,
                body: .link(sensor: "hr0", state: .disconnected, reason: "supervision timeout"))),
        #"{"mono_ns":1,"wall_ns":2,"sensor":"x","kind":"link","hex":"00"}"#,
        #"{"mono_ns":1,"wall_ns":2,"sensor":"x","kind":"hrm","hex":"0x16 48"}"#,
        #"{"mono_ns":01,"wall_ns":2,"sensor":"x","kind":"hrm","hex":"00"}"#,
        #"{"mono_ns":1,"wall_ns":99999999999999999999,"sensor":"x","kind":"hrm","hex":"00"}"#,
        #"{"mono_ns":1,"wall_ns":9223372036854775807,"sensor":"x","kind":"hrm","hex":"00"}"#,
    ]

    /// Every single-byte deletion, and every replacement of one byte by a troublesome one.
    static func edits(of line: [UInt8]) -> [[UInt8]] {
        let replacements = Array(#""\0}9 -,:"#.utf8) + [0x1F, 0x7F, 0xC3, 0xFF]
        var out: [[UInt8]] = []
        for index in line.indices {
            var deleted = line
            deleted.remove(at: index)
            out.append(deleted)
            for byte in replacements where byte != line[index] {
                var replaced = line
                replaced[index] = byte
                out.append(replaced)
            }
        }
        return out
    }

    @Test("Whatever the fast path reads, the full decoder reads the same; what it leaves, it leaves")
    func agreesWithTheFullDecoder() throws {
        var read = 0
        var left = 0
        for line in Self.lines {
            for candidate in [Array(line.utf8)] + Self.edits(of: Array(line.utf8)) {
                guard let fast = CaptureFastPath.decode(candidate) else {
                    left += 1
                    continue
                }
                read += 1
                let full = try CaptureCodec.decodeEventInFull(candidate)
                #expect(fast == full, "\(String(decoding: candidate, as: UTF8.self))")
            }
        }
        // Both sides are exercised: many edits keep a valid line, many break it.
        #expect(read > 100 && left > 1000, "read \(read), left \(left)")
    }

    @Test("The pack's payload lines take the fast path; other events and unusual lines do not")
    func whichLinesTakeIt() {
        let taken = Self.lines.map { CaptureFastPath.decode(Array($0.utf8)) != nil }
        #expect(taken == [true, true, false, false, false, false, false, true, false, false, false])
    }

    @Test("Capture files in the fuzz corpus read the same either way")
    func corpusAgrees() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Fuzz/Corpus")
        var lines = 0
        for directory in ["capture", "replay"] {
            let folder = corpus.appendingPathComponent(directory)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let bytes = Array(line.utf8)
                    guard let fast = CaptureFastPath.decode(bytes) else { continue }
                    lines += 1
                    #expect(fast == (try CaptureCodec.decodeEventInFull(bytes)))
                }
            }
        }
        #expect(lines > 0)
    }
}
