import ActivityFormats
import HandoffModel
import TestSupport
import Testing

/// Files crafted to break a reader, as found by the attack on the store (issue 27): each made
/// a reader trap (an overflow in a conversion or in time arithmetic) or hold far more memory
/// than the file's size. Every one must now give a typed error that says what is wrong.
@Suite("Hostile activity files give typed errors, never a trap or a memory blow-up")
struct HostileFileTests {
    // MARK: FIT, built byte by byte (CraftedFiles)

    static let recordDefinition = CraftedFiles.recordDefinition
    static let start = CraftedFiles.start
    static func definition(_ local: UInt8, global: UInt16, _ fields: [(UInt8, UInt8, UInt8)]) -> [UInt8] {
        CraftedFiles.definition(local, global: global, fields)
    }
    static func le(_ v: UInt64, _ bytes: Int) -> [UInt8] { CraftedFiles.le(v, bytes) }
    static func fit(_ body: [UInt8]) -> [UInt8] { CraftedFiles.fit(body) }
    static func record(_ t: UInt32, hr: UInt8 = 120) -> [UInt8] { CraftedFiles.record(t, hr: hr) }

    static func fitError(_ bytes: [UInt8]) -> String? {
        do {
            _ = try FITReader.read(bytes)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("A 64-bit timestamp near 2^63, in a full or a compressed header, is refused as after 2100")
    func fitTimestampNear2to63() {
        let sint64 = Self.definition(2, global: 20, [(253, 8, 0x8E)])
        let near = UInt64(Int64.max - 7)
        // A full timestamp: refused before anything is reckoned from it.
        let full = Self.fit(Self.recordDefinition + Self.record(Self.start) + sint64 + [0x02] + Self.le(near, 8))
        #expect(Self.fitError(full)?.contains("after the year 2100") == true)
        // Then a compressed-timestamp record (local 1 in the header's bits): the step from a
        // timestamp near 2^63 overflowed before.
        let empty = Self.definition(1, global: 20, [])
        let compressed = Self.fit(sint64 + [0x02] + Self.le(near, 8) + empty + [0x80 | 1 << 5 | 3])
        #expect(Self.fitError(compressed)?.contains("after the year 2100") == true)
        // uint32 timestamps after 2100 (FIT's seconds reach 2126) are refused too.
        let late = Self.fit(Self.recordDefinition + Self.record(3_600_000_000))
        #expect(Self.fitError(late)?.contains("after the year 2100") == true)
    }

    @Test("Sessions with huge 64-bit timers are refused, naming the field")
    func fitHugeSessionTimers() {
        // session (18): timestamp, start_time, total_timer_time as uint64 (it is uint32 in the profile).
        let session = Self.definition(3, global: 18, [(253, 4, 0x86), (2, 4, 0x86), (8, 8, 0x8F)])
        var body: [UInt8] = Self.recordDefinition + Self.record(Self.start)
        body += Self.record(Self.start + 60) + session
        for _ in 0..<2 {
            let timestamp: [UInt8] = Self.le(UInt64(Self.start + 60), 4)
            let startTime: [UInt8] = Self.le(UInt64(Self.start), 4)
            let timer: [UInt8] = Self.le(UInt64(Int64.max / 2), 8)
            body += [0x03]
            body += timestamp + startTime + timer
        }
        let error = Self.fitError(Self.fit(body))
        #expect(error?.contains("total_timer_time") == true, "\(error ?? "read")")
        #expect(error?.contains("longer than the 31 days") == true)
    }

    @Test("100 kB of 1-byte records with an empty definition is refused at once, holding little")
    func fitMemoryAmplification() {
        // Each byte is a compressed-timestamp header of an empty record: 175 bytes kept per file byte before.
        var body: [UInt8] = Self.recordDefinition + Self.record(Self.start)
        body += Self.definition(2, global: 20, [])
        body += (0..<100_000).map { (i: Int) -> UInt8 in 0x80 | 2 << 5 | UInt8(i % 32) }
        let error = Self.fitError(Self.fit(body))
        #expect(error?.contains("carry no field at all") == true, "\(error ?? "read")")
    }

    @Test("More points than the limit are refused in FIT, GPX and TCX, whatever the records carry")
    func tooManyPoints() throws {
        var limits = ActivityLimits.standard
        limits.maximumPoints = 500
        var body = Self.recordDefinition
        for second in 0...UInt32(limits.maximumPoints) { body += Self.record(Self.start + second) }
        let expected = "more than 500 track points"
        #expect(
            Self.error { () throws(ActivityFileError) in try FITReader.read(Self.fit(body), limits: limits) }?
                .contains(expected) == true)
        #expect(try FITReader.read(Self.fit(Array(body.dropLast(6))), limits: limits).points.count == 500)
        let times = (0...500).map { "2026-06-14T07:\(10 + $0 / 60):\($0 % 60 < 10 ? "0" : "")\($0 % 60)Z" }
        #expect(
            Self.error { () throws(ActivityFileError) in try GPXReader.read(Self.gpx(points: times), limits: limits) }?
                .contains(expected) == true)
        #expect(try GPXReader.read(Self.gpx(points: Array(times.dropLast())), limits: limits).points.count == 500)
        let laps = times.map { ($0, "") }
        #expect(
            Self.error { () throws(ActivityFileError) in try TCXReader.read(Self.tcx(laps: laps), limits: limits) }?
                .contains(expected) == true)
        #expect(ActivityLimits.standard.maximumPoints == 150_000, "41 hours at one point a second")
    }

    @Test("Records spread over more than 31 days are refused as not one activity")
    func fitTooLong() {
        let body = Self.recordDefinition + Self.record(Self.start) + Self.record(Self.start + 40 * 86_400)
        #expect(Self.fitError(Self.fit(body))?.contains("longer than the 31 days") == true)
    }

    @Test("An HRV message with 64-bit values does not overflow converting to 1/1024 s")
    func fitHugeRR() throws {
        let hrv = Self.definition(2, global: 78, [(0, 16, 0x8F)])
        let body =
            Self.recordDefinition + Self.record(Self.start) + hrv + [0x02] + Self.le(UInt64(Int64.max), 8)
            + Self.le(800, 8)
        let activity = try FITReader.read(Self.fit(body))
        #expect(activity.rrIntervals.first?.intervals1024ths == [UInt16.max, 819])
    }

    @Test("A whole first part chained to a part with a corrupt header is refused; two whole parts are read")
    func fitChained() throws {
        let first = Self.fit(Self.recordDefinition + Self.record(Self.start) + Self.record(Self.start + 1))
        let second = Self.fit(Self.recordDefinition + Self.record(Self.start + 2) + Self.record(Self.start + 3))
        var corrupt = second
        corrupt[8] = UInt8(ascii: "X")  // ".FIT" → "XFIT"
        let error = Self.fitError(first + corrupt)
        #expect(error?.contains("part 2") == true && error?.contains("nothing was imported") == true, "\(error ?? "")")
        var badCRC = second
        badCRC[badCRC.count - 1] ^= 0xFF
        #expect(Self.fitError(first + badCRC)?.contains("part 2") == true)
        #expect(Self.fitError(first + Array(second.prefix(20)))?.contains("truncated") == true)
        let both = try FITReader.read(first + second)
        #expect(both.points.map(\.elapsedSeconds) == [0, 1, 2, 3])
        // Zeros after the last part are padding, not a part.
        #expect(try FITReader.read(first + [0, 0, 0, 0]).points.count == 2)
    }

    @Test("Laps that all cover the whole run cost a bounded number of points, not laps × points")
    func fitOverlappingLaps() throws {
        var body = Self.recordDefinition
        for second in 0..<2_000 { body += Self.record(Self.start + UInt32(second)) }
        body += Self.definition(2, global: 19, [(253, 4, 0x86), (2, 4, 0x86)])
        let lap: [UInt8] = [0x02] + Self.le(UInt64(Self.start + 1_999), 4) + Self.le(UInt64(Self.start), 4)
        for _ in 0..<ActivityLimits.standard.maximumLaps { body += lap }
        let activity = try FITReader.read(Self.fit(body))
        #expect(activity.laps.count == 1_000)
        // The budget is 4 points a point and 4 a lap (12,000): six laps of 2,000, then none.
        let covered = activity.laps.map(\.statistics.pointCount)
        #expect(covered.prefix(6).allSatisfy { $0 == 2_000 } && covered.dropFirst(6).allSatisfy { $0 == 0 })
        // One more lap is refused.
        let more = Self.fit(body + lap)
        #expect(Self.fitError(more)?.contains("more than 1000 laps") == true)
    }

    // MARK: GPX and TCX

    static func gpx(points: [String], extensions: String = "") -> [UInt8] {
        CraftedFiles.gpx(points: points, extensions: extensions)
    }
    static func stats(_ body: String) -> String { CraftedFiles.stats(body) }

    static func error(_ read: () throws(ActivityFileError) -> Activity) -> String? {
        do {
            _ = try read()
            return nil
        } catch {
            return error.description
        }
    }

    static let twoPoints = ["2026-06-14T07:00:00Z", "2026-06-14T07:00:01Z"]

    /// A crafted file with a short name, so that test output does not list its bytes.
    struct Crafted: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let expected: String
        init(_ name: String, _ bytes: [UInt8], _ expected: String) {
            self.name = name
            self.bytes = bytes
            self.expected = expected
        }
        var testDescription: String { name }
    }

    @Test(
        "GPX with absurd totals or times is refused, naming what is wrong",
        arguments: [
            Crafted(
                "TimerTime 1e300",
                gpx(points: twoPoints, extensions: stats("<gpxtrkx:TimerTime>1e300</gpxtrkx:TimerTime>")), "timer time"),
            Crafted(
                "MovingTime 1e300",
                gpx(points: twoPoints, extensions: stats("<gpxtrkx:MovingTime>1e300</gpxtrkx:MovingTime>")),
                "MovingTime"),
            Crafted(
                "ElapsedTime 1e300 in the error's duration",
                gpx(points: ["2026-06-14T07:00:00Z", "2026-07-30T07:00:00Z"]), "46 days"),
            Crafted(
                "Distance 1e300",
                gpx(points: twoPoints, extensions: stats("<gpxtrkx:Distance>1e300</gpxtrkx:Distance>")), "distance"),
            Crafted(
                "points 121 years apart", gpx(points: ["1980-01-01T00:00:00Z", "2100-12-31T00:00:00Z"]),
                "longer than the 31 days"),
            Crafted(
                "points 292 years apart", gpx(points: ["1980-01-01T00:00:00Z", "2272-01-01T00:00:00Z"]),
                "not an ISO 8601 time"),
            Crafted("31 February", gpx(points: ["2026-02-31T07:00:00Z"]), "not an ISO 8601 time"),
            Crafted("zone -99:99", gpx(points: ["2026-06-14T07:00:00-99:99"]), "not an ISO 8601 time"),
        ])
    func gpxHostile(_ file: Crafted) {
        let error = Self.error { () throws(ActivityFileError) in try GPXReader.read(file.bytes) }
        #expect(error?.contains(file.expected) == true, "\(error ?? "read without error")")
    }

    static func tcx(laps: [(start: String, extra: String)], trackpoint: String = "") -> [UInt8] {
        CraftedFiles.tcx(laps: laps, trackpoint: trackpoint)
    }

    static let t0 = "2026-06-14T07:00:00Z"

    @Test(
        "TCX with absurd totals, rates or times is refused, naming what is wrong",
        arguments: [
            Crafted(
                "TotalTimeSeconds 1e300", tcx(laps: [(t0, "<TotalTimeSeconds>1e300</TotalTimeSeconds>")]), "timer time"),
            Crafted(
                "MaximumHeartRateBpm 1e300",
                tcx(laps: [(t0, "<MaximumHeartRateBpm><Value>1e300</Value></MaximumHeartRateBpm>")]),
                "MaximumHeartRateBpm"),
            Crafted(
                "RunCadence 5e18",
                tcx(
                    laps: [(t0, "")],
                    trackpoint: "<Extensions><ns3:TPX><ns3:RunCadence>5e18</ns3:RunCadence></ns3:TPX></Extensions>"),
                "RunCadence"),
            Crafted("Cadence 1e300", tcx(laps: [(t0, "")], trackpoint: "<Cadence>1e300</Cadence>"), "Cadence"),
            Crafted(
                "AvgRunCadence 5e18",
                tcx(laps: [
                    (t0, "<Extensions><ns3:LX><ns3:AvgRunCadence>5e18</ns3:AvgRunCadence></ns3:LX></Extensions>")
                ]), "AvgRunCadence"),
            Crafted(
                "laps 120 years apart", tcx(laps: [("1980-01-01T00:00:00Z", ""), ("2100-01-01T00:00:00Z", "")]),
                "longer than the 31 days"),
            Crafted(
                "laps 320 years apart", tcx(laps: [("1980-01-01T00:00:00Z", ""), ("2300-01-01T00:00:00Z", "")]),
                "StartTime"),
        ])
    func tcxHostile(_ file: Crafted) {
        let error = Self.error { () throws(ActivityFileError) in try TCXReader.read(file.bytes) }
        #expect(error?.contains(file.expected) == true, "\(error ?? "read without error")")
    }

    @Test("A <Lap> opened inside a <Trackpoint> (found by fuzzing: an index of -1) is read without a trap")
    func tcxLapInsideTrackpoint() {
        let file = Array(
            #"<Activity><Lap StartTime="2026-11-02T18:15:12"><Track><Trackpoint><Lap StartTime="2026-11-02T18:15:12"><Trackpoint><Time>2026-11-02T18:15:12</Time></Trackpoint>"#
                .utf8)
        let error = Self.error { () throws(ActivityFileError) in try TCXReader.read(file) }
        #expect(error != nil, "not a TCX file (no root, not closed), said so")
        let wrapped = Self.tcx(laps: [
            (Self.t0, "<Track><Trackpoint><Lap StartTime=\"\(Self.t0)\"></Lap></Trackpoint></Track>")
        ])
        #expect(Self.error { () throws(ActivityFileError) in try TCXReader.read(wrapped) } == nil)
    }

    // MARK: The XML date parser

    @Test(
        "xsd:dateTime: real dates in 1980–2100 with zones up to ±14:00 parse; the rest do not",
        arguments: [
            ("2026-06-14T07:00:00Z", true), ("2026-06-14T07:00:00.123+14:00", true), ("2024-02-29T00:00:00", true),
            ("1980-01-01T00:00:00Z", true), ("2100-12-31T23:59:59Z", true), ("2026-06-14T07:00:00-99:99", false),
            ("2026-06-14T07:00:00+14:01", false), ("2026-06-14T07:00:00+02:60", false),
            ("2261-02-31T00:00:00Z", false), ("2023-02-29T00:00:00Z", false), ("2026-04-31T00:00:00Z", false),
            ("1979-12-31T23:59:59Z", false), ("2101-01-01T00:00:00Z", false), ("2262-04-12T00:00:00Z", false),
            ("9999-12-31T23:59:59Z", false), ("2100-12-31T23:00:00-05:00", false), ("2026-13-01T00:00:00Z", false),
            ("2026-06-14T24:00:00Z", false),
        ])
    func xmlDates(_ text: String, _ valid: Bool) {
        #expect((WallInstant(iso8601: text) != nil) == valid)
    }

    @Test("Offsets move the instant: +01:15 is 75 minutes before the same clock time in UTC")
    func xmlDateOffsets() throws {
        let utc = try #require(WallInstant(iso8601: "2021-01-07T21:51:59Z"))
        let east = try #require(WallInstant(iso8601: "2021-01-07T21:51:59+01:15"))
        #expect(utc.nanosecondsSinceEpoch - east.nanosecondsSinceEpoch == 75 * 60 * nanosecondsPerSecond)
    }
}
