/// A Polar WearLink+ packet from its RFCOMM stream: `FE len (FF−len) seq status HR RR…`, where
/// `len` counts the whole packet (8–16 bytes), `seq` runs 0–15 and the RR intervals are 16-bit
/// big-endian milliseconds. (No published specification: MyTracks' PolarMessageParser and
/// others, which disagree on the status bits; the status byte is kept as sent.)
public struct PolarWearLinkPacket: Hashable, Sendable {
    public var sequence: UInt8
    public var status: UInt8
    /// Beats per minute.
    public var heartRate: UInt8
    /// Milliseconds, oldest first.
    public var rrIntervalsMilliseconds: [UInt16]

    public init(sequence: UInt8, status: UInt8, heartRate: UInt8, rrIntervalsMilliseconds: [UInt16]) {
        self.sequence = sequence
        self.status = status
        self.heartRate = heartRate
        self.rrIntervalsMilliseconds = rrIntervalsMilliseconds
    }

    /// Whether `bytes` (at least 3) start a packet header: FE, a length 8–16 and even, its check
    /// byte. The sequence is checked once the packet is whole.
    static func headerLength(_ b: ArraySlice<UInt8>) -> Int? {
        let i = b.startIndex
        guard b[i] == 0xFE, b.count >= 3 else { return nil }
        let length = Int(b[i + 1])
        guard (8...16).contains(length), length % 2 == 0, b[i + 2] == 0xFF &- b[i + 1] else { return nil }
        return length
    }

    /// Decodes one whole packet; `nil` when it is not a valid one.
    public init?(packet b: [UInt8]) {
        guard b.count >= 3, let length = Self.headerLength(b[...]), b.count == length, b[3] < 16 else { return nil }
        sequence = b[3]
        status = b[4]
        heartRate = b[5]
        rrIntervalsMilliseconds = stride(from: 6, to: length, by: 2).map { UInt16(b[$0]) << 8 | UInt16(b[$0 + 1]) }
    }

    public func encoded() -> [UInt8] {
        let length = UInt8(6 + 2 * rrIntervalsMilliseconds.count)
        var out: [UInt8] = [0xFE, length, 0xFF &- length, sequence & 0x0F, status, heartRate]
        for rr in rrIntervalsMilliseconds { out += [UInt8(rr >> 8), UInt8(rr & 0xFF)] }
        return out
    }
}

/// Finds Polar WearLink packets in a byte stream however it is split, realigning after invalid
/// bytes: a candidate that fails its checks is skipped one byte at a time.
public struct PolarWearLinkFramer: Sendable {
    private var buffer: [UInt8] = []
    /// Stream bytes before `buffer[0]`.
    private var consumed = 0
    /// Bytes skipped while looking for a packet.
    public private(set) var droppedBytes = 0
    public private(set) var packets = 0

    public init() {}

    /// Appends bytes read from the strap and calls `body` with each whole packet and the stream
    /// offset of its first byte.
    public mutating func append(
        _ bytes: some Sequence<UInt8>, _ body: (PolarWearLinkPacket, _ offset: Int) throws -> Void
    ) rethrows {
        buffer.append(contentsOf: bytes)
        var start = 0
        defer {
            buffer.removeFirst(start)
            consumed += start
        }
        while start < buffer.count {
            guard buffer[start] == 0xFE else {
                start += 1
                droppedBytes += 1
                continue
            }
            guard buffer.count - start >= 3 else { return }
            guard let length = PolarWearLinkPacket.headerLength(buffer[start...]) else {
                start += 1
                droppedBytes += 1
                continue
            }
            guard buffer.count - start >= length else { return }
            guard let packet = PolarWearLinkPacket(packet: Array(buffer[start..<(start + length)])) else {
                start += 1
                droppedBytes += 1
                continue
            }
            packets += 1
            let offset = consumed + start
            start += length
            try body(packet, offset)
        }
    }
}
