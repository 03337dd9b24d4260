import ActivityFormats
import Foundation
import HandoffModel
import TestSupport
import Testing

/// FIT features no shared fixture has: developer fields, compressed timestamp headers and
/// big-endian definitions mixed in one file, built byte by byte here and decoded by us and by
/// fitdecode (which reads all three; Garmin's Python SDK stops at compressed timestamps).
@Suite("FIT: developer fields, compressed timestamps and both byte orders")
struct FITFeatureTests {
    static func file(_ records: [UInt8]) -> [UInt8] { FIT.container(records: records) }

    static func le32(_ v: UInt32) -> [UInt8] {
        [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
    }
    static func be32(_ v: UInt32) -> [UInt8] { le32(v).reversed() }

    /// 120 seconds of records: the first of each minute with a full timestamp from a
    /// big-endian definition with a developer field, the others with compressed timestamp
    /// headers from a little-endian definition that also carries the developer field.
    static func sample() -> (bytes: [UInt8], start: UInt32, hr: [Int], distance: [Double]) {
        let start: UInt32 = 1_100_000_000  // FIT seconds: 2024-11-09
        var r: [UInt8] = []
        // file_id (local 0, little-endian): type activity, manufacturer development, time_created.
        r += [0x40, 0, 0, 0, 0, 3, 0, 1, 0x00, 1, 2, 0x84, 4, 4, 0x86]
        r += [0x00, 4, 255, 0] + le32(start)
        // developer_data_id (207): developer_data_index 0. field_description (206): dev field 0 is a uint16 "power".
        r += [0x41, 0, 0, 207, 0, 1, 3, 1, 0x02]
        r += [0x01, 0]
        r += [0x42, 0, 0, 206, 0, 4, 0, 1, 0x02, 1, 1, 0x02, 2, 1, 0x02, 3, 6, 0x07]
        r += [0x02, 0, 0, 0x84] + Array("power".utf8) + [0]
        // record, big-endian, developer flag: timestamp, heart_rate, distance; dev field 0 (2 bytes).
        r += [0x60 | 3, 0, 1, 0, 20, 3, 253, 4, 0x86, 3, 1, 0x02, 5, 4, 0x86, 1, 0, 2, 0]
        // record, little-endian, developer flag, no timestamp (for compressed headers): heart_rate, distance, dev field.
        r += [0x60 | 1, 0, 0, 20, 0, 2, 3, 1, 0x02, 5, 4, 0x86, 1, 0, 2, 0]
        var hr: [Int] = []
        var distance: [Double] = []
        for second in 0..<120 {
            let t = start + UInt32(second)
            let beats = 120 + second % 37
            let centimetres = UInt32(second * 310)
            hr.append(beats)
            distance.append(Double(centimetres) / 100)
            if second % 60 == 0 {
                r += [0x03] + be32(t) + [UInt8(beats)] + be32(centimetres) + [0x01, 0x2C]
            } else {
                r += [0x80 | (1 << 5) | UInt8(t & 0x1F), UInt8(beats)] + le32(centimetres) + [0x2C, 0x01]
            }
        }
        return (file(r), start, hr, distance)
    }

    @Test("Our decoding of every record equals what the file holds")
    func ours() throws {
        let (bytes, _, hr, distance) = Self.sample()
        let activity = try FITReader.read(bytes)
        #expect(activity.points.map(\.elapsedSeconds) == Array(0..<120))
        #expect(activity.points.map(\.heartRateBPM) == hr)
        #expect(activity.points.map(\.distanceMeters) == distance)
        #expect(activity.summary.statistics.distanceMeters == distance.last)
    }

    @Test(
        "fitdecode decodes the same records from the same bytes",
        .enabled(if: Oracle.runnable, "needs the oracles (scripts/setup --test)"))
    func againstFitdecode() throws {
        let (bytes, start, _, _) = Self.sample()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("features.fit")
        try Data(bytes).write(to: url)
        let decoded = try #require(try Oracle.decode([url]).first)
        #expect(decoded[path: "fitdecode", "ok"] as? Bool == true, "\(decoded[path: "fitdecode", "error"] ?? "")")
        let records = decoded.list("fitdecode", "records")
        let ours = try FITReader.read(bytes)
        #expect(records.count == ours.points.count)
        for (p, r) in zip(ours.points, records) {
            #expect((r["timestamp"] as? NSNumber)?.int64Value == Int64(start) + 631_065_600 + Int64(p.elapsedSeconds))
            #expect((r["heart_rate"] as? NSNumber)?.intValue == p.heartRateBPM)
            #expect(Compare.close((r["distance_m"] as? NSNumber)?.doubleValue, p.distanceMeters, 1e-9))
        }
        let structure = decoded[path: "fitdecode", "structure"] as? [String: Any]
        // fitdecode agrees that the file exercises what it is meant to.
        #expect((structure?["compressed_timestamp_messages"] as? NSNumber)?.intValue == 118)
        #expect((structure?["big_endian_definitions"] as? NSNumber)?.intValue == 1)
        #expect((structure?["developer_data_definitions"] as? NSNumber)?.intValue == 2)
    }

    @Test("A compressed timestamp before any full one, and a definition cut short, are named")
    func badStructure() {
        let early = Self.file([0x40, 0, 0, 20, 0, 1, 3, 1, 0x02, 0x80 | 5, 120])
        #expect { try FITReader.read(early) } throws: { "\($0)".contains("compressed-timestamp header comes before") }
        let undefined = Self.file([0x05, 1, 2, 3])
        #expect { try FITReader.read(undefined) } throws: {
            "\($0)".contains("local message type 5, which was never defined")
        }
        let short = Self.file([0x40, 0, 0, 20, 0, 9, 3, 1])
        #expect { try FITReader.read(short) } throws: { "\($0)".contains("definition of 9 fields is cut short") }
    }
}
