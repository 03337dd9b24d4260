import Foundation
import PropertyBased
import SensorCodecs
import TestSupport
import Testing

/// Step detection against the Oxford step-counter recordings: phones in a hand, a back pocket and
/// a front pocket, with foot-switch ground truth.
@Suite("Step detection", .enabled(if: Fixtures.available, "needs ../shared/fixtures"))
struct StepDetectorTests {
    static let recordings = [
        "Nexus_Jamie_Hard_InHand_1", "Pixel_Jamie_Hard_BackPocket_1", "Samsung_Carmelo_Hard_FrontPocket_1",
    ]

    @Test(
        "Within 5 % of the foot-switch truth at the recording's own rate and at 100, 50 and 25 Hz",
        arguments: recordings)
    func countsWithinFivePercent(recording: String) throws {
        let (samples, truth) = try StepDetectorFixture.load(recording)
        #expect(truth > 200)
        let native = samples.countSteps()
        var report = ["native \(Int(samples.sampleRate!.rounded())) Hz: \(native)"]
        #expect(abs(Double(native - truth)) <= 0.05 * Double(truth), "\(recording) native: \(native) of \(truth)")
        for rate in [100.0, 50, 25] {
            let count = try samples.resampled(to: rate).countSteps()
            report.append("\(Int(rate)) Hz: \(count)")
            #expect(
                abs(Double(count - truth)) <= 0.05 * Double(truth), "\(recording) at \(rate) Hz: \(count) of \(truth)")
        }
        print("\(recording): truth \(truth); " + report.joined(separator: ", "))
    }
}

@Suite("Step detection on generated signals")
struct StepDetectorSignalTests {
    /// A runner's vertical acceleration: gravity plus a bump per step, `spm` steps per minute.
    static func running(spm: Double, seconds: Double, rate: Double, noise: Double = 0.3, seed: UInt64 = 1) -> Int {
        var detector = StepDetector(sampleRate: rate)
        var random = seed
        func next() -> Double {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Double(random >> 11) / Double(1 << 53) - 0.5
        }
        let stepHz = spm / 60
        for i in 0..<Int(seconds * rate) {
            let t = Double(i) / rate
            let phase = (t * stepHz).truncatingRemainder(dividingBy: 1)
            let impact = 12 * exp(-pow((phase - 0.15) / 0.08, 2)) - 3 * sin(2 * .pi * phase)
            detector.add(time: t, x: 0.8 + noise * next(), y: 9.81 + impact + noise * next(), z: 0.5 + noise * next())
        }
        detector.finish()
        return detector.count
    }

    @Test("Running cadences from 140 to 200 steps/min are counted within a step or two at 25, 50 and 100 Hz")
    func runningCadences() {
        for rate in [25.0, 50, 100] {
            for spm in [140.0, 170, 200] {
                let expected = Int(spm / 60 * 60)
                let counted = Self.running(spm: spm, seconds: 60, rate: rate)
                #expect(abs(counted - expected) <= 2, "\(spm) spm at \(rate) Hz: \(counted) of \(expected)")
            }
        }
    }

    @Test("A pack lying still, or buzzing at 15 Hz, counts no steps")
    func stillAndVibration() {
        var still = StepDetector(sampleRate: 50)
        var buzz = StepDetector(sampleRate: 50)
        for i in 0..<3000 {
            let t = Double(i) / 50
            still.add(time: t, x: 0.01 * sin(Double(i)), y: 9.81, z: 0.02)
            buzz.add(time: t, x: 0, y: 9.81 + 2 * sin(2 * .pi * 15 * t), z: 0)
        }
        #expect(still.finish() + still.count == 0)
        #expect(buzz.count == 0)
    }

    @Test("Random samples never trap the detector")
    func fuzz() async {
        await propertyCheck(count: 500, input: Gen.int(in: -1000...1000).array(of: 0...400)) { values in
            var detector = StepDetector(sampleRate: 50)
            var reported = 0
            for (i, v) in values.enumerated() {
                reported += detector.add(
                    time: Double(i / 3) * 0.02, x: Double(v), y: Double(v) / 3, z: v == 0 ? .nan : 9.81)
            }
            reported += detector.finish()
            // What the calls reported is what was counted, and steps are at least 0.25 s apart
            // however wild the samples: no more than one per quarter second of their span.
            let span = Double(max(values.count - 1, 0) / 3) * 0.02
            #expect(reported == detector.count)
            #expect(detector.count <= Int(span / 0.25) + 1, "\(detector.count) steps in \(span) s")
        }
    }
}
