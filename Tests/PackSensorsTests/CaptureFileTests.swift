import Foundation
import HandoffModel
import PackSensors
import SensorCodecs
import TestSupport
import Testing

@Suite("Capture files: streaming reader and writer")
struct CaptureFileTests {
    static let header = CaptureHeader(sensors: [SensorDescriptor(id: "gps0", kind: .gps)], createdBy: "test")

    static func event(_ i: Int, text: String = "$GPGGA,1*00") -> CaptureEvent {
        CaptureEvent(
            monotonic: MonotonicInstant(nanoseconds: Int64(i) * 1_000_000),
            wall: WallInstant(nanosecondsSinceEpoch: Int64(i)),
            body: .payload(sensor: "gps0", kind: .nmea, .text(text)))
    }

    static func readAll(_ path: String) throws -> (CaptureHeader, [CaptureEvent], [CaptureLineError]) {
        let reader = try CaptureFileReader(path: path)
        var events: [CaptureEvent] = []
        while let event = try reader.next() { events.append(event) }
        return (reader.header, events, reader.skipped)
    }

    @Test("What the writer writes, the reader reads back")
    func roundTrip() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/c.jsonl"
        let writer = try CaptureFileWriter(path: path, header: Self.header)
        let events = (0..<500).map { Self.event($0) }
        for event in events { try writer.write(event) }
        let (header, read, skipped) = try Self.readAll(path)
        #expect(header == Self.header)
        #expect(read == events)
        #expect(skipped.isEmpty)
    }

    @Test("CRLF endings, blank lines, a last line without a newline, and lines across 64 KiB reads")
    func lineBoundaries() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/c.jsonl"
        // Lines of every length around the read size, so that some straddle each boundary.
        let long = String(repeating: "x", count: 70_000)
        var events = [Self.event(0, text: long)]
        events += (1..<300).map { Self.event($0, text: String(repeating: "y", count: $0 * 7)) }
        var text = "\r\n" + CaptureCodec.encode(Self.header) + "\r\n\r\n"
        text += events.map(CaptureCodec.encode).joined(separator: "\r\n")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let (_, read, skipped) = try Self.readAll(path)
        #expect(read == events)
        #expect(skipped.isEmpty)
    }

    @Test("Unreadable lines are skipped with their line numbers; the rest is read")
    func skippedLines() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/c.jsonl"
        let lines = [
            CaptureCodec.encode(Self.header), CaptureCodec.encode(Self.event(1)), "{oops",
            CaptureCodec.encode(Self.event(2)),
            #"{"mono_ns":3}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let (_, read, skipped) = try Self.readAll(path)
        #expect(read == [Self.event(1), Self.event(2)])
        #expect(skipped.map(\.line) == [3, 5])
        #expect(skipped.last?.error == .missingField("kind"))
    }

    @Test("A line longer than 1 MiB is an error, not a reason to exhaust memory")
    func oversizeLine() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/c.jsonl"
        let huge = CaptureCodec.encode(Self.event(1, text: String(repeating: "z", count: 1_200_000)))
        try (CaptureCodec.encode(Self.header) + "\n" + huge + "\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        let reader = try CaptureFileReader(path: path)
        #expect(throws: FileError.self) { try reader.next() }
    }

    @Test("A file that is not a capture, or empty, is refused at once with the reason")
    func notACapture() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try "".write(toFile: dir.path + "/empty", atomically: true, encoding: .utf8)
        try #"{"hello":1}"#.write(toFile: dir.path + "/other", atomically: true, encoding: .utf8)
        #expect(throws: CaptureFileError.self) { try CaptureFileReader(path: dir.path + "/empty") }
        do {
            _ = try CaptureFileReader(path: dir.path + "/other")
            Issue.record("accepted a file that is not a capture")
        } catch {
            #expect("\(error)".contains("is not a Handoff capture"))
            #expect("\(error)".contains("line 1"))
        }
        #expect(throws: FileError.self) { try CaptureFileReader(path: dir.path + "/missing") }
    }
}
