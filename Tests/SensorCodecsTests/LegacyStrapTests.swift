import Foundation
import PropertyBased
import SensorCodecs
import TestSupport
import Testing

/// One row of `rfcomm/zephyr-hxm/120-second-bt-stream-hxm.expected.csv`, the values the
/// zephyr-bt project's own decoder gives for each frame of the real stream.
struct HxMExpectedRow {
    let offset: Int
    let firmwareID: Int
    let firmwareVersion: String
    let hardwareID: Int
    let hardwareVersion: String
    let battery: Int
    let heartRate: Int
    let beatNumber: Int
    let newestTimestamp: Int
    let secondTimestamp: Int
    let distanceMeters: Double
    let speed: Double
    let strides: Int
    let cadenceRaw: Int

    struct BadRow: Error {
        let line: String
    }

    static func load() throws -> [HxMExpectedRow] {
        let lines = try Fixtures.text("rfcomm/zephyr-hxm/120-second-bt-stream-hxm.expected.csv")
            .split(separator: "\n").map(String.init)
        let header = lines[0].split(separator: ",").map(String.init)
        #expect(
            header == [
                "offset", "crc_ok", "firmware_id", "fw_ver", "hardware_id", "hw_ver", "battery_pct",
                "heart_rate_bpm", "hb_number", "hb_ts_ms_newest", "hb_ts_ms_2", "distance_m", "speed_mps",
                "strides", "cadence_raw_u16_frame56",
            ])
        return try lines.dropFirst().map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 15, f[1] == "1" else { throw BadRow(line: line) }
            func int(_ i: Int) -> Int { Int(f[i])! }
            func double(_ i: Int) -> Double { Double(f[i])! }
            return HxMExpectedRow(
                offset: int(0), firmwareID: int(2), firmwareVersion: f[3], hardwareID: int(4),
                hardwareVersion: f[5], battery: int(6), heartRate: int(7), beatNumber: int(8),
                newestTimestamp: int(9), secondTimestamp: int(10), distanceMeters: double(11), speed: double(12),
                strides: int(13), cadenceRaw: int(14))
        }
    }

    /// Every difference between the decoded packet and this row, named.
    func differences(_ p: HxMGeneralData) -> [String] {
        var out: [String] = []
        func check(_ name: String, _ got: Int, _ want: Int) {
            if got != want { out.append("\(name) \(got) ≠ \(want)") }
        }
        func check(_ name: String, _ got: String, _ want: String) {
            if got != want { out.append("\(name) \(got) ≠ \(want)") }
        }
        check("firmware id", Int(p.firmwareID), firmwareID)
        check("firmware version", p.firmwareVersion, firmwareVersion)
        check("hardware id", Int(p.hardwareID), hardwareID)
        check("hardware version", p.hardwareVersion, hardwareVersion)
        check("battery", Int(p.battery), battery)
        check("heart rate", Int(p.heartRate), heartRate)
        check("beat number", Int(p.heartBeatNumber), beatNumber)
        check("newest beat", Int(p.heartBeatTimestamps[0]), newestTimestamp)
        check("second beat", Int(p.heartBeatTimestamps[1]), secondTimestamp)
        if abs(p.distanceMeters - distanceMeters) > 1e-9 {
            out.append("distance \(p.distanceMeters) ≠ \(distanceMeters)")
        }
        // The file prints speed with 6 decimals.
        if abs(p.speedMetersPerSecond - speed) > 1e-6 { out.append("speed \(p.speedMetersPerSecond) ≠ \(speed)") }
        check("strides", Int(p.strides), strides)
        check("cadence raw", Int(p.cadenceRaw), cadenceRaw)
        return out
    }
}

/// Decodes a whole byte sequence fed in the given chunk sizes (cycled), returning each General
/// Data Packet with its offset.
func decodeHxM(_ bytes: [UInt8], chunks: [Int]) throws -> (packets: [(Int, HxMGeneralData)], framer: ZephyrFramer) {
    var framer = ZephyrFramer()
    var packets: [(Int, HxMGeneralData)] = []
    var index = 0
    var chunk = 0
    while index < bytes.count {
        let size = max(1, chunks[chunk % chunks.count])
        let end = min(bytes.count, index + size)
        try framer.append(bytes[index..<end]) { frame in
            packets.append((frame.offset, try HxMGeneralData(frame: frame)))
        }
        index = end
        chunk += 1
    }
    return (packets, framer)
}

