import FuzzSupport
import SensorCodecs

/// The Polar WearLink strap framer (an RFCOMM stream) on any bytes: never a trap. Read whole, a
/// byte at a time or in irregular pieces, the stream gives the same packets at the same offsets,
/// and each packet encodes to bytes that decode to it again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPolar(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    var results: [(packets: [PolarWearLinkPacket], offsets: [Int], dropped: Int, count: Int)] = []
    for reads in Fuzz.readings(bytes) {
        var framer = PolarWearLinkFramer()
        var packets: [(PolarWearLinkPacket, Int)] = []
        for read in reads { framer.append(read) { packets.append(($0, $1)) } }
        for (packet, _) in packets {
            Fuzz.require(PolarWearLinkPacket(packet: packet.encoded()) == packet, "\(packet) does not round-trip")
        }
        results.append((packets.map(\.0), packets.map(\.1), framer.droppedBytes, framer.packets))
    }
    for other in results.dropFirst() {
        Fuzz.require(
            other.packets == results[0].packets && other.offsets == results[0].offsets
                && other.dropped == results[0].dropped && other.count == results[0].count,
            "the way the bytes were read changed the packets")
    }
    _ = PolarWearLinkPacket(packet: bytes)
    return 0
}

@_cdecl("fuzz_polar_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzPolar)
}
