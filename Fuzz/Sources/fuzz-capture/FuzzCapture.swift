import FuzzSupport
import HandoffModel
import SensorCodecs

/// The capture reader (JSON Lines: a header, then events) on any bytes: a typed error or a
/// value, never a trap. What it reads encodes to a line that decodes to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCapture(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let lines = Fuzz.lines(Fuzz.bytes(data, size))
    guard let first = lines.first else { return 0 }
    if let header = try? CaptureCodec.decodeHeader(String(decoding: first, as: UTF8.self)) {
        let line = CaptureCodec.encode(header)
        do {
            let again = try CaptureCodec.decodeHeader(line)
            Fuzz.require(Fuzz.same(again, header), "the header written back reads differently: \(line)")
        } catch {
            fatalError("the header written back is refused: \(line): \(error)")
        }
    }
    for bytes in lines {
        guard let event = try? CaptureCodec.decodeEvent(Array(bytes)) else { continue }
        let line = CaptureCodec.encode(event)
        do {
            let again = try CaptureCodec.decodeEvent(line)
            Fuzz.require(Fuzz.same(again, event), "the event written back reads differently: \(line)")
        } catch {
            fatalError("the event written back is refused: \(line): \(error)")
        }
    }
    return 0
}

@_cdecl("fuzz_capture_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzCapture)
}