@Suite(
    "Zephyr HxM frames from the real 120-second stream",
    .enabled(if: Fixtures.available, "needs ../shared/fixtures"))
struct ZephyrHxMFixtureTests {
    let stream: [UInt8]
    let expected: [HxMExpectedRow]

    init() throws {
        stream = [UInt8](try Fixtures.data("rfcomm/zephyr-hxm/120-second-bt-stream-hxm.dat"))
        expected = try HxMExpectedRow.load()
    }

    func expectMatches(_ packets: [(Int, HxMGeneralData)], checkOffsets: Bool, _ label: String) {
        #expect(packets.count == expected.count, "\(label): \(packets.count) frames, \(expected.count) expected")
        for (row, (offset, packet)) in zip(expected, packets) {
            if checkOffsets { #expect(offset == row.offset, "\(label): frame at \(offset), expected \(row.offset)") }
            let differences = row.differences(packet)
            #expect(differences.isEmpty, "\(label): frame \(row.offset): \(differences.joined(separator: ", "))")
        }
    }

    @Test("Fed whole, every frame decodes to the expected HR, battery, beats, distance, speed and strides")
    func whole() throws {
        #expect(expected.count == 142)
        let (packets, framer) = try decodeHxM(stream, chunks: [stream.count])
        expectMatches(packets, checkOffsets: true, "whole")
        #expect(framer.badCRCs == 0)
        #expect(framer.droppedBytes == 0, "the trailing STX is kept for the next read, not dropped")
    }

    @Test("Fed byte by byte, the frames are the same")
    func byteByByte() throws {
        let (packets, _) = try decodeHxM(stream, chunks: [1])
        expectMatches(packets, checkOffsets: true, "byte by byte")
    }

    @Test("Fed in random chunks (several seeds), the frames are the same")
    func randomChunks() throws {
        for seed in 1...8 as ClosedRange<UInt64> {
            var random = SeededRandom(seed: seed)
            let chunks = (0..<200).map { _ in Int.random(in: 1...130, using: &random) }
            let (packets, _) = try decodeHxM(stream, chunks: chunks)
            expectMatches(packets, checkOffsets: true, "chunks seed \(seed)")
        }
    }

    @Test("With garbage between frames (incl. false STX, bad CRCs and long lengths), every frame is found")
    func garbageBetweenFrames() throws {
        var random = SeededRandom(seed: 42)
        var noisy: [UInt8] = []
        let frameLength = 60
        var inserted = 0
        for start in stride(from: 0, to: stream.count - frameLength + 1, by: frameLength) {
            var garbage = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            switch start / frameLength % 4 {
            case 0: garbage += [0x02, 0x26, 0x37]  // a header whose frame never comes: the next STX is inside it
            case 1:  // a whole frame with one bit flipped: its CRC fails
                var corrupt = Array(stream[start..<(start + frameLength)])
                corrupt[20] ^= 0x10
                garbage += corrupt
            case 2: garbage += [0x02, 0xFF, 0xF0]  // an impossible length
            default: break
            }
            inserted += garbage.count
            noisy += garbage + stream[start..<(start + frameLength)]
        }
        let (packets, framer) = try decodeHxM(noisy, chunks: [7, 1, 64, 3, 200])
        expectMatches(packets, checkOffsets: false, "with garbage")
        #expect(framer.badCRCs >= 35, "the corrupted copies fail their CRC")
        #expect(framer.droppedBytes == inserted)
    }

    @Test("RR intervals come from consecutive beat timestamps and agree with the heart rate")
    func rrIntervalsFromBeats() throws {
        let (packets, _) = try decodeHxM(stream, chunks: [stream.count])
        var previous: HxMGeneralData?
        var total = 0
        var ratios: [Double] = []
        for (_, packet) in packets {
            let rr = packet.newRRIntervalsMilliseconds(since: previous)
            if let previous {
                let newBeats = Int(packet.heartBeatNumber &- previous.heartBeatNumber)
                #expect(rr.count == min(newBeats, 14))
                // The newest interval is the newest two timestamps' difference.
                if let last = rr.last {
                    #expect(last == packet.heartBeatTimestamps[0] &- packet.heartBeatTimestamps[1])
                }
                for interval in rr where packet.heartRate > 0 {
                    ratios.append(Double(interval) / (60_000 / Double(packet.heartRate)))
                }
            } else {
                #expect(rr.isEmpty, "no intervals without a previous packet")
            }
            total += rr.count
            previous = packet
        }
        #expect(total > 100, "a 2-minute stream has well over 100 beats")
        let median = ratios.sorted()[ratios.count / 2]
        #expect(abs(median - 1) < 0.1, "median RR / (60 s / HR) = \(median)")
    }

    @Test("Other Zephyr messages (a BioHarness stream) frame with valid CRCs and are not taken for HxM data")
    func otherMessages() throws {
        let bioharness = [UInt8](try Fixtures.data("rfcomm/zephyr-hxm/120-second-bt-stream.dat"))
        var framer = ZephyrFramer()
        var ids: Set<UInt8> = []
        var rejected = 0
        framer.append(bioharness) { frame in
            ids.insert(frame.messageID)
            if (try? HxMGeneralData(frame: frame)) == nil { rejected += 1 }
        }
        #expect(framer.frames > 1400)
        #expect(framer.badCRCs == 0)
        #expect(rejected == framer.frames)
        #expect(!ids.contains(HxMGeneralData.messageID))
    }
}

@Suite("Zephyr HxM framing without fixtures")
struct ZephyrFramerTests {
    static let packet = HxMGeneralData(
        battery: 87, heartRate: 142, heartBeatNumber: 3,
        heartBeatTimestamps: [2100, 1680, 1260, 840, 420, 0] + Array(repeating: 0, count: 9),
        distance16ths: 1205, speed256ths: 768, strides: 46, cadenceRaw: 2720)

