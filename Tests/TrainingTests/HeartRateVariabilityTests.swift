import ActivityFormats
import Foundation
import HandoffModel
import SensorCodecs
import TestSupport
import Testing
import Training

/// Lipponen & Tarvainen's detector has a small false-positive rate of its own on clean series
/// (neurokit2's flags the same beats: NeurokitAgreementTests compares them beat for beat), so
/// these tests ask that every injected artifact is found and named, and that little else is.
@Suite("RR artifacts: Lipponen & Tarvainen (2019) finds and corrects what was injected")
struct ArtifactCorrectionTests {
    static let smooth = SimulatedStrap(seed: 3, minutes: 8, fromBPM: 120, toBPM: 150, tiring: false)

    @Test("an ectopic beat, a missed beat and an extra beat in a clean series are each found, named and put right")
    func knownArtifacts() {
        let truth = Self.smooth.beats()
        var beats = truth
        Injected.ectopic(&beats, at: 100)
        Injected.missed(&beats, at: 200)  // from here the series is one beat shorter than the truth
        Injected.extra(&beats, at: 299)  // and from here as long again
        let found = ArtifactCorrection.detect(beats)
        // A premature beat is a short interval then a long one: the paper's rules flag the short one
        // as long/short and the long one as ectopic (neurokit2's too), and correct it either way.
        #expect(found[100] != nil && found[101] == .ectopic, "\(found.sorted { $0.key < $1.key })")
        #expect(found[200] == .missed, "\(found.sorted { $0.key < $1.key })")
        #expect(found[299] == .extra, "\(found.sorted { $0.key < $1.key })")
        let result = ArtifactCorrection.correct(beats)
        #expect(result.corrected <= 3 + beats.count / 200, "\(result.counts)")
        #expect(result.intervals.count == truth.count)
        // Corrections keep time, and put each beat back within a few percent of where it was.
        #expect(abs(result.intervals.reduce(0, +) - truth.reduce(0, +)) < 1)
        for i in [99, 100, 101, 200, 201, 299, 300] {
            #expect(
                abs(result.intervals[i] - truth[i]) / truth[i] < 0.05,
                "beat \(i): \(result.intervals[i]) vs \(truth[i])")
        }
    }

    @Test("a clean series loses under 0.5 % of its beats to correction, at rest and running hard")
    func cleanSeries() {
        for strap in [SimulatedStrap(seed: 5, minutes: 10, fromBPM: 55, toBPM: 70, tiring: false), Self.smooth] {
            let beats = strap.beats()
            let result = ArtifactCorrection.correct(beats)
            #expect(Double(result.corrected) / Double(beats.count) < 0.005, "\(result.counts) of \(beats.count)")
        }
    }

    @Test(
        "on 20 random series with 1 to 8 injected ectopic beats each, every one is found and put right, and little else is touched"
    )
    func randomEctopics() {
        var random = SeededRandom(seed: 2026)
        for round in 0..<20 {
            var strap = Self.smooth
            strap.seed = UInt64(100 + round)
            var beats = strap.beats()
            let count = Int.random(in: 1...8, using: &random)
            var places = Set<Int>()
            while places.count < count {
                let i = Int.random(in: 20..<(beats.count - 20), using: &random)
                if !places.contains(where: { abs($0 - i) < 10 }) { places.insert(i) }
            }
            for i in places { Injected.ectopic(&beats, at: i, share: Double.random(in: 0.25...0.4, using: &random)) }
            let found = ArtifactCorrection.detect(beats)
            for i in places {
                #expect(
                    found[i] != nil && found[i + 1] == .ectopic,
                    "round \(round): beats \(i), \(i + 1) are \(String(describing: found[i])), \(String(describing: found[i + 1]))"
                )
            }
            #expect(found.count <= 2 * count + beats.count / 200, "round \(round): \(found.count) found for \(count)")
            let result = ArtifactCorrection.correct(beats)
            let truth = strap.beats()
            // Each injected error (25–40 %) is reduced, and on average to under 5 %.
            let errors = places.map { abs(result.intervals[$0] - truth[$0]) / truth[$0] }
            #expect(
                errors.allSatisfy { $0 < 0.2 } && errors.reduce(0, +) / Double(errors.count) < 0.05,
                "round \(round): \(errors)")
        }
    }
}

