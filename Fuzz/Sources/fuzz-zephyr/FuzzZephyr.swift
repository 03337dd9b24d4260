import FuzzSupport
import SensorCodecs

/// The Zephyr HxM strap framer and its General Data message (an RFCOMM stream) on any bytes:
/// never a trap. Read whole, a byte at a time or in irregular pieces, the stream gives the same
/// frames; each frame is found again in its own bytes, and a message that decodes encodes to a
/// frame that decodes to it again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZephyr(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    var results: [(frames: [ZephyrFramer.Frame], dropped: Int, badCRCs: Int, count: Int)] = []
    for reads in Fuzz.readings(bytes) {
        var framer = ZephyrFramer()
        var frames: [ZephyrFramer.Frame] = []
        for read in reads { framer.append(read) { frames.append($0) } }
        results.append((frames, framer.droppedBytes, framer.badCRCs, framer.frames))
    }
    var previous: HxMGeneralData?
    for frame in results[0].frames {
        var alone = frame
        alone.offset = 0
        Fuzz.require(ZephyrFramer.frame(exactly: frame.bytes) == alone, "a frame is not found in its own bytes")
        guard let message = try? HxMGeneralData(frame: frame) else { continue }
        _ = message.newRRIntervalsMilliseconds(since: previous)
        previous = message
        guard let again = ZephyrFramer.frame(exactly: message.encodedFrame()) else {
            fatalError("\(message) encodes to a frame that is not one")
        }
        Fuzz.require((try? HxMGeneralData(frame: again)) == message, "\(message) does not round-trip")
    }
    for other in results.dropFirst() {
        Fuzz.require(
            other.frames == results[0].frames && other.dropped == results[0].dropped
                && other.badCRCs == results[0].badCRCs && other.count == results[0].count,
            "the way the bytes were read changed the frames")
    }
    _ = try? HxMGeneralData(data: bytes)
    return 0
}

@_cdecl("fuzz_zephyr_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzZephyr)
}
