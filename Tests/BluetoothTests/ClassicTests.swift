import BlueZ
import PropertyBased
import SensorCodecs
import TestSupport
import Testing

/// A Serial Port record as a strap's SDP server sends it (Core Vol 3 Part B §3 and §5), written
/// out byte by byte: handle 0x00010005; classes (0x1101); protocols ((L2CAP), (RFCOMM, 5));
/// name "Serial Port" with its NUL.
let serialPortLists =
    "3534 3532"  // the lists, and the one record
    + " 0900 00 0a 00010005"  // ServiceRecordHandle
    + " 0900 01 3503 191101"  // ServiceClassIDList: Serial Port
    + " 0900 04 350c 3503 190100 3505 190003 0805"  // ProtocolDescriptorList: L2CAP; RFCOMM channel 5
    + " 0901 00 250c 53657269616c20506f727400"  // ServiceName

/// A Service Search Attribute Response PDU carrying `lists`, with a continuation state.
func sdpResponse(transaction: UInt16, _ lists: [UInt8], continuation: [UInt8] = []) -> [UInt8] {
    let parameters =
        [UInt8(lists.count >> 8), UInt8(lists.count & 0xFF)] + lists + [UInt8(continuation.count)] + continuation
    return [
        0x07, UInt8(transaction >> 8), UInt8(transaction & 0xFF), UInt8(parameters.count >> 8),
        UInt8(parameters.count & 0xFF),
    ]
        + parameters
}

@Suite("SDP: finding a classic strap's Serial Port channel")
struct SDPTests {
    @Test("The request asks for Serial Port 0x1101 and every attribute, as the spec lays it out")
    func request() throws {
        let request = SDP.serviceSearchAttributeRequest(uuid: SDP.serialPort, transaction: 7)
        #expect(request == (try Hex.decode("06 0007 000f 3503191101 0400 35050a0000ffff 00")))
        let again = SDP.serviceSearchAttributeRequest(uuid: SDP.serialPort, transaction: 8, continuation: [0xAA, 0xBB])
        #expect(Array(again.suffix(3)) == [0x02, 0xAA, 0xBB])
        #expect(again[4] == 0x11, "the parameter length counts the continuation state")
    }

    @Test("A Serial Port record yields RFCOMM channel 5 and its name, whole or across continuations")
    func serialPortRecord() throws {
        let lists = try Hex.decode(serialPortLists)
        let (part, continuation) = try SDP.parseResponse(sdpResponse(transaction: 1, lists), transaction: 1)
        #expect(continuation.isEmpty)
        let records = try SDP.parseRecords(part)
        #expect(records.count == 1)
        #expect(records.first?.serviceClasses == [BluetoothUUID(0x1101)])
        #expect(records.first?.rfcommChannel == 5)
        #expect(records.first?.name == "Serial Port")
        #expect(records.first?.attributes[SDP.serviceRecordHandle] == .unsigned(0x0001_0005, bytes: 4))

        // The same lists in two PDUs: the first says where to continue.
        let first = try SDP.parseResponse(
            sdpResponse(transaction: 1, Array(lists[..<20]), continuation: [1, 2, 3, 4]), transaction: 1)
        #expect(first.continuation == [1, 2, 3, 4])
        let second = try SDP.parseResponse(sdpResponse(transaction: 2, Array(lists[20...])), transaction: 2)
        #expect(try SDP.parseRecords(first.part + second.part) == records)
    }