@Suite("DFA-α1 and the run's HRV")
struct HeartRateVariabilityTests {
    @Test("α1 of white noise is near 0.5 (DFA over 4–16 beats reads it a little high) and of a random walk near 1.5")
    func dfaTheory() {
        var random = SeededRandom(seed: 9)
        let white = (0..<4000).map { _ in 800 + 20 * SimulatedStrap.gaussian(&random) }
        var walk: [Double] = []
        var level = 0.0
        for _ in 0..<4000 {
            level += SimulatedStrap.gaussian(&random)
            walk.append(800 + level)
        }
        let a = DFA.alpha1(white)!
        let b = DFA.alpha1(walk)!
        #expect(abs(a - 0.5) < 0.12, "white noise: \(a)")
        #expect(abs(b - 1.5) < 0.1, "random walk: \(b)")
        #expect(DFA.alpha1(Array(white.prefix(63))) == nil)
    }

    @Test("a run over 5 % artifacts says so and shows no numbers")
    func untrusted() throws {
        var beats = SimulatedStrap(seed: 4, minutes: 5, tiring: false).beats()
        // A missed beat in every 10. (Much denser artifacts raise the detector's own thresholds,
        // quartiles of the beats around: Lipponen & Tarvainen assume artifacts are sparse.)
        for i in stride(from: beats.count - 10, through: 10, by: -10) { Injected.missed(&beats, at: i) }
        let hrv = try #require(HeartRateVariability(series: BeatSeries(intervals: beats)))
        #expect(hrv.artifactShare > 0.05, "\(hrv.artifactShare)")
        #expect(!hrv.trusted)
        #expect(hrv.rmssd == nil && hrv.sdnn == nil && hrv.alpha1.isEmpty && hrv.aerobicThreshold == nil)
        #expect(HeartRateVariability(series: BeatSeries(intervals: Array(beats.prefix(59)))) == nil)
    }

    @Test("RMSSD is taken only between beats with no gap between them")
    func rmssdInsideSegments() throws {
        // Two minutes at 60 bpm, 30 s with nothing from the strap, two minutes at about 150 bpm;
        // inside each part the intervals alternate 10 ms apart. Across the gap they jump by
        // 600 ms, which is no beat-to-beat change: counted, it would triple RMSSD.
        let slow = SimulatedStrap.batches((0..<120).map { $0 % 2 == 0 ? 1000 : 1010 })
        let fast = SimulatedStrap.batches((0..<300).map { $0 % 2 == 0 ? 400 : 410 }).map {
            var batch = $0
            batch.offsetNanoseconds += 150 * 1_000_000_000
            return batch
        }
        let batches = slow + fast
        let series = BeatSeries(batches: batches)
        #expect(series.segmentStarts.count == 2)
        let hrv = try #require(HeartRateVariability(batches: batches))
        // In 1/1024 s, 1010 and 410 ms are 1034 and 420 units: steps of 9.77 ms inside each part.
        let step = 1034.0 * 1000 / 1024 - 1000
        #expect(hrv.artifactShare == 0)
        #expect(abs((hrv.rmssd ?? 0) - step) < 0.01, "\(String(describing: hrv.rmssd)) vs \(step)")
    }

