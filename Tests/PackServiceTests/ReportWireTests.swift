import Foundation
import HandoffModel
import PackControl
import Testing

/// The reports group their fields into parts; on the socket each stays the one flat object
/// docs/control-api.md shows, with absent values left out. Each document here is decoded and
/// written again: the same keys and values come back.
@Suite("Reports: the documented flat JSON, both ways")
struct ReportWireTests {
    /// Decodes `json` as `Report`, encodes it as `ControlJSON` does, and returns both objects.
    static func roundTrip<Report: Codable & Equatable>(
        _ type: Report.Type, _ json: String
    ) throws -> (sent: NSDictionary, written: NSDictionary, report: Report) {
        let report = try ControlJSON.decode(Report.self, from: json)
        let data = try ControlJSON.encoder().encode(report)
        #expect(try JSONDecoder().decode(Report.self, from: data) == report)
        let sent = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary)
        let written = try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
        return (sent, written, report)
    }

    static func keys(_ object: NSDictionary) -> Set<String> { Set(object.allKeys.compactMap { $0 as? String }) }

    static func keys(_ text: String) -> Set<String> { Set(text.split(separator: " ").map(String.init)) }

    @Test func runWithEveryField() throws {
        let json = #"""
            {"id":12,"uuid":"0f6c2a","state":"finished","source":"live","start_time":"2025-05-01T06:30:00Z",
            "recovered":false,"queued_for_upload":true,"clock":"gps","sport":"bike","distance_m":5012.5,"elapsed_s":1830.5,
            "timer_s":1800.5,"moving_s":1790,"points":1801,"steps":5200,"avg_hr_bpm":151.5,"max_hr_bpm":178,
            "avg_cadence_spm":172.5,"avg_cadence_rpm":84.5,"avg_pace_s_per_km":359.5,"avg_moving_pace_s_per_km":357.5,
            "max_speed_mps":4.25,
            "splits":[{"km":1,"distance_m":1000.5,"time_s":355.5,"pace_s_per_km":355.5,"avg_hr_bpm":148.5}],
            "mile_splits":[{"mile":1,"distance_m":1609.3,"time_s":570.5,"pace_s_per_km":354.5}],
            "laps":[{"lap":1,"trigger":"manual","start_elapsed_s":0,"end_elapsed_s":1830,"distance_m":5012.5,
            "timer_s":1800.5,"moving_s":1790,"max_hr_bpm":178}],
            "events":[{"offset_s":0.5,"kind":"start"}],
            "counted_in":["Danube relay"],
            "not_counted":[{"group":"Club 10k","group_id":4,"reason_code":"before_joining","reason":"too early"}]}
            """#
        let (sent, written, run) = try Self.roundTrip(RunReport.self, json)
        #expect(written == sent)
        #expect(
            Self.keys(written)
                == Self.keys(
                    "id uuid state source start_time recovered queued_for_upload clock sport distance_m elapsed_s "
                        + "timer_s moving_s points steps avg_hr_bpm max_hr_bpm avg_cadence_spm avg_cadence_rpm "
                        + "avg_pace_s_per_km "
                        + "avg_moving_pace_s_per_km max_speed_mps splits mile_splits laps events counted_in not_counted"
                ))
        #expect(run.clock == .gps && run.totals.distanceM == 5012.5 && run.rates.maxHrBpm == 178)
        #expect(run.sport == .bike && run.rates.avgCadenceRpm == 84.5)
        #expect(run.detail.countedIn == ["Danube relay"] && run.detail.laps?.count == 1)
    }

    @Test func runWithOptionalsAbsent() throws {
        let json = #"""
            {"id":3,"uuid":"9a1b","state":"recording","source":"replay:run.jsonl",
            "start_time":"2025-05-01T06:30:00Z","recovered":true,"queued_for_upload":false,"sport":"run"}
            """#
        let (sent, written, run) = try Self.roundTrip(RunReport.self, json)
        #expect(written == sent)
        #expect(
            Self.keys(written)
                == Self.keys("id uuid state source start_time recovered queued_for_upload sport"))
        // A report from before sports (a newer CLI talking to an older handoffd) is a run.
        let older = try ControlJSON.decode(
            RunReport.self, from: json.replacingOccurrences(of: #","sport":"run""#, with: ""))
        #expect(older.sport == .run)
        #expect(run.clock == nil && run.totals == RunTotalsReport() && run.detail == RunDetailReport())
    }

    static let sensor = #"""
        {"id":"AA:BB","kind":"heart_rate","name":"Handoff HR","link":"connected","last_seen_s":0.5,"fresh":true,
        "in_gap":false,"battery_percent":80,"decoded":120,"skipped":2,"rejected":1,"last_error":"short payload",
        "values":{"hr_bpm":150,"rr_ms":[400.5],"contact":"detected"}}
        """#

    @Test func sensorWithEveryFieldAndWithout() throws {
        let (sent, written, sensor) = try Self.roundTrip(SensorReport.self, Self.sensor)
        #expect(written == sent)
        #expect(
            Self.keys(written)
                == Self.keys(
                    "id kind name link last_seen_s fresh in_gap battery_percent decoded skipped rejected last_error values"
                ))
        #expect(
            sensor.payloads == SensorPayloadsReport(decoded: 120, skipped: 2, rejected: 1, lastError: "short payload"))
        let bare = #"{"id":"gps0","kind":"gps","fresh":false,"in_gap":true,"decoded":0,"skipped":0,"rejected":0}"#
        let (bareSent, bareWritten, _) = try Self.roundTrip(SensorReport.self, bare)
        #expect(bareWritten == bareSent)
        #expect(Self.keys(bareWritten) == Self.keys("id kind fresh in_gap decoded skipped rejected"))
    }

    static let gps = #"""
        {"fix":"3d","time":"2025-05-01T06:30:00.000Z","lat":48.2,"lon":16.4,"alt_m":180.5,"speed_mps":3.25,
        "track_deg":90.5,"hdop":0.9,"pdop":1.5,"vdop":1.25,"satellites":9,"satellites_seen":14,"eph_m":3.5,
        "epv_m":5.5,"eps_mps":0.25,"sensor":"gps0","source":"gpsd 127.0.0.1:2947","last_fix_s":0.5,
        "clock":"system","start_wait_s":120}
        """#

    static let gpsKeys =
        "fix time lat lon alt_m speed_mps track_deg hdop pdop vdop satellites satellites_seen eph_m epv_m eps_mps "
        + "sensor source last_fix_s clock start_wait_s"

    @Test func gpsWithEveryFieldAndWithout() throws {
        let (sent, written, gps) = try Self.roundTrip(GPSReport.self, Self.gps)
        #expect(written == sent)
        #expect(Self.keys(written) == Self.keys(Self.gpsKeys))
        #expect(gps.fix == .threeD && gps.clock == .system && gps.quality.satellites == 9)
        #expect(gps.position.lat == 48.2 && gps.receiver.sensor == "gps0")
        for fix in ["none", "2d"] {
            let (bareSent, bareWritten, bare) = try Self.roundTrip(GPSReport.self, #"{"fix":"\#(fix)"}"#)
            #expect(bareWritten == bareSent)
            #expect(Self.keys(bareWritten) == ["fix"])
            #expect(bare.fix.rawValue == fix)
        }
    }

    @Test func statusWithEveryField() throws {
        let latency = #"{"samples":50,"p50_ms":12.5,"p95_ms":40.5,"max_ms":80.5}"#
        let json = #"""
            {"state":"recording","run_id":7,"run_uuid":"0f6c2a","start_time":"2025-05-01T06:30:00Z",
            "elapsed_s":600.5,"timer_s":590.5,"distance_m":1700.5,"pace_s_per_km":350,"speed_mps":2.85,
            "hr_bpm":150,"cadence_spm":170,"lap":2,"lap_distance_m":700.5,"points":591,"steps":1700,
            "gps":\#(Self.gps),"sensors":[\#(Self.sensor)],
            "replay":{"file":"run.jsonl","speed":"10x","events":900,"progress":0.5,"finished":false,
            "simulated_distance_m":1710.5,"simulated_avg_hr_bpm":149.5},
            "recovered_runs":[5],"commit_latency":\#(latency),"point_commit_delay":\#(latency),
            "version":"1.4.0","units":"mi"}
            """#
        let (sent, written, status) = try Self.roundTrip(StatusReport.self, json)
        #expect(written == sent)
        #expect(
            Self.keys(written)
                == Self.keys(
                    "state run_id run_uuid start_time elapsed_s timer_s distance_m pace_s_per_km speed_mps hr_bpm "
                        + "cadence_spm lap lap_distance_m points steps gps sensors replay recovered_runs "
                        + "commit_latency point_commit_delay version units"))
        #expect(status.run.id == 7 && status.run.lap == 2 && status.live.hrBpm == 150)
        #expect(status.pack.units == .miles && status.pack.recoveredRuns == [5] && status.gps.fix == .threeD)
    }

    @Test func statusWithOptionalsAbsent() throws {
        let json = #"""
            {"state":"idle","gps":{"fix":"none"},"sensors":[],"recovered_runs":[],"version":"1.4.0"}
            """#
        let (sent, written, status) = try Self.roundTrip(StatusReport.self, json)
        #expect(written == sent)
        #expect(Self.keys(written) == Self.keys("state gps sensors recovered_runs version"))
        #expect(status.run == StatusRunReport() && status.live == LiveValuesReport() && status.pack.units == nil)
    }

    @Test func pairedSensorWithEveryFieldAndWithout() throws {
        let json = #"""
            {"id":"00:07:80:12:34:56","address":"00:07:80:12:34:56","address_type":"bredr","kind":"heart_rate",
            "name":"HXM012345","manufacturer":"Zephyr","model":"HxM","firmware":"1.2","serial_number":"S1",
            "location":"chest","battery_percent":60,"paired":"2025-05-01T06:00:00Z",
            "last_seen":"2025-05-01T06:30:00Z","last_seen_s":1.5,"link":"connected","profile":"zephyr-hxm",
            "rfcomm_channel":1}
            """#
        let (sent, written, sensor) = try Self.roundTrip(PairedSensorReport.self, json)
        #expect(written == sent)
        #expect(
            Self.keys(written)
                == Self.keys(
                    "id address address_type kind name manufacturer model firmware serial_number location "
                        + "battery_percent paired last_seen last_seen_s link profile rfcomm_channel"))
        #expect(sensor.device.manufacturer == "Zephyr" && sensor.device.batteryPercent == 60)
        #expect(sensor.classic == ClassicStrapReport(profile: "zephyr-hxm", rfcommChannel: 1))
        let bare = #"""
            {"id":"AA:BB","address":"AA:BB","address_type":"random","kind":"heart_rate",
            "paired":"2025-05-01T06:00:00Z","link":"connecting"}
            """#
        let (bareSent, bareWritten, bareSensor) = try Self.roundTrip(PairedSensorReport.self, bare)
        #expect(bareWritten == bareSent)
        #expect(Self.keys(bareWritten) == Self.keys("id address address_type kind paired link"))
        #expect(bareSensor.device == SensorDeviceReport() && bareSensor.classic == ClassicStrapReport())
    }
}