    @Test("Encoding an element and reading it back gives the same element (128-bit UUIDs, signed, text, nesting)")
    func elementsRoundTrip() throws {
        let element = SDP.Element.sequence([
            .uuid(BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")!), .signed(-3, bytes: 1), .text("Polar iWL"),
            .bool(true), .alternative([.unsigned(1, bytes: 2), .null]), .url("http://x"),
        ])
        let lists = SDP.Element.sequence([.sequence([.unsigned(0x0100, bytes: 2), element])]).encoded()
        let records = try SDP.parseRecords(lists)
        #expect(records.first?.attributes[0x0100] == element)
    }

    @Test("Error responses and malformed answers give a clear error, never a trap")
    func badResponses() throws {
        #expect(throws: SDP.Failure.errorResponse(code: 3)) {
            try SDP.parseResponse([0x01, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03], transaction: 1)
        }
        #expect(throws: SDP.Failure.unexpectedPDU(id: 0x07, transaction: 9)) {
            try SDP.parseResponse(sdpResponse(transaction: 9, []), transaction: 1)
        }
        let lists = try Hex.decode(serialPortLists)
        for cut in [1, 5, 30, 53] {
            #expect(throws: SDP.Failure.self, "lists cut at \(cut)") { try SDP.parseRecords(Array(lists[..<cut])) }
        }
        var overrun = lists
        overrun[1] = 0x60  // the outer sequence claims more than there is
        #expect(throws: SDP.Failure.self) { try SDP.parseRecords(overrun) }
        // A hostile nesting 100 deep stops at the depth limit.
        var nested: [UInt8] = [0x35, 0x00]
        for _ in 0..<100 { nested = [0x35, UInt8(min(nested.count, 255))] + nested }
        #expect(throws: SDP.Failure.self) { try SDP.parseRecords(nested) }
        // A record whose attribute id is not a 16-bit integer.
        #expect(throws: SDP.Failure.self) { try SDP.parseRecords(try Hex.decode("3506 3504 0801 0800")) }
        // A Protocol Descriptor List without RFCOMM has no channel; a channel of 0 or over 30 is none.
        let noChannel = try SDP.parseRecords(try Hex.decode("3508 3506 0900 04 3501 00"))
        #expect(noChannel.first?.rfcommChannel == nil)
        let channel40 = try SDP.parseRecords(try Hex.decode("350e 350c 090004 3507 3505 190003 0828"))
        #expect(channel40.first?.rfcommChannel == nil)
    }

    @Test("Random bytes never trap the SDP parsers")
    func randomBytes() async {
        await propertyCheck(count: 3000, input: Gen.uint8().array(of: 0...80)) { bytes in
            _ = try? SDP.parseRecords(bytes)
            _ = try? SDP.parseResponse(bytes, transaction: 1)
            // Bytes behind a plausible header, so that the element reader itself is exercised.
            _ = try? SDP.parseRecords([0x35, UInt8(bytes.count & 0xFF)] + bytes)
        }
    }
}

@Suite("Classic inquiry results, parsed from scripted HCI events (every layout; the VM's controller sends one)")
struct InquiryEventTests {
    static let hxm = BluetoothAddress("00:07:80:12:34:56")!
    static let polar = BluetoothAddress("00:22:D0:AB:CD:EF")!

    @Test("Inquiry Result with RSSI, Extended Inquiry Result and Remote Name Request Complete make one list")
    func scriptedInquiry() throws {
        var results = InquiryResults()
        // Inquiry Result with RSSI (0x22): one device, class 0x000918 (health, heart-rate monitor), −60 dBm.
        let withRSSI = [1] + Self.hxm.littleEndian + [0x01, 0x00, 0x18, 0x09, 0x00, 0x34, 0x12, 0xC4]
        results.add(InquiryEvent(code: 0x22, parameters: withRSSI))
        // Extended Inquiry Result (0x2F): the Polar strap with its name in the EIR, −71 dBm.
        var eir: [UInt8] = [10, 0x09] + Array("Polar iWL".utf8) + [3, 0x03, 0x01, 0x11]
        eir += [UInt8](repeating: 0, count: 240 - eir.count)
        let extended = [1] + Self.polar.littleEndian + [0x01, 0x00, 0x04, 0x07, 0x00, 0x00, 0x00, 0xB9] + eir
        results.add(InquiryEvent(code: 0x2F, parameters: extended))
        // The same HxM again with a stronger signal, then the end of the inquiry.
        results.add(InquiryEvent(code: 0x22, parameters: Array(withRSSI.dropLast()) + [0xCE]))
        results.add(InquiryEvent(code: 0x01, parameters: [0x00]))
        #expect(results.complete && results.failure == nil)
        #expect(results.unnamed == [Self.hxm])
        // Remote Name Request Complete (0x07) for the HxM.
        let name = [0x00] + Self.hxm.littleEndian + Array("HXM026001".utf8) + [UInt8](repeating: 0, count: 239)
        results.add(InquiryEvent(code: 0x07, parameters: name))

        let list = results.sorted
        #expect(list.map(\.address) == [Self.hxm, Self.polar], "strongest first")
        #expect(list[0].name == "HXM026001" && list[0].rssi == -50)
        #expect(list[0].classOfDevice.rawValue == 0x000918)
        #expect(list[0].classOfDevice.description == "0x000918 (health, heart/pulse rate monitor)")
        #expect(list[1].name == "Polar iWL" && list[1].rssi == -71)
        #expect(list[1].serviceUUIDs == [BluetoothUUID(0x1101)])
        #expect(list[1].classOfDevice.majorName == "wearable")
    }

