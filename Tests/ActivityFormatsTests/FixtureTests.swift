import ActivityFormats
import Foundation
import HandoffModel
import TestSupport
import Testing

/// Files from real devices and other programs (../shared/fixtures/files), read by us and by the
/// independent decoders: our totals must be the file's own.
@Suite("Real files import with the file's own totals; invalid ones are refused, naming the problem")
struct FixtureTests {
    static let validFIT = ["Activity.fit", "HrmPluginTestActivity.fit", "activity-small-fenix2-run.fit"]

    @Test(
        "FIT: session totals, every record's heart rate and every RR interval equal Garmin's SDK",
        .enabled(if: Fixtures.available && Oracle.runnable, "needs ../shared/fixtures and the oracles"),
        arguments: validFIT)
    func fit(name: String) throws {
        let url = try Fixtures.url("files/fit/" + name)
        let ours = try FITReader.read([UInt8](try Data(contentsOf: url)))
        let oracle = try #require(try Oracle.decode([url]).first)
        #expect(oracle[path: "garmin", "integrity"] as? Bool == true)
        let sessions = oracle.list("garmin", "sessions")
        let distance = sessions.reduce(0.0) { $0 + (($1["total_distance"] as? NSNumber)?.doubleValue ?? 0) }
        let timer = sessions.reduce(0.0) { $0 + (($1["total_timer_time"] as? NSNumber)?.doubleValue ?? 0) }
        let s = ours.summary.statistics
        #expect(
            abs(s.distanceMeters - distance) <= max(0.001 * distance, 0.01),
            "distance \(s.distanceMeters) vs \(distance)")
        #expect(abs(s.timerSeconds - timer) <= 1, "timer \(s.timerSeconds) vs \(timer)")
        #expect(ours.laps.count == oracle.list("garmin", "laps").count)
        // One point per second with a timestamp; the SDK's records, the later one winning a second.
        var bySecond: [Int: [String: Any]] = [:]
        for record in oracle.list("garmin", "records") {
            guard let t = (record["timestamp"] as? NSNumber)?.intValue else { continue }
            bySecond[t] = record
        }
        #expect(ours.points.count == bySecond.count)
        let start = Int(ours.start.nanosecondsSinceEpoch / 1_000_000_000)
        for p in ours.points {
            let record = try #require(bySecond[start + p.elapsedSeconds], "no SDK record at \(p.elapsedSeconds)")
            #expect(p.heartRateBPM == (record["heart_rate"] as? NSNumber)?.intValue)
            if let d = (record["distance_m"] as? NSNumber)?.doubleValue { #expect(abs(p.distanceMeters - d) < 0.006) }
            if let lat = (record["lat_deg"] as? NSNumber)?.doubleValue { #expect(abs(p.latitude! - lat) < 1e-9) }
        }
        let rr = (oracle[path: "garmin", "hrv"] as? [NSNumber])?.map(\.doubleValue) ?? []
        let ourRR = ours.rrIntervals.flatMap(\.intervals1024ths)
        #expect(ourRR.count == rr.count)
        for (a, b) in zip(ourRR, rr) { #expect(abs(Double(a) / 1024 - b) <= 0.0006) }
    }

    @Test(
        "GPX: every timed track point, the track's duration and length equal gpxpy's",
        .enabled(if: Fixtures.available && Oracle.runnable, "needs ../shared/fixtures and the oracles"),
        arguments: ["gpxpy-gpx1.1_with_all_fields.gpx", "opentracks-gpx_timezone.gpx"])
    func gpx(name: String) throws {
        let url = try Fixtures.url("files/gpx/" + name)
        let ours = try GPXReader.read([UInt8](try Data(contentsOf: url)))
        let oracle = try #require(try Oracle.decode([url]).first)
        #expect(oracle[path: "xmllint", "valid"] as? Bool == true)
        let tracks = oracle[path: "gpxpy", "tracks"] as? [[[[String: Any]]]] ?? []
        let points = tracks.flatMap { $0.flatMap { $0 } }.filter { $0["time"] is NSNumber }
        #expect(ours.points.count == points.count)
        let length = oracle.double("gpxpy", "length_2d") ?? -1
        #expect(abs(ours.summary.statistics.distanceMeters - length) <= max(0.001 * length, 0.01))
        let duration = oracle.double("gpxpy", "duration") ?? -1
        #expect(abs(ours.summary.elapsedSeconds - duration) <= 1)
        if let first = points.first, let t = (first["time"] as? NSNumber)?.doubleValue {
            #expect(abs(ours.start.secondsSinceEpoch - t) < 0.001, "the time zone offset is applied")
        }
    }

    @Test(
        "TCX: lap totals and every track point's heart rate equal an independent parse",
        .enabled(if: Fixtures.available && Oracle.runnable, "needs ../shared/fixtures and the oracles"))
    func tcx() throws {
        let url = try Fixtures.url("files/tcx/tcxreader-vivoactiveHR-sup_activity_1.tcx")
        let ours = try TCXReader.read([UInt8](try Data(contentsOf: url)))
        let oracle = try #require(try Oracle.decode([url]).first)
        #expect(oracle[path: "xmllint", "valid"] as? Bool == true)
        let laps = oracle.list("tcx", "laps")
        #expect(ours.laps.count == laps.count)
        let distance = laps.reduce(0.0) { $0 + (($1["distance_m"] as? NSNumber)?.doubleValue ?? 0) }
        let time = laps.reduce(0.0) { $0 + (($1["total_time_s"] as? NSNumber)?.doubleValue ?? 0) }
        #expect(abs(ours.summary.statistics.distanceMeters - distance) <= 0.001 * distance)
        #expect(abs(ours.summary.statistics.timerSeconds - time) <= 1)
        let points = laps.flatMap { ($0["points"] as? [[String: Any]]) ?? [] }
        #expect(ours.points.count == points.count)
        for (p, q) in zip(ours.points, points) {
            #expect(p.heartRateBPM == (q["hr"] as? NSNumber)?.intValue)
            #expect(Compare.close(p.speedMetersPerSecond, (q["speed"] as? NSNumber)?.doubleValue, 1e-9))
        }
        #expect(ours.sport == .other)
    }

    @Test(
        "Invalid files are refused with the problem named", .enabled(if: Fixtures.available, "needs ../shared/fixtures")
    )
    func invalid() throws {
        func message(_ path: String, _ read: ([UInt8]) throws(ActivityFileError) -> Activity) throws -> String {
            let bytes = [UInt8](try Fixtures.data(path))
            do {
                _ = try read(bytes)
                return "accepted"
            } catch { return error.description }
        }
        let fit = { (bytes: [UInt8]) throws(ActivityFileError) in try FITReader.read(bytes) }
        #expect(try message("files/fit/invalid/activity-filecrc.fit", fit).contains("CRC"))
        #expect(try message("files/fit/invalid/activity-unexpected-eof.fit", fit).contains("truncated"))
        let gpx = try message("files/gpx/opentracks-legacy_gpx_pause_resume.gpx") { bytes throws(ActivityFileError) in
            try GPXReader.read(bytes)
        }
        #expect(gpx.contains("latitude 100") && gpx.contains("line 42"), "\(gpx)")
    }
}

@Suite("Malformed files give typed errors, never a trap")
struct MalformedFileTests {
    @Test("Every truncation of a FIT file is refused; damaged records inside a valid container are named")
    func truncatedFIT() throws {
        let bytes = FITWriter.write(Activities.generated(.pauses, seed: 4))
        for length in stride(from: 0, to: bytes.count, by: 97) {
            #expect(throws: ActivityFileError.self) { try FITReader.read(Array(bytes.prefix(length))) }
        }
        // A definition's architecture byte made 7, with the CRC fixed so the container passes.
        var damaged = bytes
        damaged[14 + 2] = 7
        let crc = FIT.crc16(damaged[0..<(damaged.count - 2)])
        damaged[damaged.count - 2] = UInt8(crc & 0xFF)
        damaged[damaged.count - 1] = UInt8(crc >> 8)
        #expect {
            try FITReader.read(damaged)
        } throws: { error in
            "\(error)".contains("architecture 7") && "\(error)".contains("byte 14")
        }
    }

    @Test(
        "Random damage to FIT, GPX and TCX files never traps", arguments: ActivityFormat.allCases.filter { $0 != .csv })
    func randomDamage(format: ActivityFormat) {
        let original = format.write(Activities.generated(.pauses, seed: 5))
        var random = SeededRandom(seed: 77)
        for _ in 0..<300 {
            var bytes = original
            for _ in 0..<(1 + Int(random.next() % 8)) {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            if format == .fit {
                // Fix the CRC so that the damage reaches the record parser.
                let crc = FIT.crc16(bytes[0..<(bytes.count - 2)])
                bytes[bytes.count - 2] = UInt8(crc & 0xFF)
                bytes[bytes.count - 1] = UInt8(crc >> 8)
            }
            _ = try? format.read(bytes)
            _ = try? format.read(Array(bytes.prefix(Int(random.next() % UInt64(bytes.count)))))
        }
    }

    @Test("XML: a DOCTYPE, mismatched tags, bad references and deep nesting are refused with their line")
    func xmlErrors() {
        func error(_ text: String) -> String {
            do {
                _ = try GPXReader.read(Array(text.utf8))
                return "accepted"
            } catch { return error.description }
        }
        #expect(error("<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [<!ENTITY a \"aaaa\">]>\n<gpx/>").contains("DOCTYPE"))
        #expect(error("<gpx xmlns=\"http://www.topografix.com/GPX/1/1\">\n<trk>\n</trkseg>\n</gpx>").contains("line 3"))
        #expect(error("<gpx xmlns=\"http://www.topografix.com/GPX/1/1\">&bogus;</gpx>").contains("&bogus;"))
        #expect(error(String(repeating: "<a>", count: 100)).contains("nested"))
        #expect(error("<kml xmlns=\"http://www.opengis.net/kml/2.2\"></kml>").contains("not a GPX file"))
        #expect(error("<gpx xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>").contains("cut short"))
        #expect(
            error(
                "<gpx xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>yesterday</time></trkpt></trkseg></trk></gpx>"
            ).contains("yesterday"))
    }

    @Test("A FIT file that is not an activity is refused, saying what it is")
    func notActivity() throws {
        var bytes = FITWriter.write(Activities.generated(.onePoint, seed: 1))
        // file_id's type is the first field of the first data message: header 14, definition 6 + 5×3.
        let typeOffset = 14 + 6 + 5 * 3 + 1
        bytes[typeOffset] = 6  // a course
        let crc = FIT.crc16(bytes[0..<(bytes.count - 2)])
        bytes[bytes.count - 2] = UInt8(crc & 0xFF)
        bytes[bytes.count - 1] = UInt8(crc >> 8)
        #expect {
            try FITReader.read(bytes)
        } throws: { "\($0)".contains("not an activity") && "\($0)".contains("type is 6") }
    }
}
