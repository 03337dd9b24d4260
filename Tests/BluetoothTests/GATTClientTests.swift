import BlueZ
import GATT
import SensorCodecs
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The GATT client against scripted ATT PDUs on the other end of a SEQPACKET socket pair, with
/// no kernel Bluetooth involved. Test names carry the Bluetooth SIG's GATT client test IDs
/// (GATT.TS) where one applies. The scripted server is a heart-rate strap:
///
///     0x0001–0x0007  Generic Access 0x1800
///     0x0008–0x000B  Generic Attribute 0x1801
///     0x000C–0x0011  Heart Rate 0x180D: 0x000D decl → 0x000E HRM 0x2A37 (notify), 0x000F CCCD,
///                    0x0010 decl → 0x0011 Body Sensor Location 0x2A38 (read)
///     0x0012–0x0015  Battery 0x180F: 0x0013 decl → 0x0014 Battery Level 0x2A19 (read, notify), 0x0015 CCCD
@Suite("GATT client over a socket pair with scripted ATT PDUs")
struct GATTClientTests {
    static let discoverServices: [ScriptedATTServer.Step] = [
        .expect("10 0100 ffff 0028"),
        .send("11 06 0100 0700 0018 0800 0b00 0118 0c00 1100 0d18"),
        .expect("10 1200 ffff 0028"),
        .send("11 06 1200 1500 0f18"),
        .expect("10 1600 ffff 0028"),
        .send("01 10 1600 0a"),
    ]

    static let discoverHeartRateCharacteristics: [ScriptedATTServer.Step] = [
        .expect("08 0c00 1100 0328"),
        .send("09 07 0d00 10 0e00 372a 1000 02 1100 382a"),
        .expect("08 1100 1100 0328"),
        .send("01 08 1100 0a"),
    ]

    @Test("GATT/CL/GAC/BV-01-C: Exchange MTU agrees on the smaller of the two MTUs")
    func exchangeMTU() throws {
        let server = ScriptedATTServer([.expect("02 f700"), .send("03 4000")])
        let client = makeClient(server)
        #expect(try client.exchangeMTU() == 64)
        #expect(client.mtu == 64)
        #expect(server.finish() == [])
    }

    @Test("Exchange MTU: a server that does not support it leaves the MTU at 23")
    func exchangeMTUNotSupported() throws {
        let server = ScriptedATTServer([.expect("02 f700"), .send("01 02 0000 06")])
        let client = makeClient(server)
        #expect(try client.exchangeMTU() == 23)
        #expect(server.finish() == [])
    }

