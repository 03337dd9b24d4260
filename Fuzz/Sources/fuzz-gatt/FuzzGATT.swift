import FuzzSupport
import SensorCodecs

/// The GATT characteristic values a sensor sends (Heart Rate Measurement 0x2A37, RSC 0x2A53,
/// CSC 0x2A5B, battery, sensor location) on any bytes: a typed error or a value, never a trap.
/// A value that decodes encodes to bytes that decode to it again. The first byte picks the
/// characteristic; the rest is its value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGATT(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    guard let kind = bytes.first else { return 0 }
    let value = Array(bytes.dropFirst())
    switch kind % 5 {
    case 0:
        guard let m = try? HeartRateMeasurement(decoding: value) else { return 0 }
        Fuzz.require((try? HeartRateMeasurement(decoding: m.encoded())) == m, "\(m) does not round-trip")
    case 1:
        guard let m = try? RSCMeasurement(decoding: value) else { return 0 }
        Fuzz.require((try? RSCMeasurement(decoding: m.encoded())) == m, "\(m) does not round-trip")
    case 2:
        guard let m = try? CSCMeasurement(decoding: value) else { return 0 }
        Fuzz.require((try? CSCMeasurement(decoding: m.encoded())) == m, "\(m) does not round-trip")
        if let previous = try? CSCMeasurement(decoding: Array(value.reversed())) { _ = m.rates(since: previous) }
    case 3:
        guard let m = try? BatteryLevel(decoding: value) else { return 0 }
        Fuzz.require((try? BatteryLevel(decoding: m.encoded())) == m, "\(m) does not round-trip")
    default:
        _ = try? SensorLocation(decoding: value)
    }
    return 0
}

@_cdecl("fuzz_gatt_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzGATT)
}
