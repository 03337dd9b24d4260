import Foundation
import HandoffModel

/// Straps with known beats: a heart whose rate follows a ramp, with breathing's swing (respiratory
/// sinus arrhythmia) and a smooth wander in its intervals; with `tiring`, the wander gives way to
/// beat-to-beat noise as the rate rises (so α1 falls from about 1.2 through 0.75, as a runner's
/// does past the aerobic threshold). Sent as a BLE strap sends them (a batch a second, in 1/1024 s),
/// with artifacts injected where a test says.
public struct SimulatedStrap: Sendable {
    public var seed: UInt64 = 1
    public var minutes = 20.0
    public var fromBPM = 110.0
    public var toBPM = 180.0
    public var tiring = true

    public init(seed: UInt64 = 1, minutes: Double = 20, fromBPM: Double = 110, toBPM: Double = 180, tiring: Bool = true)
    {
        self.seed = seed
        self.minutes = minutes
        self.fromBPM = fromBPM
        self.toBPM = toBPM
        self.tiring = tiring
    }

    /// The true intervals (ms), one per beat.
    public func beats() -> [Double] {
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
    public static func batches(_ beats: [Double], dropped: Set<Int> = []) -> [RRIntervalBatch] {
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

    public static func gaussian(_ random: inout SeededRandom) -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &random)
        let v = Double.random(in: 0..<1, using: &random)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
