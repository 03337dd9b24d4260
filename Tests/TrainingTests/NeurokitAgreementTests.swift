import ActivityFormats
import Foundation
import HandoffModel
import SensorCodecs
import TestSupport
import Testing
import Training

/// Acceptance of issue 34: on the shared fixtures' RR recordings and on simulated straps with
/// known RR (with injected ectopic, missed and extra beats and dropouts), RMSSD and SDNN match
/// neurokit2 within 2 % and DFA-α1 within 0.05 on the same corrected series.
@Suite("HRV agrees with neurokit2 (an independent implementation, PyPI)", .enabled(if: HRVOracle.runnable))
struct NeurokitAgreementTests {
    struct Subject {
        var name: String
        var raw: BeatSeries
    }

    static func ectopicPlaces(_ count: Int) -> [Int] { Array(stride(from: 150, to: count - 10, by: 400)) }

    /// The FIT file from Garmin's HRM plugin tests (its hrv messages); the 120 s Zephyr HxM
    /// stream (the beats its frames announce); simulated straps.
    static func subjects() throws -> [Subject] {
        let fit = try FITReader.read(Array(Fixtures.data("files/fit/HrmPluginTestActivity.fit")))
        var hxm: [Double] = []
        var previous: HxMGeneralData?
        var framer = ZephyrFramer()
        try framer.append(Array(Fixtures.data("rfcomm/zephyr-hxm/120-second-bt-stream-hxm.dat"))) { frame in
            let packet = try HxMGeneralData(frame: frame)
            hxm += packet.newRRIntervalsMilliseconds(since: previous).map(Double.init)
            previous = packet
        }
        var ectopic = SimulatedStrap(seed: 21, minutes: 15).beats()
        for i in Self.ectopicPlaces(ectopic.count) { Injected.ectopic(&ectopic, at: i) }
        Injected.missed(&ectopic, at: 777)
        Injected.extra(&ectopic, at: 1333)
        let dropped = SimulatedStrap(seed: 22, minutes: 15).beats()
        return [
            Subject(name: "fixture HrmPluginTestActivity.fit", raw: BeatSeries(batches: fit.rrIntervals)),
            Subject(name: "fixture Zephyr HxM 120 s", raw: BeatSeries(intervals: hxm)),
            Subject(
                name: "strap at rest",
                raw: BeatSeries(
                    intervals: SimulatedStrap(seed: 23, minutes: 10, fromBPM: 58, toBPM: 64, tiring: false).beats())),
            Subject(name: "strap with ectopic, missed and extra beats", raw: BeatSeries(intervals: ectopic)),
            Subject(
                name: "strap that dropped out twice",
                raw: BeatSeries(batches: SimulatedStrap.batches(dropped, dropped: Set(200..<215).union(500..<504)))),
        ]
    }

    @Test("the FIT fixture's RR intervals are the ones fitdecode reads")
    func fitIntervals() async throws {
        let url = try Fixtures.url("files/fit/HrmPluginTestActivity.fit")
        let ours = try FITReader.read(Array(Data(contentsOf: url))).rrIntervals.flatMap(\.intervals1024ths)
        let theirs = try await HRVOracle.fitIntervals(url)
        #expect(ours.count == theirs.count)
        for (a, b) in zip(ours, theirs) { #expect(abs(Double(a) * 1000 / 1024 - b) <= 0.5, "\(a)/1024 s vs \(b) ms") }
    }

    @Test("RMSSD and SDNN within 2 %, α1 of the series and of every window within 0.05")
    func agreement() async throws {
        let subjects = try Self.subjects()
        var cases: [HRVOracle.Case] = []
        var ours: [(rmssd: Double, sdnn: Double, alpha1: Double?, windows: [Double], corrected: Int)] = []
        for subject in subjects {
            #expect(subject.raw.count >= 100, "\(subject.name): \(subject.raw.count) beats")
            let fixed = HeartRateVariability.corrected(subject.raw)
            let series = fixed.series
            let ranges = HeartRateVariability.windowRanges(series, corrected: fixed.indices)
            cases.append(
                HRVOracle.Case(
                    name: subject.name, raw: subject.raw.intervals, corrected: series.intervals,
                    corrected_times: series.times, windows: ranges.map { [$0.range.lowerBound, $0.range.upperBound] }))
            ours.append(
                (
                    try #require(HeartRateVariability.rmssd(series)),
                    try #require(HeartRateVariability.sdnn(series.intervals)),
                    DFA.alpha1(series.intervals), ranges.map { DFA.alpha1(Array(series.intervals[$0.range]))! },
                    fixed.artifacts
                ))
        }
        let answers = try await HRVOracle.analyse(cases)
        #expect(answers.count == subjects.count)
        for (answer, mine) in zip(answers, ours) {
            let name = answer.name
            #expect(
                abs(mine.rmssd - answer.rmssd) / answer.rmssd < 0.02, "\(name): RMSSD \(mine.rmssd) vs \(answer.rmssd)")
            #expect(abs(mine.sdnn - answer.sdnn) / answer.sdnn < 0.02, "\(name): SDNN \(mine.sdnn) vs \(answer.sdnn)")
            let alpha = try #require(mine.alpha1, "\(name)")
            #expect(abs(alpha - answer.alpha1) < 0.05, "\(name): α1 \(alpha) vs \(answer.alpha1)")
            #expect(mine.windows.count == answer.windows.count)
            let worst = zip(mine.windows, answer.windows).map { abs($0 - $1) }.max() ?? 0
            #expect(worst < 0.05, "\(name): the worst window differs by \(worst)")
            print(
                "\(name): RMSSD \(mine.rmssd) / \(answer.rmssd), SDNN \(mine.sdnn) / \(answer.sdnn), α1 \(alpha) / \(answer.alpha1), \(mine.windows.count) windows (worst \(worst)), corrected \(mine.corrected)"
            )
        }
        // Long simulated series have windows to compare; the 2-minute fixtures may have none.
        #expect(ours[2].windows.count > 50 && ours[3].windows.count > 50 && ours[4].windows.count > 50)
        // The injected artifacts are found (the ectopic beats, one missed, one extra).
        let injected = Self.ectopicPlaces(SimulatedStrap(seed: 21, minutes: 15).beats().count).count + 2
        #expect(ours[3].corrected >= injected)
    }

    @Test("the first pass of artifact detection flags the same beats, of the same kinds, as neurokit2's")
    func sameArtifacts() async throws {
        let subjects = try Self.subjects().filter { $0.raw.segmentStarts.count == 1 }
        // The FIT fixture's 5000 ms fillers (not beats) and the dropouts split those two.
        #expect(subjects.count == 3)
        let answers = try await HRVOracle.analyse(
            subjects.map {
                HRVOracle.Case(
                    name: $0.name, raw: $0.raw.intervals, corrected: $0.raw.intervals, corrected_times: $0.raw.times,
                    windows: [])
            })
        let names: [ArtifactCorrection.Kind: String] = [
            .ectopic: "ectopic", .missed: "missed", .extra: "extra", .longShort: "longshort",
        ]
        var flagged = 0
        for (subject, answer) in zip(subjects, answers) {
            let ours = ArtifactCorrection.detect(subject.raw.intervals)
            for (kind, name) in names {
                let mine = ours.filter { $0.value == kind }.keys.sorted()
                #expect(mine == answer.first_pass[name] ?? [], "\(subject.name), \(name)")
                flagged += mine.count
            }
        }
        #expect(flagged > 10)  // the fixtures and the injected series have artifacts to agree on
    }
}
