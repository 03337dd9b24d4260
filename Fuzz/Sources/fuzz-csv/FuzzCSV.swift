import FuzzSupport
import SensorCodecs

/// The accelerometer CSV reader (`handoff steps`) on any text: a typed error or samples, never a
/// trap. What it reads, written back as CSV, reads back the same; the samples then go where
/// `handoff steps` sends them: the sample rate, resampling to 50 Hz and the step detector.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: Fuzz.bytes(data, size), as: UTF8.self)
    guard let samples = try? AccelerometerCSV(text: text) else { return 0 }
    let n = samples.times.count
    Fuzz.require(samples.x.count == n && samples.y.count == n && samples.z.count == n, "columns of unequal length")
    var written = "t_s,x,y,z\n"
    for i in 0..<n { written += "\(samples.times[i]),\(samples.x[i]),\(samples.y[i]),\(samples.z[i])\n" }
    do {
        let again = try AccelerometerCSV(text: written)
        Fuzz.require(
            again.times == samples.times && again.x == samples.x && again.y == samples.y && again.z == samples.z,
            "the samples written back as CSV read back different")
    } catch {
        fatalError("the samples written back as CSV are refused: \(error)")
    }
    // As `handoff steps` does: only rates from 5 to 10,000 Hz are resampled and counted.
    guard let rate = samples.sampleRate, rate >= 5, rate <= 10_000 else { return 0 }
    _ = samples.countSteps()
    _ = (try? samples.resampled(to: 50))?.countSteps()
    return 0
}

@_cdecl("fuzz_csv_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzCSV)
}
