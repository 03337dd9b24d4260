import ActivityFormats
import Foundation
import HandoffModel
import TestSupport
import Testing

/// What survives export then import, format by format: each format holds what it can, to its
/// own resolution, and nothing else changes.
enum Compare {
    static func close(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): abs(a - b) <= tolerance * (1 + 1e-9) + 1e-9
        default: false
        }
    }

    /// Problems found, as sentences (empty when the runs agree).
    static func roundTrip(_ original: Activity, _ back: Activity, format: ActivityFormat) -> [String] {
        var problems: [String] = []
        func check(_ ok: Bool, _ what: @autoclosure () -> String) { if !ok { problems.append(what()) } }
        let expected = format == .gpx ? original.points.filter { $0.latitude != nil } : original.points
        check(
            abs(back.start.nanosecondsSinceEpoch - original.start.nanosecondsSinceEpoch) < 1_000_000_000,
            "start \(back.start) != \(original.start)")
        check(back.points.count == expected.count, "\(back.points.count) points, expected \(expected.count)")
        for (a, b) in zip(expected, back.points) where problems.count < 8 {
            let resolution = format == .fit ? 180 / 2_147_483_648.0 : 1e-8
            check(a.elapsedSeconds == b.elapsedSeconds, "point at \(a.elapsedSeconds) came back at \(b.elapsedSeconds)")
            check(
                close(a.latitude, b.latitude, resolution),
                "latitude \(String(describing: a.latitude)) → \(String(describing: b.latitude))")
            check(close(a.longitude, b.longitude, resolution), "longitude at \(a.elapsedSeconds)")
            check(
                close(a.altitudeMeters, b.altitudeMeters, format == .fit ? 0.1 : 0.005),
                "altitude at \(a.elapsedSeconds): \(String(describing: a.altitudeMeters)) → \(String(describing: b.altitudeMeters))"
            )
            check(
                a.heartRateBPM == b.heartRateBPM,
                "heart rate at \(a.elapsedSeconds): \(String(describing: a.heartRateBPM)) → \(String(describing: b.heartRateBPM))"
            )
            // GPX and TCX keep cadence in whole strides per minute: an odd step rate loses one step.
            let cadenceTolerance = format == .fit ? 0.0 : 1.0
            check(
                close(a.cadenceSPM.map(Double.init), b.cadenceSPM.map(Double.init), cadenceTolerance),
                "cadence at \(a.elapsedSeconds): \(String(describing: a.cadenceSPM)) → \(String(describing: b.cadenceSPM))"
            )
            check(close(a.speedMetersPerSecond, b.speedMetersPerSecond, 0.0005), "speed at \(a.elapsedSeconds)")
            check(
                close(a.distanceMeters, b.distanceMeters, 0.005),
                "distance at \(a.elapsedSeconds): \(a.distanceMeters) → \(b.distanceMeters)")
            check((a.latitude == nil) == (b.gpsFix == .none), "fix at \(a.elapsedSeconds)")
            if format == .gpx { check(close(a.hdop, b.hdop, 0.005), "hdop at \(a.elapsedSeconds)") }
        }
        let pauses = original.pauses.count
        let s = original.summary.statistics
        let t = back.summary.statistics
        let distance = format == .gpx ? (expected.last?.distanceMeters ?? 0) : s.distanceMeters
        // TCX's session totals are the sums of its laps' (each written to the millimetre).
        let distanceTolerance = format == .tcx ? 0.0005 * Double(original.laps.count + 1) : 0.005
        check(
            close(t.distanceMeters, distance, distanceTolerance), "distance \(t.distanceMeters), expected \(distance)")
        // GPX and TCX keep pauses as segment or track boundaries between points: each may move by a second.
        let timerTolerance =
            format == .fit
            ? 0.001 : (format == .tcx ? 0.0005 * Double(original.laps.count + 1) : 1.0 * Double(pauses + 1))
        check(
            close(t.timerSeconds, s.timerSeconds, timerTolerance), "timer \(t.timerSeconds), expected \(s.timerSeconds)"
        )
        let lastPoint = Double(expected.last?.elapsedSeconds ?? 0)
        check(
            close(back.summary.elapsedSeconds, format == .fit ? original.summary.elapsedSeconds : lastPoint, 1),
            "elapsed \(back.summary.elapsedSeconds), expected \(original.summary.elapsedSeconds)")
        check(
            t.maximumHeartRate == (format == .gpx ? expected.compactMap(\.heartRateBPM).max() : s.maximumHeartRate),
            "maximum heart rate")
        if format != .gpx {
            check(
                close(t.averageHeartRate, s.averageHeartRate.map { $0.rounded() } ?? nil, 0.5)
                    || close(t.averageHeartRate, s.averageHeartRate, 0.5),
                "average heart rate \(String(describing: t.averageHeartRate)) vs \(String(describing: s.averageHeartRate))"
            )
            let laps = original.laps
            check(back.laps.count == max(1, laps.count), "\(back.laps.count) laps, expected \(laps.count)")
            for (a, b) in zip(laps, back.laps) {
                check(close(a.statistics.distanceMeters, b.statistics.distanceMeters, 0.005), "lap \(a.index) distance")
                check(
                    close(a.statistics.timerSeconds, b.statistics.timerSeconds, 0.0005),
                    "lap \(a.index) timer \(b.statistics.timerSeconds) expected \(a.statistics.timerSeconds)")
                check(
                    a.trigger == b.trigger || (a.trigger == .sessionEnd && format == .tcx),
                    "lap \(a.index) trigger \(b.trigger)")
            }
        }
        if format == .fit {
            let sent = original.rrIntervals.flatMap(\.intervals1024ths)
            let got = back.rrIntervals.flatMap(\.intervals1024ths)
            check(sent.count == got.count, "\(got.count) RR intervals, expected \(sent.count)")
            // FIT keeps RR in milliseconds: back in 1/1024 s, each within one unit.
            check(
                zip(sent, got).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "RR intervals differ by more than 1/1024 s")
            check(
                back.events.map(\.kind)
                    == original.events.filter { [.start, .pause, .resume, .stop].contains($0.kind) }.map(\.kind),
                "events \(back.events.map(\.kind)) vs \(original.events.map(\.kind))")
        } else {
            check(back.pauses.count == pauses, "\(back.pauses.count) pauses, expected \(pauses)")
        }
        return problems
    }
}

