/// The Zephyr HxM's General Data Packet (message id 0x26), as its RFCOMM stream carries it once a
/// second (Zephyr "HxM BT API Guide"): `02 26 37 <55 bytes> <CRC-8> 03`.
///
/// Fields keep their wire units: beat timestamps in ms (wrapping at 65 536), distance in 1/16 m,
/// speed in 1/256 m/s.
public struct HxMGeneralData: Hashable, Sendable {
    public var firmwareID: UInt16
    /// Two ASCII characters, such as `1f`.
    public var firmwareVersion: String
    public var hardwareID: UInt16
    public var hardwareVersion: String
    /// Percent.
    public var battery: UInt8
    /// Beats per minute.
    public var heartRate: UInt8
    /// Counts beats, wrapping at 256.
    public var heartBeatNumber: UInt8
    /// The last 15 beats' times in ms, newest first (each wraps at 65 536).
    public var heartBeatTimestamps: [UInt16]
    public var distance16ths: UInt16
    public var speed256ths: UInt16
    /// Counts strides, wrapping at 256.
    public var strides: UInt8
    /// Bytes 53–54 as sent: cadence in 1/16 steps per minute on firmware that fills them in;
    /// unreliable on firmware id 26.
    public var cadenceRaw: UInt16

    /// The message id of a General Data Packet, and its data length.
    public static let messageID: UInt8 = 0x26
    public static let dataLength = 55
    /// Where the battery percentage is in the data.
    public static let batteryOffset = 8

    public init(
        firmwareID: UInt16 = 26, firmwareVersion: String = "1f", hardwareID: UInt16 = 80,
        hardwareVersion: String = "1d", battery: UInt8, heartRate: UInt8, heartBeatNumber: UInt8,
        heartBeatTimestamps: [UInt16], distance16ths: UInt16 = 0, speed256ths: UInt16 = 0, strides: UInt8 = 0,
        cadenceRaw: UInt16 = 0
    ) {
        self.firmwareID = firmwareID
        self.firmwareVersion = firmwareVersion
        self.hardwareID = hardwareID
        self.hardwareVersion = hardwareVersion
        self.battery = battery
        self.heartRate = heartRate
        self.heartBeatNumber = heartBeatNumber
        self.heartBeatTimestamps = heartBeatTimestamps
        self.distance16ths = distance16ths
        self.speed256ths = speed256ths
        self.strides = strides
        self.cadenceRaw = cadenceRaw
    }

    /// Decodes the 55 data bytes of a frame whose framing and CRC were checked.
    public init(data d: [UInt8]) throws(GATTValueError) {
        guard d.count == Self.dataLength else {
            throw .truncated(field: "HxM general data", needed: Self.dataLength, have: d.count)
        }
        func u16(_ i: Int) -> UInt16 { UInt16(d[i]) | UInt16(d[i + 1]) << 8 }
        firmwareID = u16(0)
        firmwareVersion = Self.latin1(d[2...3])
        hardwareID = u16(4)
        hardwareVersion = Self.latin1(d[6...7])
        battery = d[Self.batteryOffset]
        heartRate = d[9]
        heartBeatNumber = d[10]
        heartBeatTimestamps = (0..<15).map { u16(11 + 2 * $0) }
        distance16ths = u16(47)
        speed256ths = u16(49)
        strides = d[51]
        cadenceRaw = u16(53)
    }

    /// The version bytes as text, one character a byte (ISO 8859-1), so that any byte a strap
    /// sends comes back out as it was. The straps send ASCII ("1f"); reading them as UTF-8 turned
    /// a stray 0xFF into U+FFFD, which encoded to other bytes (found by fuzzing).
    static func latin1(_ bytes: ArraySlice<UInt8>) -> String {
        var text = String.UnicodeScalarView()
        for byte in bytes { text.append(Unicode.Scalar(byte)) }
        return String(text)
    }

    /// The first two characters of a version as bytes: a character past U+00FF becomes `?`.
    static func latin1(_ text: String) -> [UInt8] {
        text.unicodeScalars.prefix(2).map { $0.value <= 0xFF ? UInt8($0.value) : UInt8(ascii: "?") }
    }

    /// Decodes a frame the framer found; throws when it is another message or too short.
    public init(frame: ZephyrFramer.Frame) throws(GATTValueError) {
        guard frame.messageID == Self.messageID else {
            throw .outOfRange(field: "HxM message id", value: Int(frame.messageID))
        }
        try self.init(data: frame.data)
    }

    /// The 60-byte frame, CRC and all (for virtual straps and tests).
    public func encodedFrame() -> [UInt8] {
        var d = [UInt8](repeating: 0, count: Self.dataLength)
        func put(_ v: UInt16, _ i: Int) {
            d[i] = UInt8(v & 0xFF)
            d[i + 1] = UInt8(v >> 8)
        }
        put(firmwareID, 0)
        for (i, b) in Self.latin1(firmwareVersion).enumerated() { d[2 + i] = b }
        put(hardwareID, 4)
        for (i, b) in Self.latin1(hardwareVersion).enumerated() { d[6 + i] = b }
        d[Self.batteryOffset] = battery
        d[9] = heartRate
        d[10] = heartBeatNumber
        for (i, t) in heartBeatTimestamps.prefix(15).enumerated() { put(t, 11 + 2 * i) }
        put(distance16ths, 47)
        put(speed256ths, 49)
        d[51] = strides
        put(cadenceRaw, 53)
        return [0x02, Self.messageID, UInt8(Self.dataLength)] + d + [ZephyrFramer.crc8(d), 0x03]
    }