    @Test(
        "batches stamped behind their beats (a FIT file's hrv messages share a second) go on in time; a lap that ends before it starts has no beats"
    )
    func staleStamps() throws {
        let beats = SimulatedStrap(seed: 12, minutes: 4, tiring: false).beats()
        var batches = SimulatedStrap.batches(beats)
        // Every third batch stamped 3 s early, as if it came with an older record.
        for i in stride(from: 2, to: batches.count, by: 3) { batches[i].offsetNanoseconds -= 3_000_000_000 }
        let series = BeatSeries(batches: batches)
        #expect(series.segmentStarts == [0])
        #expect(zip(series.times, series.times.dropFirst()).allSatisfy { $0 <= $1 })
        // A 5 s value that is no heartbeat takes its time and starts a new segment after it.
        var filled = SimulatedStrap.batches(beats)
        filled[40].intervals1024ths.append(5_120)
        let split = BeatSeries(batches: filled)
        #expect(split.segmentStarts.count == 2)
        let backwards = Lap(
            index: 1, trigger: .manual, startElapsedSeconds: 200, endElapsedSeconds: 100, statistics: RunStatistics())
        let hrv = try #require(HeartRateVariability(batches: batches, laps: [backwards]))
        #expect(hrv.laps.count == 1 && hrv.laps[0].index == 1 && hrv.laps[0].rmssd == nil && hrv.laps[0].sdnn == nil)
    }

    @Test("a premature beat is one beat corrected, and the corrected places follow the series through a second pass")
    func correctedPlaces() {
        var beats = ArtifactCorrectionTests.smooth.beats()
        Injected.ectopic(&beats, at: 100)
        Injected.missed(&beats, at: 200)
        let once = ArtifactCorrection.correct(beats)
        #expect(once.correctedIndices.isSuperset(of: [100, 200]), "\(once.correctedIndices.sorted())")
        #expect(once.corrected == once.correctedIndices.count && once.corrected <= 2 + beats.count / 200)
        // Correcting the corrected series again finds nothing more at those places.
        let twice = ArtifactCorrection.correct(once.intervals)
        #expect(twice.correctedIndices.intersection([100, 101, 200, 201]).isEmpty)
        #expect(ArtifactCorrection.correct([800, .nan, 810, 805, 790]).corrected == 0)
        #expect(BeatSeries(intervals: [800, .nan, 810, .infinity, 100]).intervals == [800, 810])
    }

    @Test(
        "a strap that drops out: the gap splits the series, windows across it are left out, laps get their own numbers")
    func dropout() throws {
        let beats = SimulatedStrap(seed: 8, minutes: 12).beats()
        let batches = SimulatedStrap.batches(beats, dropped: Set(300..<320))
        let series = BeatSeries(batches: batches)
        #expect(series.segmentStarts.count == 2)
        let laps = [
            Lap(
                index: 1, trigger: .manual, startElapsedSeconds: 0, endElapsedSeconds: 360, statistics: RunStatistics()),
            Lap(
                index: 2, trigger: .manual, startElapsedSeconds: 360, endElapsedSeconds: 720,
                statistics: RunStatistics()),
        ]
        let hrv = try #require(HeartRateVariability(batches: batches, laps: laps))
        #expect(hrv.trusted && hrv.artifactShare < 0.05, "\(hrv.artifactShare)")
        // No window ends between the gap's end and two minutes after it, less a tenth.
        let gap = try #require(series.times.indices.dropFirst().first { series.times[$0] - series.times[$0 - 1] > 5 })
        let (gapStart, gapEnd) = (series.times[gap - 1], series.times[gap] - series.intervals[gap] / 1000)
        #expect(gapEnd - gapStart > 15)
        // A window (its two minutes before its time) may lose at most a tenth of its time to the gap.
        for window in hrv.alpha1 {
            let lost = max(0, min(window.time, gapEnd) - max(window.time - 120, gapStart))
            #expect(lost <= 12 + 1, "the window ending at \(window.time) lost \(lost) s")
        }
        #expect(hrv.laps.count == 2 && hrv.laps.allSatisfy { $0.rmssd != nil && $0.sdnn != nil })
        // α1 falls as the heart rate rises (the strap's beats are made so): the aerobic threshold is found.
        let threshold = try #require(hrv.aerobicThreshold)
        #expect((110...180).contains(threshold))
    }
}
