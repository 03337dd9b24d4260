import ArgumentParser
import Foundation
import PackControl
import PackSystem
import SensorCodecs

extension Decode {
    /// Reads a classic strap's RFCOMM byte stream (standard input as it comes, or hex arguments)
    /// and prints each frame as one JSON line.
    func decodeStrapStream() throws {
        var strap = StrapStreamDecoder(kind: kind)
        if !input.isEmpty {
            let bytes: [UInt8]
            do {
                bytes = try Hex.decode(input.joined())
            } catch {
                throw ValidationError("the bytes must be hex, like FE08F706F1480364: \(error)")
            }
            strap.append(bytes[...])
        } else {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let (n, _) = retryingEINTR {
                    buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                }
                guard n > 0 else { break }
                strap.append(buffer[..<n])
            }
        }
        FileHandle.standardError.write(Data((strap.summary + "\n").utf8))
        if strap.frames == 0 { throw ExitCode.failure }
    }
}

/// Frames a Zephyr HxM or Polar WearLink+ stream and prints each frame.
struct StrapStreamDecoder {
    let kind: Decode.Kind
    var zephyr = ZephyrFramer()
    var polar = PolarWearLinkFramer()
    var previous: HxMGeneralData?
    var otherMessages = 0
    var received = 0

    init(kind: Decode.Kind) { self.kind = kind }

    var frames: Int { kind == .hxm ? zephyr.frames : polar.packets }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        received += bytes.count
        if kind == .polar {
            polar.append(bytes) { packet, offset in Self.print(PolarJSON(packet, offset: offset)) }
            return
        }
        var framer = zephyr
        defer { zephyr = framer }
        framer.append(bytes) { frame in
            guard let packet = try? HxMGeneralData(frame: frame) else {
                otherMessages += 1
                Self.print(ZephyrOtherJSON(frame))
                return
            }
            Self.print(HxMJSON(packet, offset: frame.offset, rr: packet.newRRIntervalsMilliseconds(since: previous)))
            previous = packet
        }
    }

    static func print(_ value: some Encodable) {
        if let line = try? ControlJSON.encode(value) { Output.print(line) }
    }

    var summary: String {
        if kind == .polar {
            return
                "\(polar.packets) packets in \(received) bytes; skipped \(polar.droppedBytes) bytes that were not a valid packet"
        }
        var text = "\(zephyr.frames) frames in \(received) bytes"
        if otherMessages > 0 { text += " (\(otherMessages) not HxM general data)" }
        text += "; skipped \(zephyr.droppedBytes) bytes"
        if zephyr.badCRCs > 0 { text += ", \(zephyr.badCRCs) candidate frames failed their CRC" }
        return text
    }
}

struct HxMJSON: Encodable {
    let offset: Int
    let frame: HxMGeneralData
    /// Intervals of the beats new since the previous frame, oldest first.
    let rr: [UInt16]

    enum CodingKeys: String, CodingKey {
        case offset, strides
        case firmwareID = "firmware_id", firmwareVersion = "firmware_version", hardwareID = "hardware_id"
        case hardwareVersion = "hardware_version", batteryPercent = "battery_pct", hrBpm = "hr_bpm"
        case beatNumber = "beat_number", beatTimestampsMs = "beat_timestamps_ms", rrMs = "rr_ms"
        case distanceM = "distance_m", speedMps = "speed_mps", cadenceRaw = "cadence_raw"
    }

    init(_ p: HxMGeneralData, offset: Int, rr: [UInt16]) {
        self.offset = offset
        frame = p
        self.rr = rr
    }

    func encode(to encoder: any Encoder) throws {
        let p = frame
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(offset, forKey: .offset)
        try c.encode(Int(p.firmwareID), forKey: .firmwareID)
        try c.encode(p.firmwareVersion, forKey: .firmwareVersion)
        try c.encode(Int(p.hardwareID), forKey: .hardwareID)
        try c.encode(p.hardwareVersion, forKey: .hardwareVersion)
        try c.encode(Int(p.battery), forKey: .batteryPercent)
        try c.encode(Int(p.heartRate), forKey: .hrBpm)
        try c.encode(Int(p.heartBeatNumber), forKey: .beatNumber)
        // Newest first, in ms of the strap's 16-bit clock.
        try c.encode(p.heartBeatTimestamps.map(Int.init), forKey: .beatTimestampsMs)
        try c.encode(rr.map(Int.init), forKey: .rrMs)
        try c.encode(p.distanceMeters, forKey: .distanceM)
        try c.encode(p.speedMetersPerSecond, forKey: .speedMps)
        try c.encode(Int(p.strides), forKey: .strides)
        try c.encode(Int(p.cadenceRaw), forKey: .cadenceRaw)
    }
}

struct ZephyrOtherJSON: Encodable {
    let offset: Int
    let messageID: Int
    let dataHex: String

    enum CodingKeys: String, CodingKey {
        case offset
        case messageID = "message_id", dataHex = "data_hex"
    }

    init(_ frame: ZephyrFramer.Frame) {
        offset = frame.offset
        messageID = Int(frame.messageID)
        dataHex = Hex.encode(frame.data)
    }
}

struct PolarJSON: Encodable {
    let offset: Int
    let sequence: Int
    let status: Int
    let hrBpm: Int
    let rrMs: [Int]

    enum CodingKeys: String, CodingKey {
        case offset, sequence, status
        case hrBpm = "hr_bpm", rrMs = "rr_ms"
    }

    init(_ p: PolarWearLinkPacket, offset: Int) {
        self.offset = offset
        sequence = Int(p.sequence)
        status = Int(p.status)
        hrBpm = Int(p.heartRate)
        rrMs = p.rrIntervalsMilliseconds.map(Int.init)
    }
}
