import FuzzSupport
import SensorCodecs

/// gpsd's JSON reports (the pack's gpsd client) on any lines: never a trap. Each line that parses
/// as JSON writes back and parses to the same value; reports go through the fix merger as the
/// recorder sends them, and every fix's time converts (or is refused) safely.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGpsd(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    var merger = GpsdFixMerger()
    var fixes: [GNSSFix] = []
    for line in Fuzz.lines(bytes) {
        if let value = try? JSONParser.parse(Array(line)) {
            var writer = JSONWriter()
            writer.write(value)
            do {
                let again = try JSONParser.parse(writer.bytes)
                Fuzz.require(Fuzz.same(again, value), "JSON written back reads differently: \(writer.text)")
            } catch {
                fatalError("JSON written back is refused: \(writer.text): \(error)")
            }
        }
        guard let report = try? GpsdReport(line: String(decoding: line, as: UTF8.self)) else { continue }
        if let fix = merger.add(report) { fixes.append(fix) }
    }
    if let fix = merger.flush() { fixes.append(fix) }
    for fix in fixes {
        _ = fix.utc
        _ = fix.iso8601Time
    }
    return 0
}

@_cdecl("fuzz_gpsd_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzGpsd)
}