    @Test("A frame we encode carries the published layout and decodes back")
    func roundTrip() throws {
        let frame = Self.packet.encodedFrame()
        #expect(frame.count == 60)
        #expect(Array(frame.prefix(3)) == [0x02, 0x26, 0x37])
        #expect(frame[59] == 0x03)
        #expect(frame[3 + 9] == 142, "heart rate at data byte 9")
        #expect(Array(frame[(3 + 47)...(3 + 48)]) == [0xB5, 0x04], "distance 1205 little-endian at data byte 47")
        var framer = ZephyrFramer()
        var decoded: [HxMGeneralData] = []
        try framer.append(frame) { decoded.append(try HxMGeneralData(frame: $0)) }
        #expect(decoded == [Self.packet])
        #expect(decoded.first?.distanceMeters == 75.3125)
        #expect(decoded.first?.speedMetersPerSecond == 3)
    }

    @Test("CRC-8 (reflected 0x8C, initial 0) gives the check value of the CRC-8/MAXIM catalogue entry")
    func crcCheckValue() {
        // CRC-8/MAXIM-DOW: poly 0x31 (0x8C reflected), init 0, refin/refout, check 0xA1.
        #expect(ZephyrFramer.crc8(Array("123456789".utf8)) == 0xA1)
        #expect(ZephyrFramer.crc8([]) == 0)
    }

    @Test("A bad CRC or a missing ETX rejects the frame and the next one is still found")
    func badChecks() throws {
        var badCRC = Self.packet.encodedFrame()
        badCRC[58] ^= 0xFF
        var noETX = Self.packet.encodedFrame()
        noETX[59] = 0x04
        var framer = ZephyrFramer()
        var count = 0
        try framer.append(badCRC + noETX + Self.packet.encodedFrame()) {
            _ = try HxMGeneralData(frame: $0); count += 1
        }
        #expect(count == 1)
        #expect(framer.badCRCs == 1)
        #expect(framer.droppedBytes == 120)
    }

