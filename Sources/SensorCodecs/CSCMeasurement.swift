/// The CSC Measurement characteristic (0x2A5B), Cycling Speed and Cadence Service 1.0 §3.1: for
/// a runner's bike legs.
///
/// Both values are cumulative counts with the time of their last event, so speed and cadence
/// come from two measurements (`rates(since:)`).
public struct CSCMeasurement: Hashable, Sendable {
    /// Flags bit 0: wheel revolutions since the sensor's reset and the event time in 1/1024 s.
    public var wheel: Revolutions<UInt32>?
    /// Flags bit 1: crank revolutions and the event time in 1/1024 s.
    public var crank: Revolutions<UInt16>?

    public struct Revolutions<Count: FixedWidthInteger & UnsignedInteger & Sendable>: Hashable, Sendable {
        public var count: Count
        /// When the last revolution ended, in 1/1024 s; wraps at 64 s.
        public var lastEventTime1024ths: UInt16

        public init(count: Count, lastEventTime1024ths: UInt16) {
            self.count = count
            self.lastEventTime1024ths = lastEventTime1024ths
        }
    }

    public init(wheel: Revolutions<UInt32>? = nil, crank: Revolutions<UInt16>? = nil) {
        self.wheel = wheel
        self.crank = crank
    }

    public init(decoding bytes: [UInt8]) throws(GATTValueError) {
        var reader = ByteReader(bytes)
        let flags = try reader.uint8("flags")
        if flags & 0x01 != 0 {
            wheel = Revolutions(
                count: try reader.uint32("cumulative wheel revolutions"),
                lastEventTime1024ths: try reader.uint16("last wheel event time"))
        }
        if flags & 0x02 != 0 {
            crank = Revolutions(
                count: try reader.uint16("cumulative crank revolutions"),
                lastEventTime1024ths: try reader.uint16("last crank event time"))
        }
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = [(wheel != nil ? 0x01 : 0) | (crank != nil ? 0x02 : 0)]
        if let wheel {
            out.appendLittleEndian(wheel.count)
            out.appendLittleEndian(wheel.lastEventTime1024ths)
        }
        if let crank {
            out.appendLittleEndian(crank.count)
            out.appendLittleEndian(crank.lastEventTime1024ths)
        }
        return out
    }

    /// Wheel revolutions per second and crank revolutions per minute since `previous`; `nil` for
    /// a value without a new event (the counts and times wrap, as the service allows).
    public func rates(since previous: CSCMeasurement) -> (wheelPerSecond: Double?, crankPerMinute: Double?) {
        var wheelRate: Double?
        if let w = wheel, let p = previous.wheel {
            let dt = w.lastEventTime1024ths &- p.lastEventTime1024ths
            if dt > 0 { wheelRate = Double(w.count &- p.count) * 1024 / Double(dt) }
        }
        var crankRate: Double?
        if let c = crank, let p = previous.crank {
            let dt = c.lastEventTime1024ths &- p.lastEventTime1024ths
            if dt > 0 { crankRate = Double(c.count &- p.count) * 60 * 1024 / Double(dt) }
        }
        return (wheelRate, crankRate)
    }
}

/// The Battery Level characteristic (0x2A19), Battery Service 1.0 §3.1: percent, 0–100.
public struct BatteryLevel: Hashable, Sendable {
    public var percent: UInt8

    public init(percent: UInt8) { self.percent = percent }

    public init(decoding bytes: [UInt8]) throws(GATTValueError) {
        var reader = ByteReader(bytes)
        let value = try reader.uint8("battery level")
        guard value <= 100 else { throw .outOfRange(field: "battery level", value: Int(value)) }
        percent = value
    }

    public func encoded() -> [UInt8] { [percent] }
}

/// Where a strap or footpod sits: Body Sensor Location (0x2A38, Heart Rate Service §3.2) and
/// Sensor Location (0x2A5D, RSC and CSC services) share their lower values.
public struct SensorLocation: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public init(decoding bytes: [UInt8]) throws(GATTValueError) {
        var reader = ByteReader(bytes)
        rawValue = try reader.uint8("location")
    }

    public var description: String {
        switch rawValue {
        case 0: "other"
        case 1: "chest"
        case 2: "wrist"
        case 3: "finger"
        case 4: "hand"
        case 5: "ear lobe"
        case 6: "foot"
        default: "location \(rawValue)"
        }
    }
}

/// The RSC Feature characteristic (0x2A54), RSC Service §3.2: what the footpod can measure.
public struct RSCFeature: OptionSet, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let strideLength = RSCFeature(rawValue: 1 << 0)
    public static let totalDistance = RSCFeature(rawValue: 1 << 1)
    public static let walkingOrRunningStatus = RSCFeature(rawValue: 1 << 2)
    public static let calibration = RSCFeature(rawValue: 1 << 3)
    public static let multipleSensorLocations = RSCFeature(rawValue: 1 << 4)

    public init(decoding bytes: [UInt8]) throws(GATTValueError) {
        var reader = ByteReader(bytes)
        rawValue = try reader.uint16("RSC feature")
    }
}

/// A Device Information string (0x2A24–0x2A29): UTF-8, possibly padded with NULs by cheap
/// firmware, which are dropped.
public enum DeviceInformationString {
    public static func decode(_ bytes: [UInt8]) -> String {
        var trimmed = bytes
        while trimmed.last == 0 { trimmed.removeLast() }
        return String(decoding: trimmed, as: UTF8.self)
    }
}