    @Test("Plain Inquiry Results, the older 15-byte RSSI layout, failures and short events")
    func otherLayouts() throws {
        // Inquiry Result (0x02): two devices, 14 bytes each, no RSSI.
        let two =
            [2] + Self.hxm.littleEndian + [1, 0, 0, 0x18, 0x09, 0x00, 0, 0] + Self.polar.littleEndian
            + [1, 0, 0, 0x04, 0x07, 0x00, 0, 0]
        #expect(
            InquiryEvent(code: 0x02, parameters: two)
                == .found([
                    InquiryResult(address: Self.hxm, classOfDevice: ClassOfDevice(rawValue: 0x000918)),
                    InquiryResult(address: Self.polar, classOfDevice: ClassOfDevice(rawValue: 0x000704)),
                ]))
        // Inquiry Result with RSSI in the 15-byte layout (a reserved byte before the class).
        let old = [1] + Self.hxm.littleEndian + [1, 0, 0, 0x18, 0x09, 0x00, 0, 0, 0xD8]
        #expect(
            InquiryEvent(code: 0x22, parameters: old)
                == .found([
                    InquiryResult(address: Self.hxm, classOfDevice: ClassOfDevice(rawValue: 0x000918), rssi: -40)
                ]))
        // A count the bytes do not hold gives no devices rather than reading past the end.
        #expect(InquiryEvent(code: 0x02, parameters: [3] + Self.hxm.littleEndian) == .found([]))
        #expect(InquiryEvent(code: 0x22, parameters: [0]) == .found([]))
        #expect(InquiryEvent(code: 0x2F, parameters: [1, 2, 3]) == .other(code: 0x2F))
        // The controller refused the inquiry (Command Status 0x0C for opcode 0x0401).
        var refused = InquiryResults()
        refused.add(InquiryEvent(code: 0x0F, parameters: [0x0C, 1, 0x01, 0x04]))
        #expect(refused.complete && refused.failure == 0x0C)
        // A failed name request keeps the device nameless.
        var named = InquiryResults()
        named.add(
            InquiryEvent(code: 0x02, parameters: [1] + Self.hxm.littleEndian + [1, 0, 0, 0x18, 0x09, 0x00, 0, 0]))
        named.add(InquiryEvent(code: 0x07, parameters: [0x04] + Self.hxm.littleEndian + [0x41, 0]))
        #expect(named.unnamed == [Self.hxm])
    }

    @Test("Random event bytes never trap the inquiry parser")
    func randomEvents() async {
        await propertyCheck(count: 3000, input: Gen.uint8().array(of: 0...260)) { bytes in
            for code: UInt8 in [0x01, 0x02, 0x07, 0x0F, 0x22, 0x2F] {
                var results = InquiryResults()
                results.add(InquiryEvent(code: code, parameters: bytes))
                _ = results.sorted
            }
        }
    }
}

@Suite("Answering the kernel's pairing requests on the mgmt socket")
struct PairingRequestTests {
    static let hxm = BluetoothAddress("00:07:80:12:34:56")!

    @Test("A PIN Code Request is answered with PIN Code Reply: address, type, length and 16 bytes of PIN")
    func pinCode() throws {
        let event = Self.hxm.littleEndian + [0x00, 0x00]
        let request = try #require(PairingRequest(event: 0x000E, parameters: event))
        #expect(request == .pinCode(Self.hxm, addressType: 0, secure: false))
        let reply = try #require(request.reply(pin: "1234"))
        #expect(reply.opcode == 0x0016)
        #expect(
            reply.parameters == Self.hxm.littleEndian + [0x00, 4] + Array("1234".utf8)
                + [UInt8](repeating: 0, count: 12))
        #expect(request.reply(pin: "") == nil && request.reply(pin: String(repeating: "9", count: 17)) == nil)
    }

    @Test("A User Confirmation Request (just works) is confirmed; failures and other events are read, not answered")
    func confirmation() throws {
        let event = Self.hxm.littleEndian + [0x00, 0x01, 0x40, 0xE2, 0x01, 0x00]
        let request = try #require(PairingRequest(event: 0x000F, parameters: event))
        #expect(request == .confirmation(Self.hxm, addressType: 0, justWorks: true, value: 123_456))
        #expect(request.reply(pin: nil)?.opcode == 0x001C)
        #expect(request.reply(pin: nil)?.parameters == Self.hxm.littleEndian + [0x00])
        let failed = try #require(PairingRequest(event: 0x0011, parameters: Self.hxm.littleEndian + [0x00, 0x05]))
        #expect(failed == .failed(Self.hxm, status: 0x05) && failed.reply(pin: "1234") == nil)
        #expect(PairingRequest(event: 0x000E, parameters: [1, 2, 3]) == nil)
        #expect(PairingRequest(event: 0x0006, parameters: event) == nil)
    }
}
