import ActivityFormats
import Foundation
import HandoffModel
import TestSupport
import Testing

/// Our exports, checked by the tools runners use: Garmin's FIT SDK (integrity and decode),
/// fitdecode with CRC checking, xmllint against the official GPX and TCX schemas with Garmin's
/// extensions checked strictly, and gpxpy. What they decode must equal the run we wrote.
@Suite("Exports of the demo run pass the independent validators and decode to our run")
struct ExportValidationTests {
    @Test(
        "FIT, GPX and TCX of the recorded demo run",
        .enabled(if: Fixtures.available && Oracle.runnable, "needs ../shared/fixtures (the XSDs) and the oracles"))
    func demoRun() throws {
        let run = Activities.simulated(seed: 0)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var urls: [URL] = []
        for format in [ActivityFormat.fit, .gpx, .tcx] {
            let url = directory.file("demo.\(format.fileExtension)")
            try Data(format.write(run)).write(to: url)
            urls.append(url)
        }
        let decoded = try Oracle.decode(urls)
        try #require(decoded.count == 3)
        let start = Double(run.start.nanosecondsSinceEpoch) / 1e9
        let fit = decoded[0]
        let gpx = decoded[1]
        let tcx = decoded[2]

        // Garmin's SDK.
        #expect(fit[path: "garmin", "is_fit"] as? Bool == true)
        #expect(fit[path: "garmin", "integrity"] as? Bool == true)
        #expect((fit[path: "garmin", "errors"] as? [Any])?.isEmpty == true, "\(fit[path: "garmin", "errors"] ?? "")")
        let records = fit.list("garmin", "records")
        #expect(records.count == run.points.count)
        for (p, r) in zip(run.points, records) {
            #expect((r["timestamp"] as? NSNumber)?.doubleValue == start.rounded(.down) + Double(p.elapsedSeconds))
            #expect((r["heart_rate"] as? NSNumber)?.intValue == p.heartRateBPM)
            #expect(Compare.close((r["distance_m"] as? NSNumber)?.doubleValue, p.distanceMeters, 0.005))
            #expect(Compare.close((r["speed_mps"] as? NSNumber)?.doubleValue, p.speedMetersPerSecond, 0.0005))
            #expect(Compare.close((r["lat_deg"] as? NSNumber)?.doubleValue, p.latitude, 1e-7))
        }
        // Each lap's and the session's totals as the SDK decodes them (its scale and offset
        // applied), against our run's, to half of the field's resolution: distance in cm, times
        // in ms, speeds in mm/s; heart rates and cadence are whole numbers.
        let startSecond = start.rounded(.down)
        func checkTotals(_ m: [String: Any], _ s: RunStatistics, _ what: String) {
            #expect(Compare.close(m.double("total_distance"), s.distanceMeters, 0.005), "\(what) distance")
            #expect(Compare.close(m.double("total_timer_time"), s.timerSeconds, 0.0005), "\(what) timer")
            #expect(m.double("total_moving_time") == Double(s.movingSeconds), "\(what) moving")
            let averageSpeed = s.timerSeconds > 0 ? s.distanceMeters / s.timerSeconds : nil
            #expect(Compare.close(m.double("avg_speed"), averageSpeed, 0.0005), "\(what) average speed")
            #expect(Compare.close(m.double("max_speed"), s.maximumSpeed, 0.0005), "\(what) maximum speed")
            #expect(m.double("avg_heart_rate") == s.averageHeartRate?.rounded(), "\(what) average heart rate")
            #expect(m.double("max_heart_rate") == s.maximumHeartRate.map(Double.init), "\(what) maximum heart rate")
            #expect(m.double("avg_cadence") == s.averageCadence.map { ($0 / 2).rounded(.down) }, "\(what) cadence")
        }
        let fitLaps = fit.list("garmin", "laps")
        #expect(fitLaps.count == run.laps.count && run.laps.count > 1)
        for (lap, l) in zip(run.laps, fitLaps) {
            let what = "lap \(lap.index)"
            #expect(l.double("start_time") == startSecond + Double(lap.startElapsedSeconds), "\(what) start")
            #expect(l.double("timestamp") == startSecond + Double(lap.endElapsedSeconds), "\(what) end")
            #expect(l.double("total_elapsed_time") == Double(lap.endElapsedSeconds - lap.startElapsedSeconds))
            let trigger = ["manual": LapTrigger.manual, "distance": .distance, "session_end": .sessionEnd]
            #expect((l["lap_trigger"] as? String).flatMap { trigger[$0] } == lap.trigger, "\(what) trigger")
            checkTotals(l, lap.statistics, what)
        }
        let session = try #require(fit.list("garmin", "sessions").first)
        #expect(session.double("start_time") == startSecond)
        #expect((session["num_laps"] as? NSNumber)?.intValue == run.laps.count)
        #expect(Compare.close(session.double("total_elapsed_time"), run.summary.elapsedSeconds, 0.0005))
        checkTotals(session, run.summary.statistics, "session")
        let hrv = (fit[path: "garmin", "hrv"] as? [NSNumber])?.map(\.doubleValue) ?? []
        let rr = run.rrIntervals.flatMap(\.intervals1024ths)
        #expect(hrv.count == rr.count && !rr.isEmpty)
        #expect(zip(hrv, rr).allSatisfy { abs($0 - Double($1) / 1024) <= 0.0005 + 1e-9 })
        #expect(fit[path: "fitdecode", "ok"] as? Bool == true, "\(fit[path: "fitdecode", "error"] ?? "")")
        #expect(fit.list("fitdecode", "records").count == run.points.count)

        // GPX: the schema, then gpxpy.
        #expect(gpx[path: "xmllint", "valid"] as? Bool == true, "\(gpx[path: "xmllint", "errors"] ?? "")")
        #expect(gpx[path: "gpxpy", "ok"] as? Bool == true)
        let segments = (gpx[path: "gpxpy", "tracks"] as? [[[[String: Any]]]])?.first ?? []
        #expect(segments.count == run.pauses.count + 1, "one segment per pause-separated part")
        let positioned = run.points.filter { $0.latitude != nil }
        let gpxPoints = segments.flatMap { $0 }
        #expect(gpxPoints.count == positioned.count)
        for (p, q) in zip(positioned, gpxPoints) {
            #expect(Compare.close((q["time"] as? NSNumber)?.doubleValue, start + Double(p.elapsedSeconds), 0.001))
            #expect((q["hr"] as? NSNumber)?.intValue == p.heartRateBPM)
            #expect(Compare.close((q["lat"] as? NSNumber)?.doubleValue, p.latitude, 1e-8))
        }

        // TCX: the schema, then laps and points.
        #expect(tcx[path: "xmllint", "valid"] as? Bool == true, "\(tcx[path: "xmllint", "errors"] ?? "")")
        let laps = tcx.list("tcx", "laps")
        #expect(laps.count == run.laps.count)
        for (lap, l) in zip(run.laps, laps) {
            #expect(Compare.close(l.double("distance_m"), lap.statistics.distanceMeters, 0.0005))
            #expect(Compare.close(l.double("total_time_s"), lap.statistics.timerSeconds, 0.0005))
            #expect(l.double("avg_hr") == lap.statistics.averageHeartRate.map { $0.rounded() })
            #expect(l.double("max_hr") == lap.statistics.maximumHeartRate.map(Double.init))
            // Garmin's ActivityExtension counts a run's cadence in strides (one foot) per minute:
            // half the steps per minute the pack records, to the nearest whole stride.
            let cadence = try #require(lap.statistics.averageCadence, "the demo run has a footpod")
            #expect(l.double("avg_run_cadence") == (cadence / 2).rounded())
            let speed = lap.statistics.distanceMeters / lap.statistics.timerSeconds
            #expect(Compare.close(l.double("avg_speed"), speed, 0.0005))
        }
        let tcxPoints = laps.flatMap { ($0["points"] as? [[String: Any]]) ?? [] }
        #expect(tcxPoints.count == run.points.count)
        for (p, q) in zip(run.points, tcxPoints) {
            #expect((q["hr"] as? NSNumber)?.intValue == p.heartRateBPM)
            #expect(Compare.close((q["distance_m"] as? NSNumber)?.doubleValue, p.distanceMeters, 0.005))
        }
    }
}
