import Testing
import Training

@Suite("Seconds at each heart rate, and the five zones")
struct HeartRateZonesTests {
    @Test("each sample counts until the next, at most 5 s; the last counts 1 s; implausible rates none")
    func histogram() {
        let h = HeartRateHistogram(samples: [(0, 120), (1, 120), (2, 121), (30, 121), (31, 300), (32, 10), (33, 140)])
        #expect(h.seconds == [120: 2, 121: 1 + 5, 140: 1])
        #expect(HeartRateHistogram(encoded: h.encoded) == h)
        #expect(h.encoded == "120:2,121:6,140:1")
        // What cannot be a heart rate or a time is left out: no value read back can overflow.
        let read = HeartRateHistogram(
            encoded: "120:2,x:3,130:-1,140:nan,150:1.5,9223372036854775807:5,160:1e300,170:inf,10:4")
        #expect(read.seconds == [120: 2, 150: 1.5])
        #expect(read.zoneSeconds(maximum: 1) == [0, 0, 0, 0, 3.5])
    }

    @Test("zones by share of the maximum: each edge in the zone above, under 50 % in none, over 100 % in zone 5")
    func zones() {
        // Maximum 200: zone 1 from 100, 2 from 120, 3 from 140, 4 from 160, 5 from 180.
        var samples: [(elapsed: Double, bpm: Int)] = []
        for (i, bpm) in [99, 100, 119, 120, 139, 140, 159, 160, 179, 180, 210].enumerated() {
            samples.append((Double(i * 10), bpm))
        }
        let zones = HeartRateHistogram(samples: samples).zoneSeconds(maximum: 200)
        #expect(zones == [10, 10, 10, 10, 5 + 1], "\(zones)")
        // The same seconds by another maximum move between zones.
        #expect(HeartRateHistogram(samples: [(0, 150), (1, 150)]).zoneSeconds(maximum: 170) == [0, 0, 0, 2, 0])
    }
}
