import ActivityFormats
import FuzzSupport
import Training

/// FITReader on any bytes: a typed error or an activity, never a trap; what it reads, the
/// writers take and FITReader reads back. A mutated file almost never keeps its CRCs, so the
/// bytes are also read as a whole FIT file with the header's data size and both CRCs made right:
/// the mutations then reach the records. What it reads goes on to the heart-rate variability
/// analysis and the best efforts, as a store's upload does (a lap ending before it started once
/// trapped there).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFIT(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    for input in [bytes, containerMadeRight(bytes)].compactMap({ $0 }) {
        guard let activity = try? FITReader.read(input) else { continue }
        Fuzz.checkActivity(activity, readAs: .fit)
        if let hrv = HeartRateVariability(batches: activity.rrIntervals, laps: activity.laps) {
            Fuzz.require((0...1).contains(hrv.artifactShare), "the artifact share is \(hrv.artifactShare)")
        }
        // And to the best efforts (issue 34's records): each one a finite, non-negative time.
        for effort in BestEfforts.find(activity.points.map { (Double($0.elapsedSeconds), $0.distanceMeters) }) {
            Fuzz.require(effort.seconds.isFinite && effort.seconds >= 0, "a best effort of \(effort.seconds) s")
        }
    }
    return 0
}

/// `bytes` with a 12- or 14-byte header's data size covering the rest of the file but its CRC,
/// the header's CRC and the file's CRC computed; nil when that is what they already are or the
/// bytes do not start with a FIT header.
func containerMadeRight(_ bytes: [UInt8]) -> [UInt8]? {
    guard let headerSize = bytes.first.map(Int.init), headerSize == 12 || headerSize == 14,
        bytes.count >= headerSize + 2
    else { return nil }
    var fixed = bytes
    let dataSize = UInt32(bytes.count - headerSize - 2)
    for i in 0..<4 { fixed[4 + i] = UInt8(truncatingIfNeeded: dataSize >> (8 * UInt32(i))) }
    if headerSize == 14 {
        let crc = FIT.crc16(fixed[0..<12])
        fixed[12] = UInt8(crc & 0xFF)
        fixed[13] = UInt8(crc >> 8)
    }
    let crc = FIT.crc16(fixed[0..<(fixed.count - 2)])
    fixed[fixed.count - 2] = UInt8(crc & 0xFF)
    fixed[fixed.count - 1] = UInt8(crc >> 8)
    return fixed == bytes ? nil : fixed
}

@_cdecl("fuzz_fit_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzFIT)
}
