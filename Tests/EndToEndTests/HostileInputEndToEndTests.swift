import ActivityFormats
import Foundation
import GRDB
import HandoffModel
import PackControl
import SensorCodecs
import TestSupport
import Testing

/// The attacks on the pack from issue 27, sent to a real handoffd: it must answer each with an
/// error and keep running (before the fixes, each one ended the process).
@Suite(
    "handoffd survives hostile GPS sentences and crafted activity files (real time: a running handoffd)", .serialized)
struct HostileInputEndToEndTests {
    @Test("A ZDA dated 2262 and a gpsd TPV dated 2262 in the middle of a run: handoffd records on")
    func gpsDatePast2262() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var lines = try String(contentsOfFile: demoCapturePath, encoding: .utf8).split(separator: "\n").map(String.init)
        // Next to a real sentence in the middle of the run, with its times.
        let index = try #require(lines.indices.first { $0 > lines.count / 2 && lines[$0].contains(#""kind":"nmea""#) })
        let event = try CaptureCodec.decodeEvent(Array(lines[index].utf8))
        let zda = NMEASentence.frame("GPZDA,201530.00,04,07,2262,00,00")
        let tpv = #"{"class":"TPV","mode":3,"time":"2262-07-04T20:15:30.000Z","lat":46.5,"lon":7.5}"#
        for (kind, text) in [(PayloadKind.nmea, zda), (.gpsd, tpv)] {
            let hostile = CaptureEvent(
                monotonic: event.monotonic, wall: event.wall, body: .payload(sensor: "gps0", kind: kind, .text(text)))
            lines.insert(CaptureCodec.encode(hostile), at: index + 1)
        }
        let path = dir.path + "/zda-2262.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let daemon = try Daemon(in: dir, arguments: ["--replay", path, "--speed", "max", "--exit-after-replay"])
        // Waits without holding one of the test pool's threads (other suites run beside this one).
        let deadline = ContinuousClock.now + .seconds(120)
        while daemon.process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationReason == .exit && daemon.process.terminationStatus == 0, "\(daemon.log)")
        let row = try daemon.openDatabase().read { db in
            try Row.fetchOne(db, sql: "SELECT distance_m, start_wall_ns FROM session ORDER BY id DESC LIMIT 1")
        }
        let session = try #require(row)
        #expect((session["distance_m"] as Double? ?? 0) > 5000, "the whole run is recorded")
        let start: Int64 = session["start_wall_ns"]
        #expect(start < 4_102_444_800_000_000_000, "no time from the year 2262 reached the run")
    }

    @Test("handoff decode nmea reads past a ZDA dated 2262 and counts it as rejected")
    func decodeNMEA2262() throws {
        let input =
            [
                NMEASentence.frame("GPZDA,201530.00,04,07,2262,00,00"),
                NMEASentence.frame("GPRMC,201530.00,A,4630.0000,N,00730.0000,E,0.1,0.0,040726,,,A"),
            ].joined(separator: "\n") + "\n"
        let result = try handoff(["decode", "nmea"], stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("rejected 1") && result.stderr.contains("date"), "\(result.stderr)")
        #expect(result.stdout.hasPrefix("2026-07-04T20:15:30.000Z"))
    }

    @Test("handoff import of crafted GPX, TCX and FIT files: each refused with its reason, handoffd alive")
    func importCrafted() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let daemon = try Daemon(in: dir, arguments: [])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        let socket = ["--socket", daemon.socket]
        let stats = { (body: String) in
            #"<extensions><x:TrackStatsExtension xmlns:x="http://www8.garmin.com/xmlschemas/TrackStatsExtension/v1">\#(body)</x:TrackStatsExtension></extensions>"#
        }
        let gpx = { (extensions: String, times: [String]) in
            """
            <?xml version="1.0"?><gpx version="1.1" creator="crafted" xmlns="http://www.topografix.com/GPX/1/1">
            <trk>\(extensions)<trkseg>\(times.map { #"<trkpt lat="46.5" lon="7.5"><time>\#($0)</time></trkpt>"# }.joined())</trkseg></trk></gpx>
            """
        }
        let times = ["2026-06-14T07:00:00Z", "2026-06-14T07:00:01Z"]
        let tcx = """
            <?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
            <Activities><Activity Sport="Running"><Id>2026-06-14T07:00:00Z</Id><Lap StartTime="2026-06-14T07:00:00Z">
            <TotalTimeSeconds>1e300</TotalTimeSeconds><DistanceMeters>100</DistanceMeters>
            <Track><Trackpoint><Time>2026-06-14T07:00:00Z</Time></Trackpoint></Track></Lap></Activity></Activities>
            </TrainingCenterDatabase>
            """
        let files = [
            ("timer.gpx", gpx(stats("<x:TimerTime>1e300</x:TimerTime>"), times), "timer time"),
            ("moving.gpx", gpx(stats("<x:MovingTime>1e300</x:MovingTime>"), times), "MovingTime"),
            ("centuries.gpx", gpx("", ["1980-01-01T00:00:00Z", "2100-06-01T00:00:00Z"]), "longer than the 31 days"),
            ("timer.tcx", tcx, "timer time"),
        ]
        for (name, text, reason) in files {
            let path = dir.file(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let result = try handoff(["import", path] + socket)
            #expect(result.status == 1, "\(name): \(result.stdout)")
            #expect(result.stderr.contains(reason), "\(name): \(result.stderr)")
        }
        // A FIT file of 1-byte empty records after one real one (memory amplification).
        var records: [UInt8] = [0x40, 0, 0, 0, 0, 1, 0, 1, 0x00, 0x00, 4]
        records += [0x41, 0, 0, 20, 0, 1, 253, 4, 0x86, 0x01, 0x00, 0x6E, 0x91, 0x41]
        records += [0x42, 0, 0, 20, 0, 0] + (0..<200_000).map { UInt8(0x80 | 2 << 5 | UInt8($0 % 32)) }
        try Data(FIT.container(records: records)).write(to: dir.file("empty-records.fit"))
        let fit = try handoff(["import", dir.file("empty-records.fit").path] + socket)
        #expect(fit.status == 1 && fit.stderr.contains("carry no field at all"), "\(fit.stderr)")
        // Still alive, with nothing imported.
        let runs = try handoff(["runs", "--json"] + socket)
        #expect(runs.status == 0, "\(runs.stderr)")
        #expect(daemon.process.isRunning)
    }
}