    @Test("RR intervals wrap with the 16-bit beat clock and the 8-bit beat counter")
    func rrAcrossWrap() {
        let before = HxMGeneralData(
            battery: 80, heartRate: 150, heartBeatNumber: 254,
            heartBeatTimestamps: [65_200, 64_800] + Array(repeating: 0, count: 13))
        let after = HxMGeneralData(
            battery: 80, heartRate: 150, heartBeatNumber: 1,  // three new beats: 255, 0, 1
            heartBeatTimestamps: [664, 264, 65_400 &+ 0, 65_200] + Array(repeating: 0, count: 11))
        #expect(after.newRRIntervalsMilliseconds(since: before) == [200, 400, 400])
        #expect(after.newRRIntervalsMilliseconds(since: after).isEmpty, "no new beats, no intervals")
        let restarted = HxMGeneralData(
            battery: 80, heartRate: 150, heartBeatNumber: 2,
            heartBeatTimestamps: [800, 400, 0] + Array(repeating: 0, count: 12))
        #expect(restarted.newRRIntervalsMilliseconds(since: before).isEmpty, "beats that do not continue: none")
    }

    @Test("Random bytes never trap the Zephyr framer, and every byte is either framed, dropped or kept")
    func randomBytes() async {
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...400)) { bytes in
            var framer = ZephyrFramer()
            var framed = 0
            framer.append(bytes) { frame in
                framed += frame.data.count + 5
                _ = try? HxMGeneralData(frame: frame)
            }
            #expect(framed + framer.droppedBytes <= bytes.count)
        }
    }

    @Test("Any split of a stream of valid frames with noise gives the same frames")
    func anySplit() async {
        let stream = Array(repeating: Self.packet.encodedFrame() + [0x02, 0x00], count: 4).flatMap { $0 }
        let whole = try! decodeHxM(stream, chunks: [stream.count]).packets.map(\.0)
        #expect(whole == [0, 62, 124, 186])
        await propertyCheck(count: 300, input: Gen.int(in: 1...61).array(of: 1...30)) { chunks in
            let split = try! decodeHxM(stream, chunks: chunks).packets.map(\.0)
            #expect(split == whole)
        }
    }
}

/// One example of `rfcomm/polar-wearlink/examples.json`, read with Foundation's parser.
struct PolarExample {
    let id: String
    let bytes: [UInt8]
    let object: [String: Any]

    static func load() throws -> [PolarExample] {
        let root = try JSONSerialization.jsonObject(with: Fixtures.data("rfcomm/polar-wearlink/examples.json"))
        let packets = (root as! [String: Any])["packets"] as! [[String: Any]]
        return try packets.map { entry in
            PolarExample(id: entry["id"] as! String, bytes: try Hex.decode(entry["hex"] as! String), object: entry)
        }
    }

    /// Compares a decoded packet with an `expected` object of the file.
    static func differences(_ packet: PolarWearLinkPacket, _ expected: [String: Any]) -> [String] {
        var out: [String] = []
        if let length = expected["len"] as? Int, length != packet.encoded().count {
            out.append("length \(packet.encoded().count) ≠ \(length)")
        }
        if let sequence = expected["seq"] as? Int, sequence != Int(packet.sequence) {
            out.append("sequence \(packet.sequence) ≠ \(sequence)")
        }
        if let status = expected["status"] as? Int, status != Int(packet.status) {
            out.append("status \(packet.status) ≠ \(status)")
        }
        if let hr = expected["hr"] as? Int, hr != Int(packet.heartRate) { out.append("HR \(packet.heartRate) ≠ \(hr)") }
        if let rr = expected["rr_ms"] as? [Int], rr != packet.rrIntervalsMilliseconds.map(Int.init) {
            out.append("RR \(packet.rrIntervalsMilliseconds) ≠ \(rr)")
        }
        return out
    }
}

func framePolar(_ bytes: [UInt8], chunk: Int = .max) -> [(PolarWearLinkPacket, Int)] {
    var framer = PolarWearLinkFramer()
    var found: [(PolarWearLinkPacket, Int)] = []
    var index = 0
    while index < bytes.count {
        let end = min(bytes.count, index + max(1, min(chunk, bytes.count)))
        framer.append(bytes[index..<end]) { found.append(($0, $1)) }
        index = end
    }
    return found
}

