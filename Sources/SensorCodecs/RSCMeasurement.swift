/// The RSC Measurement characteristic (0x2A53), Running Speed and Cadence Service 1.0 §3.1.
///
/// Fields keep their wire units: speed in 1/256 m/s, cadence per minute, stride length in
/// 1/100 m, total distance in 1/10 m.
public struct RSCMeasurement: Hashable, Sendable {
    public var speed256ths: UInt16
    /// Foot falls per minute, as the footpod reports it.
    public var cadence: UInt8
    /// Flags bit 0.
    public var strideLength100ths: UInt16?
    /// Flags bit 1. Counted by the footpod since its last reset; wraps at 2³² × 0.1 m.
    public var totalDistance10ths: UInt32?
    /// Flags bit 2: running (true) or walking.
    public var isRunning: Bool

    public init(
        speed256ths: UInt16, cadence: UInt8, strideLength100ths: UInt16? = nil,
        totalDistance10ths: UInt32? = nil, isRunning: Bool = false
    ) {
        self.speed256ths = speed256ths
        self.cadence = cadence
        self.strideLength100ths = strideLength100ths
        self.totalDistance10ths = totalDistance10ths
        self.isRunning = isRunning
    }

    /// Decodes a notification's value. Reserved flag bits and bytes after the fields the
    /// flags announce are ignored (fields a later revision may add), every length is checked.
    public init(decoding bytes: [UInt8]) throws(GATTValueError) {
        var reader = ByteReader(bytes)
        let flags = try reader.uint8("flags")
        speed256ths = try reader.uint16("instantaneous speed")
        cadence = try reader.uint8("instantaneous cadence")
        strideLength100ths = flags & 0x01 != 0 ? try reader.uint16("instantaneous stride length") : nil
        totalDistance10ths = flags & 0x02 != 0 ? try reader.uint32("total distance") : nil
        isRunning = flags & 0x04 != 0
    }

    public func encoded() -> [UInt8] {
        var flags: UInt8 = 0
        if strideLength100ths != nil { flags |= 0x01 }
        if totalDistance10ths != nil { flags |= 0x02 }
        if isRunning { flags |= 0x04 }
        var out: [UInt8] = [flags]
        out.reserveCapacity(10)
        out.appendLittleEndian(speed256ths)
        out.append(cadence)
        if let stride = strideLength100ths { out.appendLittleEndian(stride) }
        if let total = totalDistance10ths { out.appendLittleEndian(total) }
        return out
    }

    public var speedMetersPerSecond: Double { Double(speed256ths) / 256 }
    public var strideLengthMeters: Double? { strideLength100ths.map { Double($0) / 100 } }
    public var totalDistanceMeters: Double? { totalDistance10ths.map { Double($0) / 10 } }
}
