import Foundation
import HandoffModel
import TestSupport
import Training

/// Straps with known beats: a heart whose rate follows a ramp, with breathing's swing (respiratory
/// sinus arrhythmia) and a smooth wander in its intervals; with `tiring`, the wander gives way to
/// beat-to-beat noise as the rate rises (so α1 falls from about 1.2 through 0.75, as a runner's
/// does past the aerobic threshold). Sent as a BLE strap sends them (a batch a second, in 1/1024 s),
/// with artifacts injected where a test says.
struct SimulatedStrap {
    var seed: UInt64 = 1
    var minutes = 20.0
    var fromBPM = 110.0
    var toBPM = 180.0
    var tiring = true

    /// The true intervals (ms), one per beat.
    func beats() -> [Double] {
        var random = SeededRandom(seed: seed)
        var x = 0.0
        var y = 0.0
        var t = 0.0
        var out: [Double] = []
        while t < minutes * 60 {
            let progress = t / (minutes * 60)
            let base = 60_000 / (fromBPM + (toBPM - fromBPM) * progress)
            x = 0.9 * x + Self.gaussian(&random)
            y = 0.9 * y + x
            let smooth = tiring ? max(0, 1 - 1.3 * progress) : 1
            let breathing = 0.01 * sin(2 * .pi * t / 4) * (tiring ? 1 - progress : 1)
            let noise = (1 - smooth) * 0.006 * Self.gaussian(&random)
            let rr = base * (1 + breathing + smooth * 0.001 * y + noise)
            out.append(rr)
            t += rr / 1000
        }
        return out
    }

    /// What the strap sends: batches a second apart, `dropped` batches never arriving.
    static func batches(_ beats: [Double], dropped: Set<Int> = []) -> [RRIntervalBatch] {
        var batches: [RRIntervalBatch] = []
        var pending: [UInt16] = []
        var clock = 0.0
        var nextSend = 1.0
        var slot = 0
        for rr in beats {
            clock += rr / 1000
            while clock > nextSend {
                if !pending.isEmpty {
                    if !dropped.contains(slot) {
                        batches.append(
                            RRIntervalBatch(
                                sensor: "hr0", offsetNanoseconds: Int64(nextSend * 1e9), intervals1024ths: pending))
                    }
                    slot += 1
                }
                pending = []
                nextSend += 1
            }
            pending.append(UInt16((rr * 1.024).rounded()))
        }
        return batches
    }

    static func gaussian(_ random: inout SeededRandom) -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &random)
        let v = Double.random(in: 0..<1, using: &random)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}

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

    static var python: URL? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let url = URL(fileURLWithPath: String(dir)).appendingPathComponent("python3")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

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

    static func analyse(_ cases: [Case]) throws -> [Answer] {
        struct Request: Encodable { var series: [Case] }
        struct Reply: Decodable { var series: [Answer] }
        let body = String(decoding: try JSONEncoder().encode(Request(series: cases)), as: UTF8.self)
        return try JSONDecoder().decode(Reply.self, from: Data(run(["analyse"], stdin: body).utf8)).series
    }

    static func fitIntervals(_ file: URL) throws -> [Double] {
        struct Reply: Decodable { var rr: [Double] }
        return try JSONDecoder().decode(Reply.self, from: Data(run(["fit", file.path]).utf8)).rr
    }

    static func run(_ arguments: [String], stdin: String? = nil) throws -> String {
        guard let python else { throw Failed(description: "python3 is not on PATH") }
        let result = try runProcess(python, [script.path] + arguments, stdin: stdin, timeout: 600)
        guard result.status == 0 else {
            throw Failed(
                description:
                    "the oracle failed (\(result.status)): \(result.stderr) — scripts/setup --test installs neurokit2")
        }
        return result.stdout
    }
}
