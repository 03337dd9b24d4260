import Foundation
import HandoffAPI
import Training

/// A run's heart-rate variability as the API and the run's page show it (`RunFacts.hrv`).
extension HRVView {
    static let method = "Lipponen & Tarvainen (2019) artifact correction; DFA-α1 over 4–16 beats"

    init(_ hrv: HeartRateVariability) {
        self.init(
            beats: hrv.beats, artifactShare: hrv.artifactShare, trusted: hrv.trusted, rmssdMs: hrv.rmssd,
            sdnnMs: hrv.sdnn, dfaAlpha1: hrv.alpha1.map { [$0.time, $0.alpha1] },
            aerobicThresholdBpm: hrv.aerobicThreshold, anaerobicThresholdBpm: hrv.anaerobicThreshold,
            laps: hrv.laps.map { Lap(lap: $0.index, rmssdMs: $0.rmssd, sdnnMs: $0.sdnn) }, method: Self.method)
    }
}

extension RunPage {
    /// The page's lines on heart-rate variability: RMSSD, SDNN, the share of beats corrected and
    /// the aerobic threshold; over 5 % corrected, only that the numbers are not shown
    /// (`hrvNote` says why).
    static func hrvStats(_ hrv: HeartRateVariability?) -> [Stat] {
        guard let hrv else { return [] }
        guard hrv.trusted else { return [Stat(label: "Heart-rate variability", value: "not shown")] }
        // Trusted but every segment a single beat: nothing to say.
        guard let rmssd = hrv.rmssd, let sdnn = hrv.sdnn else { return [] }
        var stats = [
            Stat(label: "RMSSD", value: String(format: "%.1f ms", rmssd)),
            Stat(label: "SDNN", value: String(format: "%.1f ms", sdnn)),
            Stat(label: "Beats corrected", value: String(format: "%.1f %%", hrv.artifactShare * 100)),
        ]
        if let threshold = hrv.aerobicThreshold {
            stats.append(Stat(label: "Aerobic threshold (α1 0.75)", value: "\(PageFormat.whole(threshold)) bpm"))
        }
        return stats
    }

    /// Why a run's heart-rate variability is not shown, among the page's pauses and gaps.
    static func hrvNote(_ hrv: HeartRateVariability?) -> [String] {
        guard let hrv, !hrv.trusted else { return [] }
        let share = String(format: "%.1f %%", hrv.artifactShare * 100)
        return [
            "Heart-rate variability is not shown: \(share) of the strap's \(hrv.beats) beats needed correcting, "
                + "more than the 5 % its numbers can be trusted with (a loose strap, or a dry one, does this)."
        ]
    }
}

extension RunChart {
    /// DFA-α1 over the run's time, with its 0.75 and 0.5 levels, when the run's beats are trusted.
    static func alpha1(_ facts: RunFacts, axis: Axis) -> RunChart? {
        guard let hrv = facts.hrv, hrv.trusted, !hrv.alpha1.isEmpty else { return nil }
        // Each step takes the window ending nearest its middle, within a step or 10 s.
        let width = facts.elapsed / Double(buckets)
        let reach = max(width, 10)
        var series: Series = Array(repeating: nil, count: buckets)
        var next = 0
        for bucket in 0..<buckets {
            let middle = (Double(bucket) + 0.5) * width
            while next + 1 < hrv.alpha1.count
                && abs(hrv.alpha1[next + 1].time - middle) <= abs(hrv.alpha1[next].time - middle)
            {
                next += 1
            }
            if abs(hrv.alpha1[next].time - middle) <= reach { series[bucket] = hrv.alpha1[next].alpha1 }
        }
        func level(_ value: Double, _ name: String, _ rate: Double?) -> Level {
            Level(value: value, label: "α1 \(value): \(name)" + (rate.map { ", \(PageFormat.whole($0)) bpm" } ?? ""))
        }
        var chart = RunChart(
            id: "dfa-alpha1", title: "Heart-rate variability", series: series, axis: axis,
            format: { String(format: "%.2f", $0) }, unit: "DFA-α1", least: 0.5,
            levels: [
                level(HeartRateVariability.aerobicAlpha1, "aerobic threshold", hrv.aerobicThreshold),
                level(HeartRateVariability.anaerobicAlpha1, "anaerobic threshold", hrv.anaerobicThreshold),
            ])
        var note =
            "Beat-to-beat correlation over 2-minute windows: about 1 at easy effort, 0.75 near the aerobic "
            + "threshold, 0.5 near the anaerobic one."
        if let aerobic = hrv.aerobicThreshold {
            note += " This run crossed 0.75 at \(PageFormat.whole(aerobic)) bpm"
            note += hrv.anaerobicThreshold.map { " and 0.5 at \(PageFormat.whole($0)) bpm." } ?? "."
        }
        chart.note = note
        return chart
    }

    /// A level drawn across the chart as a thin band.
    struct Level {
        var value: Double
        var label: String
    }
}