@Suite(
    "Polar WearLink+ packets from the published examples",
    .enabled(if: Fixtures.available, "needs ../shared/fixtures"))
struct PolarWearLinkExampleTests {
    @Test("Every example decodes as listed, whole and byte by byte, and realigns after invalid bytes")
    func examples() throws {
        let examples = try PolarExample.load()
        #expect(examples.count >= 9)
        for example in examples {
            for chunk in [Int.max, 1, 3] {
                let found = framePolar(example.bytes, chunk: chunk)
                let label = "\(example.id) (chunks of \(chunk == .max ? "all" : String(chunk)))"
                if let expected = example.object["expected"] as? [String: Any] {
                    #expect(found.count == 1, "\(label): \(found.count) packets")
                    if let first = found.first {
                        #expect(first.1 == 0)
                        let differences = PolarExample.differences(first.0, expected)
                        #expect(differences.isEmpty, "\(label): \(differences)")
                    }
                }
                if let list = example.object["expected_packets"] as? [[String: Any]] {
                    #expect(found.count == list.count, "\(label): \(found.count) packets")
                    for (packet, expected) in zip(found, list) {
                        let differences = PolarExample.differences(packet.0, expected)
                        #expect(differences.isEmpty, "\(label): \(differences)")
                    }
                }
                if let first = example.object["expected_first"] as? [String: Any] {
                    let differences = found.first.map { PolarExample.differences($0.0, first) } ?? ["none found"]
                    #expect(differences.isEmpty, "\(label): \(differences)")
                }
                if let validAtZero = example.object["valid_at_0"] as? Bool {
                    let atZero = found.first.map { $0.1 == 0 } ?? false
                    #expect(atZero == validAtZero, "\(label): packet at offset 0")
                    let whole = PolarWearLinkPacket(packet: Array(example.bytes.prefix(8)))
                    #expect((whole != nil) == validAtZero, "\(label): the first 8 bytes alone")
                }
                if let alignment = example.object["next_alignment"] as? Int {
                    #expect(found.first?.1 == alignment, "\(label): realigned at \(String(describing: found.first?.1))")
                }
                if example.id == "mytracks_test_no_alignment" {
                    // MyTracks stops scanning 8 bytes before the end; a stream framer must not.
                    #expect(found.map(\.1) == [8], "\(label)")
                }
                if example.id.hasPrefix("mytracks_test_bad") {
                    #expect(found.map(\.1) == [8], "\(label): only the second packet is valid")
                }
            }
        }
    }
}

@Suite("Polar WearLink+ framing without fixtures")
struct PolarWearLinkFramerTests {
    @Test("Packets we encode have the published layout and decode back, RR big-endian")
    func roundTrip() {
        let packet = PolarWearLinkPacket(sequence: 6, status: 0xF1, heartRate: 72, rrIntervalsMilliseconds: [868, 880])
        #expect(packet.encoded() == (try! Hex.decode("FE0AF506F14803640370")))
        #expect(PolarWearLinkPacket(packet: packet.encoded()) == packet)
    }

    @Test("Random bytes never trap the Polar framer, and every byte is either framed, dropped or kept")
    func randomBytes() async {
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...200)) { bytes in
            var framer = PolarWearLinkFramer()
            var framed = 0
            framer.append(bytes) { packet, _ in framed += packet.encoded().count }
            #expect(framed + framer.droppedBytes <= bytes.count)
        }
    }

    @Test("Random header-like bytes (FE, lengths, check bytes) never trap it either")
    func randomHeaders() async {
        let alphabet: [UInt8] = [0xFE, 0x08, 0xF7, 0x10, 0xEF, 0x0F, 0x00, 0xFF]
        let gen = Gen.int(in: 0..<alphabet.count).map { alphabet[$0] }.array(of: 0...120)
        await propertyCheck(count: 2000, input: gen) { bytes in
            var framer = PolarWearLinkFramer()
            framer.append(bytes) { packet, offset in #expect(offset >= 0 && packet.sequence < 16) }
        }
    }
}
