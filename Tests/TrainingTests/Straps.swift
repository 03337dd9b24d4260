import Foundation
import HandoffModel
import TestSupport
import Training

/// Artifacts put into a true series at known places.
enum Injected {
    /// A premature beat: the interval shortened by `share`, the next one lengthened as much.
    static func ectopic(_ beats: inout [Double], at i: Int, share: Double = 0.3) {
        let shift = beats[i] * share
        beats[i] -= shift
        beats[i + 1] += shift
    }

    /// The strap missed a beat: two intervals reported as one.
    static func missed(_ beats: inout [Double], at i: Int) {
        beats[i] += beats[i + 1]
        beats.remove(at: i + 1)
    }

    /// The strap saw a beat that was not there: one interval reported as two.
    static func extra(_ beats: inout [Double], at i: Int, split: Double = 0.35) {
        let whole = beats[i]
        beats[i] = whole * split
        beats.insert(whole * (1 - split), at: i + 1)
    }
}

/// neurokit2 on the same series (scripts/oracles/hrv_oracle.py). `scripts/setup --test` installs
/// it; where CI requires system programs a missing one fails the test instead of skipping it.
enum HRVOracle {
    static let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/oracles/hrv_oracle.py")

    static var python: URL? { programOnPath("python3") }

    static var runnable: Bool {
        guard let python else { return SystemPrograms.required }
        let r = try? runProcess(python, ["-c", "import neurokit2, fitdecode"])
        return r?.status == 0 || SystemPrograms.required
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    struct Answer: Decodable {
        var name: String
        var rmssd: Double
        var sdnn: Double
        var alpha1: Double
        var windows: [Double]
        var first_pass: [String: [Int]]
    }

    struct Case: Encodable {
        var name: String
        var raw: [Double]
        var corrected: [Double]
        var corrected_times: [Double]
        var windows: [[Int]]
    }

    static func analyse(_ cases: [Case]) async throws -> [Answer] {
        struct Request: Encodable { var series: [Case] }
        struct Reply: Decodable { var series: [Answer] }
        let body = String(decoding: try JSONEncoder().encode(Request(series: cases)), as: UTF8.self)
        return try JSONDecoder().decode(Reply.self, from: Data(await run(["analyse"], stdin: body).utf8)).series
    }

    static func fitIntervals(_ file: URL) async throws -> [Double] {
        struct Reply: Decodable { var rr: [Double] }
        return try JSONDecoder().decode(Reply.self, from: Data(await run(["fit", file.path]).utf8)).rr
    }

    static func run(_ arguments: [String], stdin: String? = nil) async throws -> String {
        guard let python else { throw Failed(description: "python3 is not on PATH") }
        let result = try await runProcessAsync(python, [script.path] + arguments, stdin: stdin, timeout: 600)
        guard result.status == 0 else {
            throw Failed(
                description:
                    "the oracle failed (\(result.status)): \(result.stderr) — scripts/setup --test installs neurokit2")
        }
        return result.stdout
    }
}
