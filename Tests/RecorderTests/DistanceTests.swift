import HandoffModel
import Recorder
import SensorCodecs
import TestSupport
import Testing

@Suite("Recorder: distance from GPS and footpod")
struct DistanceTests {
    @Test("GPS distance integrates Doppler speed; standing still adds nothing")
    func gpsSpeedIntegration() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        for s in 0...100 { h.gps(north: Double(s) * 3, speed: 3, at: Double(s) + 0.1) }
        // Standing still for a minute, with the receiver's noisy small speeds.
        for s in 101...160 { h.gps(north: 300, speed: [0.05, 0.12, 0.2][s % 3], at: Double(s) + 0.1) }
        try h.command(.stop, at: 161)
        let summary = try #require(h.summary)
        // 0.1–100.1 s at 3 m/s, then half a second's worth slowing into the first still fix.
        #expect(abs(summary.statistics.distanceMeters - 301.5) < 0.01)
        #expect(summary.statistics.movingSeconds == 101)
    }

    @Test("The footpod bridges a GPS outage without counting any second twice")
    func outageHandover() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        var total: UInt32 = 0
        for s in 0..<120 {
            let t = Double(s)
            // The footpod reads 5 % long; the GPS is exact. Outage from 40 s to 70 s.
            h.footpod(speed: 3.15, total: total, at: t + 0.45)
            total += 32  // 3.2 m per second on the footpod's odometer (its own rounding)
            if s < 40 || s >= 70 {
                h.gps(north: t * 3, speed: 3, at: t + 0.1)
            } else {
                h.gps(north: 0, speed: nil, fix: false, at: t + 0.1)
            }
        }
        try h.command(.stop, at: 119.5)
        let distance = try #require(h.summary).statistics.distanceMeters
        // Each second the footpod's reading (t + 0.45) is given before the GPS's (stamped t + 0.1);
        // the recorder never goes back in time, so it takes both at t + 0.45. Then:
        // - 0.45–1.45: the footpod, 3.2 m (the GPS has one fix, not yet two that join up);
        // - 1.45–39.45: the GPS, 38 s at 3 m/s = 114 m;
        // - 39.45–40.45: nobody (the footpod's reading at 40.45 comes while the GPS is still
        //   locked; the no-fix taken after it ends the GPS's increments);
        // - 40.45–71.45: the footpod, 31 readings of 3.2 m = 99.2 m (the fix back at 70.45 is
        //   alone until 71.45);
        // - 70.45–71.45 from the GPS: already counted by the footpod, adds nothing;
        // - 71.45–119.45: the GPS, 48 s at 3 m/s = 144 m.
        // 360.4 m. Counting the two GPS increments that overlap the footpod's (0.45–1.45 and
        // 70.45–71.45) a second time would give 366.4 m; the tolerance is rounding alone.
        let footpod: Double = 3.2 + 31 * 3.2
        let gps: Double = (38 + 48) * 3
        let expected = footpod + gps
        #expect(abs(distance - expected) < 1e-6, "distance \(distance), expected \(expected)")
    }

    @Test("Without GPS the footpod's odometer gives the distance, through its wrap at 2^32")
    func footpodOdometerWrap() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        var total = UInt32.max - 50
        for s in 0..<20 {
            h.footpod(speed: 3, total: total, at: Double(s) + 0.5)
            total &+= 30
        }
        try h.command(.stop, at: 20)
        #expect(abs(try #require(h.summary).statistics.distanceMeters - 19 * 3) < 1e-9)
    }

    @Test("Paused time counts no distance, even from an increment that spans the pause")
    func pauseCountsNothing() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        for s in 0...10 { h.gps(north: Double(s) * 3, speed: 3, at: Double(s) + 0.5) }
        try h.command(.pause, at: 11)
        for s in 11...20 { h.gps(north: Double(s) * 3, speed: 3, at: Double(s) + 0.5) }
        try h.command(.resume, at: 20.75)
        for s in 21...30 { h.gps(north: Double(s) * 3, speed: 3, at: Double(s) + 0.5) }
        try h.command(.stop, at: 30.5)
        // 0.5–11 (10.5 s) and 20.75–30.5 (9.75 s) at 3 m/s.
        let distance = try #require(h.summary).statistics.distanceMeters
        #expect(abs(distance - (10.5 + 9.75) * 3) < 1e-4, "distance \(distance)")
    }

    @Test("Without speeds, jitter inside the radius is ignored and real movement counted")
    func positionJitterFilter() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        var random = SeededRandom(seed: 42)
        // 60 s standing with ±1.5 m of noise, then 100 s north at 3 m/s with the same noise.
        for s in 0..<60 {
            h.gga(
                north: Double.random(in: -1.5...1.5, using: &random),
                east: Double.random(in: -1.5...1.5, using: &random), at: Double(s) + 0.2)
        }
        for s in 0..<100 {
            h.gga(
                north: Double(s) * 3 + Double.random(in: -1.5...1.5, using: &random),
                east: Double.random(in: -1.5...1.5, using: &random), at: Double(60 + s) + 0.2)
        }
        try h.command(.stop, at: 160)
        let distance = try #require(h.summary).statistics.distanceMeters
        #expect(distance > 285 && distance < 310, "distance \(distance) for a true 297 m")
    }

    @Test("Auto-lap closes a lap at every kilometre; splits interpolate the crossing")
    func autoLapAndSplits() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        // 4 m/s for 620 s: 2480 m.
        for s in 0...620 { h.gps(north: Double(s) * 4, speed: 4, at: Double(s)) }
        try h.command(.stop, at: 620)
        let laps = h.laps
        #expect(laps.map(\.trigger) == [.distance, .distance, .sessionEnd])
        // A point holds what arrived before its second: the fix at 250 s is in the point at 251 s.
        #expect(laps.map(\.endElapsedSeconds) == [251, 501, 620])
        let summary = try #require(h.summary)
        #expect(summary.splits.count == 3)
        #expect(abs(summary.splits[0].seconds - 251) < 1e-6)
        #expect(abs(summary.splits[1].seconds - 250) < 1e-6)
        #expect(abs(summary.splits[2].distanceMeters - 480) < 1e-4)
        #expect(abs(summary.statistics.averagePaceSecondsPerKilometer! - 250) < 1e-6)
    }

    @Test("Auto-lap closes at each kilometre mark even when no point lands on one: laps do not drift by the overshoot")
    func autoLapOnTheMarks() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        // 3.7 m/s: no point lands on a kilometre, each crossing overshoots by up to 3.7 m.
        for s in 0...1000 { h.gps(north: Double(s) * 3.7, speed: 3.7, at: Double(s)) }
        try h.command(.stop, at: 1000)
        let closed = h.laps.filter { $0.trigger == .distance }
        #expect(closed.count == 3)
        // Each lap ends at the first point at or past its kilometre mark, wherever the lap
        // before it ended.
        for (k, lap) in closed.enumerated() {
            let mark = Double(k + 1) * 1000
            let first = try #require(h.points.first { $0.distanceMeters >= mark })
            #expect(lap.endElapsedSeconds == first.elapsedSeconds, "lap \(k + 1) ends past \(mark) m")
        }
    }
}
