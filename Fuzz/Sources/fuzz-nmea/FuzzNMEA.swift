import FuzzSupport
import SensorCodecs

/// The NMEA framer and decoder (a serial receiver's bytes, `handoff decode nmea`) on any bytes:
/// never a trap. Read whole, a byte at a time or in irregular pieces, the stream gives the same
/// lines, the same fixes and the same counts; every fix's time converts (or is refused) safely.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNMEA(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    var results: [(lines: [[UInt8]], discarded: Int, overlong: Int, fixes: [GNSSFix], counts: NMEADecoder.Counts)] = []
    for reads in Fuzz.readings(bytes) {
        var framer = NMEAFramer()
        var lines: [[UInt8]] = []
        var decoder = NMEADecoder()
        var fixes: [GNSSFix] = []
        for read in reads {
            framer.append(read) { lines.append($0) }
            decoder.append(read) { fixes.append($0) }
        }
        framer.finish { lines.append($0) }
        decoder.finish { fixes.append($0) }
        for fix in fixes {
            _ = fix.utc
            _ = fix.iso8601Time
        }
        results.append((lines, framer.discardedBytes, framer.overlongLines, fixes, decoder.counts))
    }
    for other in results.dropFirst() {
        let first = results[0]
        Fuzz.require(
            other.lines == first.lines && other.discarded == first.discarded && other.overlong == first.overlong
                && Fuzz.same(other.fixes, first.fixes) && Fuzz.same(other.counts, first.counts),
            "the way the bytes were read changed the result")
    }
    // Each line on its own, as the recorder reads a capture's NMEA lines.
    for line in NMEAFramer.lines(in: bytes) {
        guard let sentence = try? NMEASentence(bytes: line), let report = try? NMEAReport(sentence) else { continue }
        var assembler = NMEAFixAssembler()
        if let fix = assembler.add(report, address: sentence.talker + sentence.type) ?? assembler.finish() {
            _ = fix.utc
        }
    }
    return 0
}

@_cdecl("fuzz_nmea_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzNMEA)
}
