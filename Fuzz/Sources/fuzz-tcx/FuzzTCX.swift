import ActivityFormats
import FuzzSupport

/// TCXReader on any bytes: a typed error or an activity, never a trap; what it reads, the
/// writers take and TCXReader reads back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTCX(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    guard let activity = try? TCXReader.read(bytes) else { return 0 }
    Fuzz.checkActivity(activity, readAs: .tcx)
    return 0
}

@_cdecl("fuzz_tcx_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzTCX)
}
