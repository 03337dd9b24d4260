import BlueZ
import GATT
import PropertyBased
import SensorCodecs
import Testing

/// Advertising data (Core Vol 3 Part C §11, CSS Part A), HCI LE advertising reports (Core Vol 4
/// Part E §7.7.65.2 and .13), and the smaller GATT values, decoded from bytes laid out as the
/// specifications and btmon show them.
@Suite("Advertising data, HCI advertising reports and GATT values")
struct AdvertisingTests {
    /// A heart-rate strap's advertisement: flags 0x06, incomplete list with 0x180D, appearance
    /// 0x0341 (heart-rate belt), TX power +4 dBm, manufacturer data for company 0x006B (Polar),
    /// and a shortened name.
    static let strapAdvertisement: [UInt8] = try! Hex.decode(
        "020106 03020d18 03194103 020a04 05ff6b003302 0608506f6c6172")
    /// Its scan response: the complete name.
    static let strapScanResponse: [UInt8] = try! Hex.decode("1309506f6c617220483130203132333435363738")

    @Test("AD structures give flags, 16-bit UUIDs, appearance, TX power, manufacturer data and name")
    func advertisingData() throws {
        var data = try AdvertisingData(decoding: Self.strapAdvertisement)
        #expect(data.flags == 0x06)
        #expect(data.serviceUUIDs == [.heartRate])
        #expect(data.appearance == 0x0341)
        #expect(data.txPower == 4)
        #expect(data.manufacturerData[0x006B] == [0x33, 0x02])
        #expect(data.name == "Polar" && !data.nameIsComplete)
        try data.merge(Self.strapScanResponse)
        #expect(data.name == "Polar H10 12345678" && data.nameIsComplete)
        // A shortened name after the complete one does not replace it.
        try data.merge(try Hex.decode("0408506f6c"))
        #expect(data.name == "Polar H10 12345678")
    }

