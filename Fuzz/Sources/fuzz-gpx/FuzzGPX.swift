import ActivityFormats
import FuzzSupport

/// GPXReader on any bytes: a typed error or an activity, never a trap; what it reads, the
/// writers take and GPXReader reads back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPX(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    guard let activity = try? GPXReader.read(bytes) else { return 0 }
    Fuzz.checkActivity(activity, readAs: .gpx)
    return 0
}

@_cdecl("fuzz_gpx_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzGPX)
}
