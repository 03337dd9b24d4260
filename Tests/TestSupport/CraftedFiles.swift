import ActivityFormats

/// Activity files crafted to break a reader (issue 27), built byte by byte, for the readers'
/// own tests and for the store's: FIT messages, GPX track points with Garmin's track totals, TCX
/// laps. Each crafted file the attack used is in `hostile`.
public enum CraftedFiles {
    /// A FIT definition message for `local`: little-endian, `global` message, fields as
    /// (number, size, base type).
    public static func definition(_ local: UInt8, global: UInt16, _ fields: [(UInt8, UInt8, UInt8)]) -> [UInt8] {
        [0x40 | local, 0, 0, UInt8(global & 0xFF), UInt8(global >> 8), UInt8(fields.count)]
            + fields.flatMap { [$0.0, $0.1, $0.2] }
    }

    /// `v` in `bytes` little-endian bytes.
    public static func le(_ v: UInt64, _ bytes: Int) -> [UInt8] {
        (0..<bytes).map { UInt8(v >> (8 * UInt64($0)) & 0xFF) }
    }

    /// A FIT file: a file_id saying "activity", then `body`.
    public static func fit(_ body: [UInt8]) -> [UInt8] {
        FIT.container(records: definition(0, global: 0, [(0, 1, 0x00)]) + [0x00, 4] + body)
    }

    /// A record definition (local 1): a uint32 timestamp and a uint8 heart rate.
    public static let recordDefinition = definition(1, global: 20, [(253, 4, 0x86), (3, 1, 0x02)])
    /// A record of `recordDefinition`.
    public static func record(_ t: UInt32, hr: UInt8 = 120) -> [UInt8] { [0x01] + le(UInt64(t), 4) + [hr] }
    /// 2024-11-09 in FIT seconds.
    public static let start: UInt32 = 1_100_000_000

    /// A GPX 1.1 file with one track point a time, `extensions` in its track.
    public static func gpx(points: [String], extensions: String = "") -> [UInt8] {
        let trkpts = points.map { #"<trkpt lat="46.5" lon="7.5"><time>\#($0)</time></trkpt>"# }.joined()
        return Array(
            """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="crafted" xmlns="http://www.topografix.com/GPX/1/1">
            <trk>\(extensions)<trkseg>\(trkpts)</trkseg></trk></gpx>
            """.utf8)
    }

    /// Garmin's TrackStatsExtension around `body`, for a GPX track.
    public static func stats(_ body: String) -> String {
        #"<extensions><gpxtrkx:TrackStatsExtension xmlns:gpxtrkx="http://www8.garmin.com/xmlschemas/TrackStatsExtension/v1">\#(body)</gpxtrkx:TrackStatsExtension></extensions>"#
    }

    /// A TCX file with one lap (and one track point) a start time, `extra` inside each lap.
    public static func tcx(laps: [(start: String, extra: String)], trackpoint: String = "") -> [UInt8] {
        let body = laps.map { lap in
            """
            <Lap StartTime="\(lap.start)"><TotalTimeSeconds>60</TotalTimeSeconds><DistanceMeters>100</DistanceMeters>\(lap.extra)
            <Track><Trackpoint><Time>\(lap.start)</Time>\(trackpoint)</Trackpoint></Track></Lap>
            """
        }.joined()
        return Array(
            """
            <?xml version="1.0"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
              xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
            <Activities><Activity Sport="Running"><Id>\(laps[0].start)</Id>\(body)</Activity></Activities>
            </TrainingCenterDatabase>
            """.utf8)
    }

    /// A crafted file, named for test output.
    public struct Hostile: Sendable, CustomStringConvertible {
        public let name: String
        public let bytes: [UInt8]
        public let format: ActivityFormat
        public var description: String { name }
    }

    /// One file of every kind the attack on the store sent (issue 27, findings 1, 2, 10, 13).
    public static var hostile: [Hostile] {
        let two = ["2026-06-14T07:00:00Z", "2026-06-14T07:00:01Z"]
        let t0 = "2026-06-14T07:00:00Z"
        let sint64 = definition(2, global: 20, [(253, 8, 0x8E)])
        let session = definition(3, global: 18, [(253, 4, 0x86), (2, 4, 0x86), (8, 8, 0x8F)])
        let sessionMessage: [UInt8] =
            [0x03] + le(UInt64(start + 60), 4) + le(UInt64(start), 4) + le(UInt64(Int64.max / 2), 8)
        var empties: [UInt8] = recordDefinition + record(start) + definition(2, global: 20, [])
        empties += (0..<100_000).map { (i: Int) -> UInt8 in 0x80 | 2 << 5 | UInt8(i % 32) }
        let whole = fit(recordDefinition + record(start) + record(start + 1))
        var corrupt = fit(recordDefinition + record(start + 2))
        corrupt[8] = UInt8(ascii: "X")
        return [
            Hostile(
                name: "FIT timestamp near 2^63",
                bytes: fit(recordDefinition + record(start) + sint64 + [0x02] + le(UInt64(Int64.max - 7), 8)),
                format: .fit),
            Hostile(
                name: "FIT sessions with huge uint64 timers",
                bytes: fit(recordDefinition + record(start) + session + sessionMessage + sessionMessage), format: .fit),
            Hostile(name: "FIT of 1-byte empty records", bytes: fit(empties), format: .fit),
            Hostile(name: "FIT chained to a corrupt part", bytes: whole + corrupt, format: .fit),
            Hostile(
                name: "GPX TimerTime 1e300",
                bytes: gpx(points: two, extensions: stats("<gpxtrkx:TimerTime>1e300</gpxtrkx:TimerTime>")),
                format: .gpx),
            Hostile(
                name: "GPX MovingTime 1e300",
                bytes: gpx(points: two, extensions: stats("<gpxtrkx:MovingTime>1e300</gpxtrkx:MovingTime>")),
                format: .gpx),
            Hostile(
                name: "GPX points 120 years apart",
                bytes: gpx(points: ["1980-01-01T00:00:00Z", "2100-06-01T00:00:00Z"]),
                format: .gpx),
            Hostile(name: "GPX dated 31 February", bytes: gpx(points: ["2026-02-31T07:00:00Z"]), format: .gpx),
            Hostile(
                name: "TCX MaximumHeartRateBpm 1e300",
                bytes: tcx(laps: [(t0, "<MaximumHeartRateBpm><Value>1e300</Value></MaximumHeartRateBpm>")]),
                format: .tcx),
            Hostile(
                name: "TCX RunCadence 5e18",
                bytes: tcx(
                    laps: [(t0, "")],
                    trackpoint: "<Extensions><ns3:TPX><ns3:RunCadence>5e18</ns3:RunCadence></ns3:TPX></Extensions>"),
                format: .tcx),
            Hostile(
                name: "TCX laps 120 years apart",
                bytes: tcx(laps: [("1980-01-01T00:00:00Z", ""), ("2100-01-01T00:00:00Z", "")]), format: .tcx),
        ]
    }
}
