import Foundation
import SensorCodecs

/// The Oxford step-counter recordings in the shared fixtures.
public enum StepDetectorFixture {
    /// The recording's samples (`t_ns, accuracy, x, y, z`, nanoseconds since boot) as seconds
    /// from the first, and its truth: 0→1 transitions of foot1 plus foot2.
    public static func load(_ name: String) throws -> (samples: AccelerometerCSV, truth: Int) {
        let (csv, truth) = try csvText(name)
        return (try AccelerometerCSV(text: csv), truth)
    }

    /// The recording as `handoff steps` reads it (`t_s,x,y,z`), and its truth.
    public static func csvText(_ name: String) throws -> (csv: String, truth: Int) {
        var csv = "t_s,x,y,z\n"
        var t0: Int64?
        for line in try Fixtures.text("steps/optimisation/\(name)/accelerometer.csv").split(whereSeparator: \.isNewline)
        {
            let f = line.split(separator: ",")
            guard f.count == 5, let ns = Int64(f[0].trimmingCharacters(in: .whitespaces)) else { continue }
            let start = t0 ?? ns
            t0 = start
            csv += "\(Double(ns - start) / 1e9),\(f[2]),\(f[3]),\(f[4])\n"
        }
        var truth = 0
        var previous: (Int, Int)?
        for line in try Fixtures.text("steps/optimisation/\(name)/stepcounter.csv").split(whereSeparator: \.isNewline) {
            let f = line.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard f.count == 3, let a = f[1], let b = f[2] else { continue }
            if let (pa, pb) = previous {
                if pa == 0 && a == 1 { truth += 1 }
                if pb == 0 && b == 1 { truth += 1 }
            }
            previous = (a, b)
        }
        return (csv, truth)
    }

}
