import FuzzSupport
import HandoffModel
import Recorder
import SensorCodecs

/// A capture replayed (`handoff replay`, and every live sensor's path): the events a capture
/// holds go through the payload decoders and the recorder. Never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReplay(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let lines = Fuzz.lines(Fuzz.bytes(data, size))
    guard let first = lines.first,
        let header = try? CaptureCodec.decodeHeader(String(decoding: first, as: UTF8.self))
    else { return 0 }
    var pipeline = RunPipeline(sensors: header.sensors)
    var last: MonotonicInstant?
    for bytes in lines.dropFirst() {
        guard let event = try? CaptureCodec.decodeEvent(Array(bytes)) else { continue }
        _ = pipeline.process(event)
        last = event.monotonic
    }
    if let last { _ = pipeline.advance(to: last) }
    return 0
}

@_cdecl("fuzz_replay_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzReplay)
}