    @Test("GATT/CL/GAD/BV-01-C: Discover All Primary Services walks the handle range until Attribute Not Found")
    func discoverPrimaryServices() throws {
        let server = ScriptedATTServer(Self.discoverServices)
        let services = try makeClient(server).discoverPrimaryServices()
        #expect(
            services == [
                GATTService(uuid: .genericAccess, startHandle: 0x0001, endHandle: 0x0007),
                GATTService(uuid: .genericAttribute, startHandle: 0x0008, endHandle: 0x000B),
                GATTService(uuid: .heartRate, startHandle: 0x000C, endHandle: 0x0011),
                GATTService(uuid: .battery, startHandle: 0x0012, endHandle: 0x0015),
            ])
        #expect(server.finish() == [])
    }

    @Test("Discover All Primary Services stops at a group ending at 0xFFFF, with 128-bit UUIDs too")
    func discoverServicesEndingAtFFFF() throws {
        let server = ScriptedATTServer([
            .expect("10 0100 ffff 0028"),
            .send("11 14 0100 ffff 9ecadc240ee5a9e093f3a3b50100406e"),
        ])
        let services = try makeClient(server).discoverPrimaryServices()
        #expect(services.count == 1)
        #expect(services.first?.uuid == BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e"))
        #expect(server.finish() == [])
    }

    @Test("GATT/CL/GAD/BV-04-C: Discover All Characteristics of a Service, each ending before the next declaration")
    func discoverCharacteristics() throws {
        let server = ScriptedATTServer(Self.discoverHeartRateCharacteristics)
        let service = GATTService(uuid: .heartRate, startHandle: 0x000C, endHandle: 0x0011)
        let characteristics = try makeClient(server).discoverCharacteristics(of: service)
        #expect(
            characteristics == [
                GATTCharacteristic(
                    uuid: .heartRateMeasurement, declarationHandle: 0x000D, valueHandle: 0x000E, properties: .notify,
                    endHandle: 0x000F),
                GATTCharacteristic(
                    uuid: .bodySensorLocation, declarationHandle: 0x0010, valueHandle: 0x0011, properties: .read,
                    endHandle: 0x0011),
            ])
        #expect(server.finish() == [])
    }

    @Test("GATT/CL/GAD/BV-06-C and GAN/BV-01-C: subscribing finds the CCCD, writes 0x0001, then notifications arrive")
    func subscribeAndNotify() throws {
        let server = ScriptedATTServer([
            .expect("04 0f00 0f00"),
            .send("05 01 0f00 0229"),
            .expect("12 0f00 0100"),
            .send("13"),
            .send("1b 0e00 16 78 5604"),
            .send("1b 0e00 00 79"),
        ])
        let client = makeClient(server)
        let hrm = GATTCharacteristic(
            uuid: .heartRateMeasurement, declarationHandle: 0x000D, valueHandle: 0x000E, properties: .notify,
            endHandle: 0x000F)
        let cccd = try client.subscribe(hrm)
        #expect(cccd.handle == 0x000F)
        let first = try #require(try client.nextValue(timeout: 2))
        #expect(first == GATTValue(handle: 0x000E, value: [0x16, 0x78, 0x56, 0x04]))
        let decoded = try HeartRateMeasurement(decoding: first.value)
        #expect(decoded.heartRate == 120 && decoded.rrIntervals1024ths == [0x0456])
        #expect(try client.nextValue(timeout: 2)?.value == [0x00, 0x79])
        #expect(try client.nextValue(timeout: 0.1) == nil)
        #expect(server.finish() == [])
    }

    @Test("GATT/CL/GAI/BV-01-C: an indication is confirmed at once and handed out like a notification")
    func indicationsAreConfirmed() throws {
        let server = ScriptedATTServer([
            .send("1d 1400 57"),
            .expect("1e"),
        ])
        let client = makeClient(server)
        #expect(try client.nextValue(timeout: 2) == GATTValue(handle: 0x0014, value: [0x57], isIndication: true))
        #expect(server.finish() == [])
    }

    @Test("Notifications that arrive in the middle of discovery are kept, in order, for after it")
    func notificationsDuringDiscovery() throws {
        let server = ScriptedATTServer([
            .expect("08 0c00 1100 0328"),
            .send("1b 0e00 00 78"),
            .send("1b 0e00 00 79"),
            .send("09 07 0d00 10 0e00 372a 1000 02 1100 382a"),
            .expect("08 1100 1100 0328"),
            .send("1b 0e00 00 7a"),
            .send("01 08 1100 0a"),
        ])
        let client = makeClient(server)
        let found = try client.discoverCharacteristics(
            of: GATTService(uuid: .heartRate, startHandle: 0x000C, endHandle: 0x0011))
        #expect(found.count == 2)
        var heartRates: [UInt8] = []
        while let value = try client.nextValue(timeout: 0.2) { heartRates.append(value.value[1]) }
        #expect(heartRates == [0x78, 0x79, 0x7A])
        #expect(server.finish() == [])
    }

    @Test("Requests the peripheral sends us are answered, so it never waits out its own 30-second timeout")
    func serverRequestsAreAnswered() throws {
        let server = ScriptedATTServer([
            .expect("0a 1100"),
            .send("02 1700"),  // the strap exchanges MTU itself
            .expect("03 f700"),
            .send("10 0100 ffff 0028"),  // and discovers our (absent) services
            .expect("01 10 0100 0a"),
            .send("0a 0300"),  // and reads an attribute we do not have
            .expect("01 0a 0300 01"),
            .send("0b 01"),
        ])
        let client = makeClient(server)
        #expect(try client.read(0x0011) == [0x01])
        #expect(server.finish() == [])
    }

    @Test("GATT/CL/GAR/BV-04-C: a value that fills the MTU is read to its end with Read Blob")
    func readLong() throws {
        let first = String(repeating: "41", count: 22)
        let server = ScriptedATTServer([
            .expect("0a 2000"),
            .send("0b " + first),
            .expect("0c 2000 1600"),
            .send("0d 4243"),
        ])
        let client = makeClient(server, mtu: 23)
        let value = try client.read(0x0020)
        #expect(value == Array(repeating: 0x41, count: 22) + [0x42, 0x43])
        #expect(server.finish() == [])
    }

    @Test("GATT/CL/GAR/BI-01-C and BI-04-C: an Error Response is thrown with its code and handle")
    func readErrors() throws {
        let server = ScriptedATTServer([
            .expect("0a 0100"),
            .send("01 0a 0100 01"),
            .expect("0a 0011"),
            .send("01 0a 0011 05"),
        ])
        let client = makeClient(server)
        #expect(throws: GATTError.att(.invalidHandle, request: .readRequest, handle: 0x0001)) {
            try client.read(0x0001)
        }
        do {
            _ = try client.read(0x1100)
            Issue.record("the read should have failed")
        } catch {
            #expect(error == .att(.insufficientAuthentication, request: .readRequest, handle: 0x1100))
            if case .att(let code, _, _) = error { #expect(code.needsSecurity) }
        }
        #expect(server.finish() == [])
    }

    @Test("GATT/CL/GAT/BV-01-C: no response within the transaction timeout fails the request and the bearer")
    func transactionTimeout() throws {
        let server = ScriptedATTServer([.expect("0a 1100"), .pause(0.6)])
        let client = makeClient(server, timeout: 0.3)
        #expect(throws: GATTError.timeout(request: .readRequest, seconds: 0.3)) { try client.read(0x0011) }
        // Core Vol 3 Part F §3.3.3: no further ATT on this bearer.
        #expect(throws: GATTError.timeout(request: .readRequest, seconds: 0.3)) { try client.read(0x0014) }
        #expect(server.finish() == [])
    }

    @Test("Malformed PDUs from the server are counted and skipped; a malformed response fails its request")
    func malformedPDUs() throws {
        let server = ScriptedATTServer([
            .send("1b 0e"),  // a notification without a whole handle
            .send(""),  // an empty PDU
            .send("13"),  // a response to nothing
            .send("1b 0e00 00 7b"),
            .expect("10 0100 ffff 0028"),
            .send("11 06 0100 0700 00"),  // entries that do not fill their length
        ])
        let client = makeClient(server)
        #expect(try client.nextValue(timeout: 2)?.value == [0x00, 0x7B])
        #expect(client.malformedPDUs == 3)
        #expect(throws: GATTError.self) { try client.discoverPrimaryServices() }
        #expect(server.finish() == [])
    }

    @Test("A server whose discovery does not advance is refused rather than looped on")
    func discoveryMustAdvance() throws {
        let server = ScriptedATTServer([
            .expect("10 0100 ffff 0028"),
            .send("11 06 0500 0100 0d18"),  // end before start
        ])
        #expect(throws: GATTError.self) { try makeClient(server).discoverPrimaryServices() }
        #expect(server.finish() == [])
    }

    @Test("The link dropping ends waiting for values with the bearer's error")
    func linkDrop() throws {
        let server = ScriptedATTServer([.send("1b 0e00 00 78")])
        let client = makeClient(server)
        #expect(try client.nextValue(timeout: 2) != nil)
        _ = server.finish()
        do {
            _ = try client.nextValue(timeout: 2)
            Issue.record("expected the bearer to fail")
        } catch {
            guard case .bearer(let bearerError) = error else {
                Issue.record("expected a bearer error, got \(error)")
                return
            }
            #expect(bearerError.errno == ECONNRESET)
        }
    }
}