@Suite("Export then import gives the same run, in what each format holds")
struct RoundTripTests {
    @Test(
        "Generated runs: empty, one point, pauses, no GPS, no heart rate, a 10-hour ultra",
        arguments: Activities.Shape.allCases)
    func generated(shape: Activities.Shape) throws {
        for seed in (shape == .ultra ? [1] : [1, 2, 3]) as [UInt64] {
            let original = Activities.generated(shape, seed: seed)
            for format in [ActivityFormat.fit, .gpx, .tcx] {
                if format == .gpx, original.points.allSatisfy({ $0.latitude == nil }) {
                    // GPX cannot hold a run without positions: the reader says so.
                    #expect(throws: ActivityFileError.self) { try format.read(format.write(original)) }
                    continue
                }
                let back = try format.read(format.write(original))
                let problems = Compare.roundTrip(original, back, format: format)
                #expect(
                    problems.isEmpty,
                    "\(shape) seed \(seed) via \(format): \(problems.prefix(6).joined(separator: "; "))")
            }
        }
    }

    @Test("Simulated runs through the real recorder", arguments: [0, 4] as [UInt64])
    func simulated(seed: UInt64) throws {
        let original = Activities.simulated(seed: seed)
        #expect(original.points.count > 1000 && !original.rrIntervals.isEmpty)
        for format in [ActivityFormat.fit, .gpx, .tcx] {
            let back = try format.read(format.write(original))
            let problems = Compare.roundTrip(original, back, format: format)
            #expect(problems.isEmpty, "seed \(seed) via \(format): \(problems.prefix(6).joined(separator: "; "))")
        }
    }

    @Test("CSV has one row per point, with the header's columns")
    func csv() {
        let activity = Activities.generated(.pauses, seed: 9)
        let lines = CSVWriter.write(activity).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first.map(String.init) == CSVWriter.header)
        #expect(lines.count == activity.points.count + 2)
        let columns = CSVWriter.header.split(separator: ",").count
        #expect(
            lines.dropFirst().dropLast().allSatisfy {
                $0.split(separator: ",", omittingEmptySubsequences: false).count == columns
            })
        let row = lines[1].split(separator: ",", omittingEmptySubsequences: false)
        #expect(Int(row[1]) == activity.points[0].elapsedSeconds)
        #expect(Int(row[7]) == activity.points[0].heartRateBPM)
    }
}
