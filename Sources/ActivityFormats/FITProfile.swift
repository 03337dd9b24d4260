import HandoffModel

/// The part of Garmin's FIT profile (Profile.xlsx, as the FIT SDK publishes it) that activity
/// files use: base types, message numbers, field numbers and enum values.
extension FIT {
    /// Seconds from the Unix epoch to FIT's (1989-12-31T00:00:00Z).
    static let epochOffset: Int64 = 631_065_600
    /// FIT `date_time` values below this are seconds since the device powered on, not dates.
    static let minimumDateTime: UInt32 = 0x1000_0000
    /// The last FIT `date_time` readers accept: 2100-12-31T23:59:59Z (`CivilTime.supportedYears`).
    static let maximumDateTime: Int64 =
        CivilTime.supportedInstants.upperBound.nanosecondsSinceEpoch / nanosecondsPerSecond - epochOffset - 1

    /// A FIT base type: its number in definition messages, size and "invalid" bit pattern.
    enum BaseType: UInt8, Sendable {
        case enumeration = 0x00, sint8 = 0x01, uint8 = 0x02, sint16 = 0x83, uint16 = 0x84
        case sint32 = 0x85, uint32 = 0x86, string = 0x07, float32 = 0x88, float64 = 0x89
        case uint8z = 0x0A, uint16z = 0x8B, uint32z = 0x8C, byte = 0x0D
        case sint64 = 0x8E, uint64 = 0x8F, uint64z = 0x90

        var size: Int {
            switch self {
            case .enumeration, .sint8, .uint8, .string, .uint8z, .byte: 1
            case .sint16, .uint16, .uint16z: 2
            case .sint32, .uint32, .float32, .uint32z: 4
            case .float64, .sint64, .uint64, .uint64z: 8
            }
        }

        var isSigned: Bool { self == .sint8 || self == .sint16 || self == .sint32 || self == .sint64 }

        /// The value meaning "no value", as an unsigned bit pattern of `size` bytes.
        var invalid: UInt64 {
            switch self {
            case .enumeration, .uint8, .byte: 0xFF
            case .sint8: 0x7F
            case .sint16: 0x7FFF
            case .uint16: 0xFFFF
            case .sint32: 0x7FFF_FFFF
            case .uint32, .float32: 0xFFFF_FFFF
            case .string, .uint8z, .uint16z, .uint32z, .uint64z: 0
            case .float64, .uint64: 0xFFFF_FFFF_FFFF_FFFF
            case .sint64: 0x7FFF_FFFF_FFFF_FFFF
            }
        }

        /// The largest and smallest valid values (the invalid pattern excluded).
        var validRange: ClosedRange<Int64> {
            switch self {
            case .enumeration, .uint8, .byte: 0...0xFE
            case .uint8z: 1...0xFF
            case .sint8: -0x80...0x7E
            case .sint16: -0x8000...0x7FFE
            case .uint16: 0...0xFFFE
            case .uint16z: 1...0xFFFF
            case .sint32: -0x8000_0000...0x7FFF_FFFE
            case .uint32: 0...0xFFFF_FFFE
            case .uint32z: 1...0xFFFF_FFFF
            default: Int64.min...Int64.max
            }
        }
    }

    /// Global message numbers.
    enum Message {
        static let fileID: UInt16 = 0
        static let session: UInt16 = 18
        static let lap: UInt16 = 19
        static let record: UInt16 = 20
        static let event: UInt16 = 21
        static let deviceInfo: UInt16 = 23
        static let activity: UInt16 = 34
        static let hrv: UInt16 = 78
    }

    /// Field numbers shared by every message.
    static let timestampField: UInt8 = 253
    static let messageIndexField: UInt8 = 254

    /// `event` and `event_type` values.
    enum Event {
        static let timer: UInt8 = 0
        static let session: UInt8 = 8
        static let lap: UInt8 = 9
        static let activity: UInt8 = 26
        static let start: UInt8 = 0
        static let stop: UInt8 = 1
        static let stopAll: UInt8 = 4
        static let stopDisable: UInt8 = 5
        static let stopDisableAll: UInt8 = 9
    }

    /// `lap_trigger` values.
    enum LapTriggerValue {
        static let manual: UInt8 = 0
        static let distance: UInt8 = 2
        static let sessionEnd: UInt8 = 7
    }

    /// Semicircles per degree: 2³¹ / 180.
    static let semicirclesPerDegree = 2_147_483_648.0 / 180
}
