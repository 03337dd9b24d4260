import Foundation
import Testing
import Training

/// Banister's TRIMP and the fitness/fatigue curves against their closed forms.
@Suite("Training load")
struct TrainingLoadTests {
    @Test("TRIMP: an hour at half the heart-rate reserve is 60 × 0.5 × 0.64·e^0.96; women's weighting; edges")
    func trimp() {
        let hour = TrainingLoad.trimp(minutes: 60, averageHeartRate: 125, resting: 60, maximum: 190)
        #expect(abs(hour - 60 * 0.5 * 0.64 * exp(0.96)) < 1e-9)
        let women = TrainingLoad.trimp(minutes: 60, averageHeartRate: 125, resting: 60, maximum: 190, female: true)
        #expect(abs(women - 60 * 0.5 * 0.86 * exp(0.835)) < 1e-9)
        // Above the maximum counts as the maximum; below resting as nothing; nonsense as nothing.
        #expect(
            TrainingLoad.trimp(minutes: 10, averageHeartRate: 250, resting: 60, maximum: 190) == 10 * 0.64 * exp(1.92))
        #expect(TrainingLoad.trimp(minutes: 10, averageHeartRate: 40, resting: 60, maximum: 190) == 0)
        #expect(TrainingLoad.trimp(minutes: .nan, averageHeartRate: 140, resting: 60, maximum: 190) == 0)
        #expect(TrainingLoad.trimp(minutes: 10, averageHeartRate: 140, resting: 190, maximum: 60) == 0)
        #expect(
            TrainingLoad.estimatedTRIMP(minutes: 30, walking: true)
                < TrainingLoad.estimatedTRIMP(minutes: 30, walking: false))
    }

    @Test("a constant daily load: fitness reaches 1 − e^(−t/42) of it, fatigue 1 − e^(−t/7), form starts at 0")
    func curves() {
        let points = TrainingLoad.curves(Array(repeating: 100, count: 200))
        #expect(points[0].form == 0)
        for t in [1, 7, 42, 150] {
            #expect(abs(points[t - 1].fitness - 100 * (1 - exp(-Double(t) / 42))) < 1e-9, "day \(t)")
            #expect(abs(points[t - 1].fatigue - 100 * (1 - exp(-Double(t) / 7))) < 1e-9, "day \(t)")
        }
        // Fatigue rises faster, so form dips below zero, then comes back as fitness catches up.
        #expect(points[10].form < -30 && points[199].form > -1 && points[199].form < 0)
        // A single hard day, then rest: fatigue falls by e^(−1/7) a day.
        let rest = TrainingLoad.curves([300] + Array(repeating: 0, count: 14))
        #expect(abs(rest[8].fatigue / rest[7].fatigue - exp(-1.0 / 7)) < 1e-12)
    }
}
