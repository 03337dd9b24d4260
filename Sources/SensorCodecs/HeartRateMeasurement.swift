/// The Heart Rate Measurement characteristic (0x2A37), Heart Rate Service 1.0 §3.1.
///
/// Fields keep their wire units: beats per minute, kilojoules, and RR intervals in 1/1024 s.
public struct HeartRateMeasurement: Hashable, Sendable {
    /// Beats per minute.
    public var heartRate: UInt16
    /// Whether the heart rate was sent as one byte or two (flags bit 0).
    public var valueFormat: ValueFormat
    public var sensorContact: SensorContact
    /// Accumulated energy in kilojoules since the strap's last reset (flags bit 3).
    public var energyExpendedKilojoules: UInt16?
    /// Beat-to-beat intervals, oldest first, in units of 1/1024 s (flags bit 4).
    public var rrIntervals1024ths: [UInt16]

    public enum ValueFormat: Hashable, Sendable {
        case uint8
        case uint16
    }

    /// Flags bits 1–2: whether the strap can tell skin contact, and if so whether it has it.
    public enum SensorContact: Hashable, Sendable {
        case notSupported
        case notDetected
        case detected
    }

    public init(
        heartRate: UInt16, valueFormat: ValueFormat = .uint8, sensorContact: SensorContact = .notSupported,
        energyExpendedKilojoules: UInt16? = nil, rrIntervals1024ths: [UInt16] = []
    ) {
        self.heartRate = heartRate
        self.valueFormat = valueFormat
        self.sensorContact = sensorContact
        self.energyExpendedKilojoules = energyExpendedKilojoules
        self.rrIntervals1024ths = rrIntervals1024ths
    }

    /// Decodes a notification's value. Reserved flag bits (5–7) are ignored, as the
    /// specification asks of clients; every length is checked.
    public init(decoding bytes: [UInt8]) throws(GATTValueError) {
        var reader = ByteReader(bytes)
        let flags = try reader.uint8("flags")
        if flags & 0x01 != 0 {
            valueFormat = .uint16
            heartRate = try reader.uint16("heart rate (uint16)")
        } else {
            valueFormat = .uint8
            heartRate = UInt16(try reader.uint8("heart rate (uint8)"))
        }
        switch (flags & 0x04 != 0, flags & 0x02 != 0) {
        case (false, _): sensorContact = .notSupported
        case (true, false): sensorContact = .notDetected
        case (true, true): sensorContact = .detected
        }
        energyExpendedKilojoules = flags & 0x08 != 0 ? try reader.uint16("energy expended") : nil
        rrIntervals1024ths = []
        if flags & 0x10 != 0 {
            // The flag says RR intervals are present (HRS 1.0 §3.1.1.5): at least one must follow.
            // Nordic's parser refuses such a value too; it is counted as malformed, not as "no beat".
            guard reader.remaining > 0 else { throw .truncated(field: "RR interval", needed: 2, have: 0) }
            guard reader.remaining % 2 == 0 else { throw .oddRRIntervalBytes(count: reader.remaining) }
            rrIntervals1024ths.reserveCapacity(reader.remaining / 2)
            while reader.remaining > 0 { rrIntervals1024ths.append(try reader.uint16("RR interval")) }
        }
    }

    /// The value as a strap would send it. A heart rate above 255 is always sent as uint16.
    public func encoded() -> [UInt8] {
        var flags: UInt8 = 0
        let wide = valueFormat == .uint16 || heartRate > 0xFF
        if wide { flags |= 0x01 }
        switch sensorContact {
        case .notSupported: break
        case .notDetected: flags |= 0x04
        case .detected: flags |= 0x06
        }
        if energyExpendedKilojoules != nil { flags |= 0x08 }
        if !rrIntervals1024ths.isEmpty { flags |= 0x10 }
        var out: [UInt8] = [flags]
        out.reserveCapacity(5 + 2 * rrIntervals1024ths.count)
        if wide { out.appendLittleEndian(heartRate) } else { out.append(UInt8(heartRate)) }
        if let energy = energyExpendedKilojoules { out.appendLittleEndian(energy) }
        for rr in rrIntervals1024ths { out.appendLittleEndian(rr) }
        return out
    }

    /// Whether the heart rate can be believed: a strap without skin contact, or one sending 0,
    /// is not measuring a heart.
    public var isPlausible: Bool { heartRate > 0 && sensorContact != .notDetected }
}