    public var distanceMeters: Double { Double(distance16ths) / 16 }
    public var speedMetersPerSecond: Double { Double(speed256ths) / 256 }

    /// RR intervals (ms) of the beats that are new since `previous`, oldest first: the
    /// differences of consecutive beat timestamps, taken modulo 65 536. At most 14 (the packet
    /// holds 15 timestamps); none for the first packet, and none when the beats do not continue
    /// `previous` (the strap restarted its counters, or the frames are not consecutive).
    public func newRRIntervalsMilliseconds(since previous: HxMGeneralData?) -> [UInt16] {
        guard let previous else { return [] }
        let counted = Int(heartBeatNumber &- previous.heartBeatNumber)
        guard counted > 0 else { return [] }
        // The last beat `previous` knew must sit right behind the new ones, when it is still listed.
        if counted < 15, heartBeatTimestamps[counted] != previous.heartBeatTimestamps[0] { return [] }
        let newBeats = min(14, counted)
        var intervals: [UInt16] = []
        for i in stride(from: newBeats - 1, through: 0, by: -1) {
            intervals.append(heartBeatTimestamps[i] &- heartBeatTimestamps[i + 1])
        }
        return intervals
    }
}

/// Finds Zephyr frames (`STX id DLC data CRC ETX`) in a byte stream however it is split: whole,
/// byte by byte or in random chunks, with garbage between frames. A candidate whose ETX or CRC
/// is wrong is not a frame: the framer steps one byte past its STX and looks again, so a real
/// frame that begins inside garbage is still found.
public struct ZephyrFramer: Sendable {
    /// A frame: its message id and data, CRC checked.
    public struct Frame: Hashable, Sendable {
        public var messageID: UInt8
        public var data: [UInt8]
        /// Where its STX was in the stream (bytes since the framer began).
        public var offset: Int
        public var crc: UInt8

        /// The frame as it came off the wire, STX to ETX.
        public var bytes: [UInt8] { [0x02, messageID, UInt8(data.count)] + data + [crc, 0x03] }
    }

    private var buffer: [UInt8] = []
    /// Stream bytes before `buffer[0]`.
    private var consumed = 0
    /// Bytes skipped while looking for a frame.
    public private(set) var droppedBytes = 0
    /// Candidates that had an STX and a length but a wrong CRC.
    public private(set) var badCRCs = 0
    public private(set) var frames = 0

    /// The longest data a Zephyr message carries (the protocol's DLC limit). A longer "length"
    /// is garbage, and waiting for that many bytes would hold back the frames behind it.
    public static let maximumDataLength = 128

    public init() {}

    /// `bytes` as one whole frame, STX to ETX with a valid CRC, or `nil` (a capture's payload is
    /// checked again on replay).
    public static func frame(exactly bytes: [UInt8]) -> Frame? {
        guard bytes.count >= 5, bytes[0] == 0x02, Int(bytes[2]) == bytes.count - 5, bytes[bytes.count - 1] == 0x03
        else { return nil }
        let data = Array(bytes[3..<(bytes.count - 2)])
        guard crc8(data) == bytes[bytes.count - 2] else { return nil }
        return Frame(messageID: bytes[1], data: data, offset: 0, crc: bytes[bytes.count - 2])
    }

    /// CRC-8 over the data bytes: polynomial 0x8C reflected (x⁸+x⁵+x⁴+1), initial value 0. By
    /// table, a byte at a time: the bitwise loop cost a third of a frame's whole handling.
    public static func crc8(_ bytes: some Sequence<UInt8>) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes { crc = crcTable[Int(crc ^ byte)] }
        return crc
    }

    private static let crcTable: [UInt8] = (0...255).map { (value: Int) -> UInt8 in
        var crc = UInt8(value)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x8C : crc >> 1 }
        return crc
    }

    public mutating func append(_ bytes: some Sequence<UInt8>, _ body: (Frame) throws -> Void) rethrows {
        buffer.append(contentsOf: bytes)
        var start = 0
        defer {
            buffer.removeFirst(start)
            consumed += start
        }
        while start < buffer.count {
            guard buffer[start] == 0x02 else {
                start += 1
                droppedBytes += 1
                continue
            }
            guard buffer.count - start >= 3 else { return }
            let length = Int(buffer[start + 2])
            guard length <= Self.maximumDataLength else {
                start += 1
                droppedBytes += 1
                continue
            }
            let total = length + 5
            guard buffer.count - start >= total else { return }
            let data = Array(buffer[(start + 3)..<(start + 3 + length)])
            guard buffer[start + total - 1] == 0x03, Self.crc8(data) == buffer[start + 3 + length] else {
                if buffer[start + total - 1] == 0x03 { badCRCs += 1 }
                start += 1
                droppedBytes += 1
                continue
            }
            frames += 1
            let frame = Frame(
                messageID: buffer[start + 1], data: data, offset: consumed + start, crc: buffer[start + 3 + length])
            start += total
            try body(frame)
        }
    }
}
