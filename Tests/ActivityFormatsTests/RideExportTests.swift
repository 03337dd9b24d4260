import ActivityFormats
import Foundation
import HandoffModel
import TestSupport
import Testing

/// A ride recorded by the pack from its bike's CSC sensor, exported, and decoded by Garmin's FIT
/// SDK, fitdecode, xmllint (the XSDs), gpxpy and ElementTree: the sport, sub-sport, speed,
/// distance and crank cadence must be ours.
@Suite("Exports of a simulated ride decode to the ride: sport, speed, distance and crank cadence")
struct RideExportTests {
    @Test(
        "FIT, GPX and TCX of a ride with a CSC sensor",
        .enabled(if: Fixtures.available && Oracle.runnable, "needs ../shared/fixtures (the XSDs) and the oracles"))
    func ride() throws {
        let ride = Activities.simulated(seed: 7, sport: .bike)
        #expect(ride.sport == .cycling)
        let pedalled = ride.points.compactMap(\.cadenceRPM).filter { $0 > 0 }
        try #require(pedalled.count > 300, "the simulated ride pedals")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var urls: [URL] = []
        for format in [ActivityFormat.fit, .gpx, .tcx] {
            let url = directory.file("ride.\(format.fileExtension)")
            try Data(format.write(ride)).write(to: url)
            urls.append(url)
        }
        let decoded = try Oracle.decode(urls)
        try #require(decoded.count == 3)
        let (fit, gpx, tcx) = (decoded[0], decoded[1], decoded[2])

        #expect(fit[path: "garmin", "integrity"] as? Bool == true)
        #expect((fit[path: "garmin", "errors"] as? [Any])?.isEmpty == true, "\(fit[path: "garmin", "errors"] ?? "")")
        let session = try #require(fit.list("garmin", "sessions").first)
        #expect(session["sport"] as? String == "cycling")
        #expect(session["sub_sport"] as? String == "road")
        let s = ride.summary.statistics
        #expect(Compare.close(session.double("total_distance"), s.distanceMeters, 0.005))
        #expect(Compare.close(session.double("max_speed"), s.maximumSpeed, 0.0005))
        // A ride's cadence field is the crank's revolutions a minute, not strides.
        let crank = try #require(s.averageCrankCadence)
        #expect(session.double("avg_cadence") == crank.rounded(.down), "\(session["avg_cadence"] ?? "") for \(crank)")
        for lap in fit.list("garmin", "laps") {
            #expect(lap["sport"] as? String == "cycling")
            #expect(lap["sub_sport"] as? String == "road")
        }
        let records = fit.list("garmin", "records")
        #expect(records.count == ride.points.count)
        for (p, r) in zip(ride.points, records) {
            #expect((r["cadence"] as? NSNumber)?.intValue == p.cadenceRPM)
            #expect(Compare.close((r["speed_mps"] as? NSNumber)?.doubleValue, p.speedMetersPerSecond, 0.0005))
            #expect(Compare.close((r["distance_m"] as? NSNumber)?.doubleValue, p.distanceMeters, 0.005))
        }
        #expect(fit[path: "fitdecode", "ok"] as? Bool == true, "\(fit[path: "fitdecode", "error"] ?? "")")

        // GPX: valid against the schema; gpxpy reads the track's type and the crank's cadence.
        #expect(gpx[path: "xmllint", "valid"] as? Bool == true, "\(gpx[path: "xmllint", "errors"] ?? "")")
        #expect((gpx[path: "gpxpy", "track_types"] as? [String]) == ["cycling"])
        let gpxPoints = ((gpx[path: "gpxpy", "tracks"] as? [[[[String: Any]]]])?.first ?? []).flatMap { $0 }
        let positioned = ride.points.filter { $0.latitude != nil }
        #expect(gpxPoints.count == positioned.count)
        for (p, q) in zip(positioned, gpxPoints) { #expect((q["cad"] as? NSNumber)?.intValue == p.cadenceRPM) }

        // TCX: Biking, with each point's and lap's crank cadence in TCX's own <Cadence>.
        #expect(tcx[path: "xmllint", "valid"] as? Bool == true, "\(tcx[path: "xmllint", "errors"] ?? "")")
        #expect(tcx[path: "tcx", "sport"] as? String == "Biking")
        let laps = tcx.list("tcx", "laps")
        #expect(laps.count == ride.laps.count)
        for (lap, l) in zip(ride.laps, laps) {
            #expect(l.double("cadence") == lap.statistics.averageCrankCadence?.rounded())
            #expect(l["avg_run_cadence"] == nil || l["avg_run_cadence"] is NSNull)
        }
        let tcxPoints = laps.flatMap { ($0["points"] as? [[String: Any]]) ?? [] }
        for (p, q) in zip(ride.points, tcxPoints) { #expect((q["cadence"] as? NSNumber)?.intValue == p.cadenceRPM) }
    }

    @Test(
        "Our own readers take a ride back as a ride, with its crank cadence",
        arguments: [ActivityFormat.fit, .gpx, .tcx])
    func roundTrip(format: ActivityFormat) throws {
        let ride = Activities.simulated(seed: 7, sport: .bike)
        let back = try format.read(format.write(ride))
        #expect(back.sport == .cycling)
        #expect(back.points.allSatisfy { $0.cadenceSPM == nil })
        let written = ride.points.filter { $0.latitude != nil || format != .gpx }.map(\.cadenceRPM)
        #expect(back.points.map(\.cadenceRPM) == written)
        if format == .fit {
            let crank = try #require(back.summary.statistics.averageCrankCadence)
            #expect(abs(crank - (ride.summary.statistics.averageCrankCadence ?? 0)) < 1 / 128 + 1e-9)
            #expect(back.summary.steps == nil, "a ride's cycles are not steps")
        }
    }
}
