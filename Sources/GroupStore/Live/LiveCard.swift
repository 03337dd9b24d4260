import ActivityFormats
import Foundation
import HandoffModel

/// A live run as a page shows it (the group page, `/me/live`, a share link): who is out, how far
/// and how fast, the track drawn so far with a break where updates stopped coming, and "last
/// seen" once they stop.
struct LiveCard: Sendable, Equatable {
    var runner: String
    /// "Out now: 3.42 km in 18:05" or "Last seen 4 min ago, at 3.42 km".
    var headline: String
    var quiet: Bool
    var facts: [Fact]
    var map: LiveMap?
    var noMap: String?
    /// "No updates from 2:05 to 4:20 into the run": each stretch the store heard nothing of.
    var silences: [String]
    /// The page's own address: a link that reloads it (the script swaps the card in place).
    var refresh: String
    /// For the runner, away from their live page: where they share the run. (Named apart from
    /// the pages' own `share`: a nil here would otherwise find theirs.)
    var shareRun: String?

    struct Fact: Sendable, Equatable {
        var label: String
        var value: String
    }

    /// Updates further apart than this (and at least 3 of the run's usual steps) are a gap.
    static let gapSeconds = 60

    init(_ run: LiveRun, _ samples: [LiveSample], sight: LiveSight, units: Units, now: WallInstant, refresh: String) {
        runner = run.runner
        self.refresh = refresh
        shareRun = sight.isRunner && refresh != SitePath.myLive.path ? SitePath.myLive.path : nil
        let shown = sight.samples(samples)
        let last = samples.last
        let distance = units.distance(meters: metres(last?.distanceMM ?? 0))
        let silent = run.silentSeconds(at: now)
        quiet = silent > LiveRun.quietAfterSeconds
        if quiet {
            headline =
                "\(run.runner) was last seen \(PageFormat.duration(silent * 1_000_000_000)) ago, at \(distance)"
        } else {
            headline =
                "\(run.runner) is out now: \(distance) in \(Units.clock(Double(last?.elapsed ?? 0)))"
        }
        facts = []
        if let last, last.elapsed > 0, last.distanceMM > 0 {
            facts.append(
                Fact(
                    label: "Average pace",
                    value: units.pace(seconds: Double(last.elapsed), meters: metres(last.distanceMM))))
        }
        if let speed = last?.speedMMPS, speed > 0 {
            facts.append(Fact(label: "Pace now", value: units.pace(seconds: 1, meters: Double(speed) / 1000)))
        }
        if let heartRate = last?.heartRate { facts.append(Fact(label: "Heart rate", value: "\(heartRate) bpm")) }
        let threshold = Self.gapThreshold(samples)
        silences = zip(samples, samples.dropFirst()).compactMap { before, after in
            guard after.elapsed - before.elapsed > threshold else { return nil }
            return
                "No updates from \(Units.clock(Double(before.elapsed))) to \(Units.clock(Double(after.elapsed))) into the run"
        }
        map = sight.mapShown ? LiveMap(shown, threshold: threshold, withStart: sight.isRunner) : nil
        if map == nil {
            noMap =
                !sight.mapShown
                ? "The route is not shown: \(run.runner) shows their maps to fewer people."
                : "No position yet: the pack sends one once it has a GPS fix (and outside its privacy zones)."
        }
    }

    /// The seconds between updates that make a gap: three of the run's usual steps, at least a minute.
    static func gapThreshold(_ samples: [LiveSample]) -> Int {
        let steps = zip(samples, samples.dropFirst()).map { $1.elapsed - $0.elapsed }.sorted()
        let usual = steps.isEmpty ? 15 : steps[steps.count / 2]
        return max(gapSeconds, 3 * usual)
    }
}

/// A live run's track in SVG, framed as a run's map: a line for each stretch with updates, a
/// dashed line across each gap, the latest position marked (and the start, for the runner).
struct LiveMap: Sendable, Equatable {
    var viewBox: String
    var lines: [String]
    var gaps: [RunMap.Gap]
    var start: RunMap.Spot?
    var now: RunMap.Spot
    var label: String

    init?(_ samples: [LiveSample], threshold: Int, withStart: Bool) {
        var segments: [[(x: Double, y: Double)]] = []
        var previous: Int?
        for sample in samples {
            guard let position = sample.position else { continue }
            let point = WebMercator.project(Position(latitude: position.latitude, longitude: position.longitude))
            if let previous, sample.elapsed - previous <= threshold, !segments.isEmpty {
                segments[segments.count - 1].append(point)
            } else {
                segments.append([point])
            }
            previous = sample.elapsed
        }
        let all = Array(segments.joined())
        guard let first = all.first, let last = all.last,
            let latitude = samples.first(where: { $0.position != nil })?.position?.latitude
        else { return nil }
        let frame = MapFrame(all, latitude: latitude)
        viewBox = frame.viewBox
        lines = segments.map { segment in
            segment.map { point in
                let b = frame.box(point)
                return b.x + "," + b.y
            }.joined(separator: " ")
        }
        gaps = zip(segments, segments.dropFirst()).compactMap { before, after in
            guard let end = before.last, let begin = after.first else { return nil }
            let (a, b) = (frame.box(end), frame.box(begin))
            return RunMap.Gap(x1: a.x, y1: a.y, x2: b.x, y2: b.y)
        }
        let (s, n) = (frame.box(first), frame.box(last))
        start = withStart ? RunMap.Spot(x: s.x, y: s.y) : nil
        now = RunMap.Spot(x: n.x, y: n.y)
        label =
            "The route so far"
            + (segments.count > 1 ? ", in \(segments.count) parts with dashed lines where no update came" : "")
            + (withStart ? ": the start in green, the latest position in blue" : ": the latest position in blue")
    }
}
