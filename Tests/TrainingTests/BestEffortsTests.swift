import ActivityFormats
import Foundation
import HandoffModel
import TestSupport
import Testing
import Training

/// Issue 34's records: the fastest stretch over each standard distance found anywhere inside a
/// run. Checked against runs with a known fastest stretch, against a naive search over a fine
/// grid, and on the shared fixtures' real FIT files against fitdecode and numpy
/// (scripts/oracles/efforts_oracle.py), each within 1 s.
@Suite("Best efforts")
struct BestEffortsTests {
    /// A run at 5:00/km for `kilometres`, its `fast`-th kilometre at 3:30/km, sampled every
    /// `every` seconds.
    static func run(kilometres: Int, fast: Int, every: Int = 1) -> [(seconds: Double, meters: Double)] {
        var marks: [(Double, Double)] = [(0, 0)]
        for km in 0..<kilometres { marks.append((marks.last!.0 + (km == fast ? 210 : 300), Double(km + 1) * 1000)) }
        var samples: [(seconds: Double, meters: Double)] = []
        var k = 0
        for t in stride(from: 0, through: marks.last!.0, by: Double(every)) {
            while k + 1 < marks.count - 1 && marks[k + 1].0 <= t { k += 1 }
            let (t0, d0) = marks[k]
            let (t1, d1) = marks[k + 1]
            samples.append((t, d0 + (d1 - d0) * (t - t0) / (t1 - t0)))
        }
        return samples
    }

    /// Sampled every second, or sparsely (each kilometre's ends on a sample): between samples the
    /// search interpolates, and finds the same times.
    @Test(
        "a run with one fast kilometre: its 1 km, mile, 5 km and 10 km are what the pacing says", arguments: [1, 5, 30])
    func knownFastest(every: Int) {
        let efforts = BestEfforts.find(Self.run(kilometres: 12, fast: 6, every: every))
        let byDistance = Dictionary(uniqueKeysWithValues: efforts.map { ($0.meters, $0) })
        #expect(abs(byDistance[1000]!.seconds - 210) < 1e-6, "\(byDistance[1000]!)")
        #expect(abs(byDistance[1000]!.start - 6 * 300) < 1e-6)
        // The mile: the fast kilometre and 609.344 m at 5:00/km.
        #expect(abs(byDistance[1609.344]!.seconds - (210 + 609.344 * 0.3)) < 1e-6)
        #expect(abs(byDistance[5000]!.seconds - (210 + 4 * 300)) < 1e-6)
        #expect(abs(byDistance[10_000]!.seconds - (210 + 9 * 300)) < 1e-6)
        // 12 km cover no half marathon.
        #expect(byDistance[21_097.5] == nil && efforts.count == 4)
    }

    /// The naive search's grid puts a start and an end up to 0.05 s from the exact ones, so it is
    /// never faster than the exact answer and at most a few grid steps slower.
    @Test("on random runs, the result is a naive search over a 0.05 s grid's, or faster by under 0.25 s")
    func naive() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<8 {
            var samples: [(seconds: Double, meters: Double)] = [(0, 0)]
            for _ in 0..<400 {
                let dt = Double.random(in: 0.5...4, using: &generator)
                // Now and then standing still, now and then a sprint.
                let speed = [0, 2.5, 3, 3.5, 6][Int.random(in: 0..<5, using: &generator)]
                samples.append((samples.last!.seconds + dt, samples.last!.meters + speed * dt))
            }
            let found = BestEfforts.find(samples, distances: [400, 1000, 1609.344])
            for effort in found {
                let expected = Self.naive(samples, effort.meters)
                #expect(expected - effort.seconds < 0.25, "round \(round): \(effort) vs \(expected)")
                #expect(effort.seconds <= expected + 1e-9, "round \(round): \(effort) is slower than \(expected)")
            }
        }
    }

    /// Every start and end on a 0.05 s grid, distance interpolated linearly between samples.
    static func naive(_ samples: [(seconds: Double, meters: Double)], _ target: Double) -> Double {
        let step = 0.05
        var j = 0
        let grid = stride(from: samples[0].seconds, through: samples.last!.seconds, by: step).map { t -> Double in
            while samples[j].seconds < t { j += 1 }
            guard j > 0 else { return samples[0].meters }
            let (a, b) = (samples[j - 1], samples[j])
            return a.meters + (b.meters - a.meters) * (t - a.seconds) / (b.seconds - a.seconds)
        }
        var best = Double.infinity
        var end = 0
        for start in grid.indices {
            while end < grid.count && grid[end] - grid[start] < target - 1e-9 { end += 1 }
            if end == grid.count { break }
            best = min(best, Double(end - start) * step)
        }
        return best
    }

    @Test("bad samples: time going back, NaN, a distance that falls back; too short a run has none")
    func hostile() {
        let samples: [(seconds: Double, meters: Double)] = [
            (0, 0), (100, 500), (50, 9_000), (.nan, 3), (200, .infinity), (200, 1000), (300, 800), (400, 1500),
        ]
        let found = BestEfforts.find(samples, distances: [1000, 5000])
        #expect(found.count == 1 && abs(found[0].seconds - 200) < 1e-9, "\(found)")
        #expect(BestEfforts.find([(0, 0)]).isEmpty && BestEfforts.find([]).isEmpty)
        #expect(BestEfforts.find([(0, 0), (10, 999)], distances: [1000]).isEmpty)
    }

    @Test(
        "the shared fixtures' FIT files: our reader and search agree with fitdecode and numpy within 1 s",
        .enabled(if: HRVOracle.runnable))
    func fixtures() async throws {
        let names = ["activity-small-fenix2-run.fit", "HrmPluginTestActivity.fit", "Activity.fit"]
        let urls = try names.map { try Fixtures.url("files/fit/\($0)") }
        struct Line: Decodable {
            var file: String
            var efforts: [String: Double]
        }
        guard let python = programOnPath("python3") else { throw HRVOracle.Failed(description: "no python3") }
        let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/oracles/efforts_oracle.py")
        let result = try await runProcessAsync(python, [script.path] + urls.map(\.path), timeout: 300)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.stdout.split(separator: "\n").map {
            try JSONDecoder().decode(Line.self, from: Data($0.utf8))
        }
        #expect(lines.count == urls.count)
        var compared = 0
        for (url, line) in zip(urls, lines) {
            let activity = try FITReader.read(Array(try Data(contentsOf: url)))
            let ours = BestEfforts.find(activity.points.map { (Double($0.elapsedSeconds), $0.distanceMeters) })
            #expect(ours.count == line.efforts.count, "\(url.lastPathComponent): \(ours) vs \(line.efforts)")
            for effort in ours {
                let key = effort.meters == effort.meters.rounded() ? String(Int(effort.meters)) : String(effort.meters)
                let theirs = try #require(line.efforts[key], "\(url.lastPathComponent) \(key)")
                #expect(
                    abs(effort.seconds - theirs) <= 1, "\(url.lastPathComponent) \(key): \(effort.seconds) vs \(theirs)"
                )
                compared += 1
            }
        }
        // The Fenix 2 run (9 km) gives 1 km, the mile and 5 km.
        #expect(compared == 3)
    }
}
