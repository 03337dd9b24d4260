/// Seconds at each heart rate in a run, and the five zones they fall in (issue 34, time in zones
/// per week).
///
/// The histogram is kept per run at upload, to the beat per minute, so that the zones can move with
/// the maximum heart rate a person sets later: a zone is a share of the maximum, the first
/// 50–60 %, …, the fifth 90 % and over (as the run page draws them); below 50 % is no zone.
public struct HeartRateHistogram: Hashable, Sendable {
    /// Seconds at each whole beat per minute.
    public private(set) var seconds: [Int: Double] = [:]

    /// The longest a sample counts for: a gap longer than this (a strap's dropout, a pause, a
    /// watch's sparse recording) counts only this much.
    public static let longestSample = 5.0

    public init() {}

    /// The heart rates kept: a strap's reading outside them is not a heart rate.
    public static let plausible = 20...250
    /// The most seconds one heart rate may hold when read back (a year).
    static let mostSeconds = 366.0 * 86_400

    /// From samples of (elapsed seconds, heart rate), in time order: each counts until the next
    /// sample, at most `longestSample`; the last counts one second.
    public init(samples: [(elapsed: Double, bpm: Int)]) {
        for (i, sample) in samples.enumerated() where Self.plausible.contains(sample.bpm) {
            let next = i + 1 < samples.count ? samples[i + 1].elapsed : sample.elapsed + 1
            let span = min(max(0, next - sample.elapsed), Self.longestSample)
            if span > 0 { seconds[sample.bpm, default: 0] += span }
        }
    }

    /// "bpm:seconds" pairs in ascending beats, as the store keeps them.
    public var encoded: String {
        seconds.keys.sorted().map { "\($0):\(Self.text(seconds[$0]!))" }.joined(separator: ",")
    }

    /// Reads `encoded`; a pair it cannot read is left out.
    public init(encoded: String) {
        for pair in encoded.split(separator: ",") {
            let parts = pair.split(separator: ":")
            guard parts.count == 2, let bpm = Int(parts[0]), Self.plausible.contains(bpm),
                let value = Double(parts[1]), value > 0, value <= Self.mostSeconds
            else { continue }
            seconds[bpm] = min(Self.mostSeconds, seconds[bpm, default: 0] + value)
        }
    }

    /// Seconds in zones 1–5 for a maximum heart rate of `maximum`: zone k from (40 + 10k) % of it,
    /// up to the next zone's start; zone 5 has no top.
    public func zoneSeconds(maximum: Int) -> [Double] {
        var zones = [Double](repeating: 0, count: 5)
        let maximum = max(1, maximum)
        for (bpm, value) in seconds {
            // In whole numbers, exact at each edge: 10·bpm / maximum is 5 at 50 %, 9 at 90 %.
            let tenths = 10 * bpm / maximum
            guard tenths >= 5 else { continue }
            zones[min(5, tenths - 4) - 1] += value
        }
        return zones
    }

    private static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