    @Test("128-bit and 32-bit service UUIDs are read little-endian; a zero length ends the data")
    func longUUIDs() throws {
        let data = try AdvertisingData(
            decoding: try Hex.decode("1107 9ecadc240ee5a9e093f3a3b50100406e 0504 78563412 00 ffffffff"))
        #expect(
            data.serviceUUIDs == [
                BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")!, BluetoothUUID(uint32: 0x1234_5678),
            ])
        #expect(data.serviceUUIDs[0].description == "6e400001-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(BluetoothUUID.heartRate.description == "180D")
    }

    @Test("A structure that runs past the end, or a fixed-size field of the wrong size, is an error")
    func malformedAdvertisingData() {
        #expect(throws: AdvertisingDataError.structureOverrun(offset: 3, length: 5, available: 2)) {
            try AdvertisingData(decoding: try Hex.decode("020106 05030d"))
        }
        #expect(throws: AdvertisingDataError.badLength(type: 0x19, length: 1, offset: 0)) {
            try AdvertisingData(decoding: try Hex.decode("021941"))
        }
        #expect(throws: AdvertisingDataError.badLength(type: 0x03, length: 3, offset: 0)) {
            try AdvertisingData(decoding: try Hex.decode("04030d1814"))
        }
    }

    @Test("Encoding then decoding advertising data gives the same fields")
    func advertisingRoundTrip() throws {
        var data = AdvertisingData()
        data.flags = 0x06
        data.serviceUUIDs = [.runningSpeedAndCadence, .battery]
        data.appearance = 0x0443
        data.txPower = -8
        data.name = "Handoff Footpod"
        data.nameIsComplete = true
        #expect(try AdvertisingData(decoding: data.encoded()) == data)
    }

    @Test("Random bytes never trap the advertising data, HCI report and ATT decoders")
    func randomBytesNeverTrap() async {
        await propertyCheck(count: 3000, input: Gen.uint8().array(of: 0...64)) { bytes in
            _ = try? AdvertisingData(decoding: bytes)
            _ = try? LEAdvertisingReport.reports(inPacket: [0x04, 0x3E, UInt8(bytes.count)] + bytes)
            _ = try? LEAdvertisingReport.reports(inPacket: [0x04, 0x3E, UInt8(bytes.count), 0x0D] + bytes)
            if let pdu = try? ATTPDU(decoding: bytes) {
                // Whatever decodes re-encodes to a PDU that decodes to the same thing.
                #expect((try? ATTPDU(decoding: pdu.encoded())) == pdu)
            }
            _ = try? CSCMeasurement(decoding: bytes)
            _ = try? BatteryLevel(decoding: bytes)
        }
    }

    @Test("A legacy LE Advertising Report event (subevent 0x02) as a raw HCI socket reads it")
    func legacyReport() throws {
        // 04 3E len | 02 | 1 report | ADV_IND, public, F0:F0:F0:00:00:01 | data | RSSI -60
        let data = Self.strapAdvertisement
        let packet: [UInt8] =
            [0x04, 0x3E, UInt8(1 + 1 + 1 + 1 + 6 + 1 + data.count + 1), 0x02, 0x01, 0x00, 0x00]
            + [0x01, 0x00, 0x00, 0xF0, 0xF0, 0xF0] + [UInt8(data.count)] + data + [0xC4]
        let reports = try LEAdvertisingReport.reports(inPacket: packet)
        #expect(reports.count == 1)
        let r = try #require(reports.first)
        #expect(r.address.description == "F0:F0:F0:00:00:01")
        #expect(r.addressType == .lePublic)
        #expect(r.connectable && !r.isScanResponse)
        #expect(r.rssi == -60)
        #expect(r.data == data)
    }

    @Test("An LE Extended Advertising Report (subevent 0x0D) with a scan response from a random address")
    func extendedReport() throws {
        let data = Self.strapScanResponse
        var report: [UInt8] = [0x1B, 0x00]  // legacy SCAN_RSP to ADV_IND, as an extended event type
        report += [0x01] + [0x11, 0x22, 0x33, 0x44, 0x55, 0xC6]  // random static C6:55:44:33:22:11
        report += [0x01, 0x00, 0xFF, 0x7F, 0xB0]  // 1M, no secondary PHY, no SID, no TX power, RSSI -80
        report += [0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 6) + [UInt8(data.count)] + data
        let packet: [UInt8] = [0x04, 0x3E, UInt8(2 + report.count), 0x0D, 0x01] + report
        let r = try #require(try LEAdvertisingReport.reports(inPacket: packet).first)
        #expect(r.address.description == "C6:55:44:33:22:11")
        #expect(r.addressType == .leRandom)
        #expect(r.isScanResponse && r.connectable)
        #expect(r.rssi == -80)
        #expect(try AdvertisingData(decoding: r.data).name == "Polar H10 12345678")
    }

    @Test("Truncated reports throw; events that are not LE advertising reports give none")
    func truncatedReports() throws {
        #expect(throws: HCIEventError.self) {
            try LEAdvertisingReport.reports(inPacket: [0x04, 0x3E, 0x0C, 0x02, 0x01, 0x00, 0x00, 0x01, 0x00])
        }
        #expect(throws: HCIEventError.self) {
            try LEAdvertisingReport.reports(inPacket: [0x04, 0x3E, 0x05, 0x02, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00])
        }
        #expect(try LEAdvertisingReport.reports(inPacket: [0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00]).isEmpty)
        #expect(try LEAdvertisingReport.reports(inPacket: [0x04, 0x3E, 0x02, 0x01, 0x00]).isEmpty)
    }

    @Test("A scan merges a device's advertisements and scan responses and keeps its strongest RSSI")
    func scanMerge() throws {
        let address = BluetoothAddress("F0:F0:F0:00:00:01")!
        var results = ScanResults()
        results.add(
            LEAdvertisingReport(
                address: address, addressType: .lePublic, connectable: true, isScanResponse: false, rssi: -70,
                data: Self.strapAdvertisement))
        results.add(
            LEAdvertisingReport(
                address: address, addressType: .lePublic, connectable: false, isScanResponse: true, rssi: -62,
                data: Self.strapScanResponse))
        results.add(
            LEAdvertisingReport(
                address: address, addressType: .lePublic, connectable: true, isScanResponse: false, rssi: nil,
                data: [0x05, 0x09, 0x41]))  // malformed: kept out
        #expect(results.devices.count == 1)
        let device = results.devices[0]
        #expect(device.advertising.name == "Polar H10 12345678")
        #expect(device.rssi == -62 && device.connectable)
        #expect(device.reports == 3 && device.malformedReports == 1)
    }

    @Test("Addresses parse either case and print upper-case, most significant byte first")
    func addresses() {
        let a = BluetoothAddress("f0:f0:f0:00:00:0a")
        #expect(a?.description == "F0:F0:F0:00:00:0A")
        #expect(a?.littleEndian == [0x0A, 0x00, 0x00, 0xF0, 0xF0, 0xF0])
        #expect(BluetoothAddress("F0:F0:F0:00:00") == nil)
        #expect(BluetoothAddress("Handoff HR") == nil)
    }

    @Test("CSC Measurement 0x2A5B: wheel and crank revolutions, rates across a wrap of the event time")
    func csc() throws {
        let a = try CSCMeasurement(decoding: try Hex.decode("03 10270000 00fc 6400 00fc"))
        #expect(a.wheel == .init(count: 10_000, lastEventTime1024ths: 0xFC00))
        #expect(a.crank == .init(count: 100, lastEventTime1024ths: 0xFC00))
        // The wheel's clock wraps past 0xFFFF: 1,024 ticks, one second, for 2 revolutions; the
        // crank's does not yet: 512 ticks for one turn, 120 a minute.
        let b = CSCMeasurement(
            wheel: .init(count: 10_002, lastEventTime1024ths: 0x0000),
            crank: .init(count: 101, lastEventTime1024ths: 0xFE00))
        let rates = b.rates(since: a)
        #expect(rates.wheelPerSecond == 2)
        #expect(rates.crankPerMinute == 120)
        // Then the crank's clock wraps: 0xFE00 to 0x0200 is 1,024 ticks for one turn.
        let c = CSCMeasurement(crank: .init(count: 102, lastEventTime1024ths: 0x0200))
        #expect(c.rates(since: b).crankPerMinute == 60)
        #expect(c.rates(since: b).wheelPerSecond == nil)
        #expect(try CSCMeasurement(decoding: b.encoded()) == b)
        #expect(throws: GATTValueError.self) { try CSCMeasurement(decoding: [0x01, 0x10, 0x27]) }
    }

    @Test("Battery Level is 0–100 %; location and feature values decode; device strings lose NUL padding")
    func smallValues() throws {
        #expect(try BatteryLevel(decoding: [87]).percent == 87)
        #expect(throws: GATTValueError.outOfRange(field: "battery level", value: 101)) {
            try BatteryLevel(decoding: [101])
        }
        #expect(throws: GATTValueError.self) { try BatteryLevel(decoding: []) }
        #expect(try SensorLocation(decoding: [1]).description == "chest")
        #expect(try RSCFeature(decoding: [0x03, 0x00]) == [.strideLength, .totalDistance])
        #expect(DeviceInformationString.decode(Array("HR-1".utf8) + [0, 0]) == "HR-1")
    }
}
