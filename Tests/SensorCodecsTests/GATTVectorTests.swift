import Foundation
import PropertyBased
import SensorCodecs
import TestSupport
import Testing

/// The shared BLE vectors (`ble/vectors.json`), read with Foundation's JSON parser so that the
/// expectations do not pass through our own.
struct BLEVectors {
    struct Vector {
        let id: String
        let bytes: [UInt8]
        let valid: Bool
        let expected: [String: Any]
    }

    let heartRate: [Vector]
    let rsc: [Vector]

    init() throws {
        let object = try JSONSerialization.jsonObject(with: Fixtures.data("ble/vectors.json")) as! [String: Any]
        func vectors(_ key: String) throws -> [Vector] {
            try (object[key] as! [[String: Any]]).map { entry in
                Vector(
                    id: entry["id"] as! String, bytes: try Hex.decode(entry["hex"] as! String),
                    valid: entry["valid"] as? Bool ?? true, expected: entry["expected"] as? [String: Any] ?? [:])
            }
        }
        heartRate = try vectors("hr")
        rsc = try vectors("rsc")
    }
}

@Suite(
    "GATT characteristic values against the shared vectors",
    .enabled(if: Fixtures.available, "needs ../shared/fixtures"))
struct GATTVectorTests {
    @Test("Heart Rate Measurement 0x2A37 decodes every vector as listed and rejects the invalid ones")
    func heartRateVectors() throws {
        let vectors = try BLEVectors().heartRate
        #expect(vectors.count >= 8)
        for vector in vectors {
            if !vector.valid {
                #expect(throws: GATTValueError.self, "\(vector.id) must be rejected") {
                    try HeartRateMeasurement(decoding: vector.bytes)
                }
                continue
            }
            let m = try HeartRateMeasurement(decoding: vector.bytes)
            let e = vector.expected
            #expect(Int(m.heartRate) == e["hr"] as? Int, "\(vector.id) heart rate")
            let contact: HeartRateMeasurement.SensorContact =
                switch e["contact"] as? Bool {
                case nil: .notSupported
                case true?: .detected
                case false?: .notDetected
                }
            #expect(m.sensorContact == contact, "\(vector.id) contact")
            #expect(m.energyExpendedKilojoules.map(Int.init) == e["energy_kj"] as? Int, "\(vector.id) energy")
            #expect(m.rrIntervals1024ths.map(Int.init) == (e["rr_raw"] as? [Int] ?? []), "\(vector.id) RR")
            // What we decode survives our encoding (bytes may differ only in bits the spec ignores).
            #expect(try HeartRateMeasurement(decoding: m.encoded()) == m, "\(vector.id) re-encodes")
        }
    }

    @Test("RSC Measurement 0x2A53 decodes every vector as listed and rejects the invalid ones")
    func rscVectors() throws {
        let vectors = try BLEVectors().rsc
        #expect(vectors.count >= 3)
        for vector in vectors {
            if !vector.valid {
                #expect(throws: GATTValueError.self, "\(vector.id) must be rejected") {
                    try RSCMeasurement(decoding: vector.bytes)
                }
                continue
            }
            let m = try RSCMeasurement(decoding: vector.bytes)
            let e = vector.expected
            #expect(m.isRunning == e["running"] as? Bool, "\(vector.id) running")
            #expect(m.speedMetersPerSecond == e["speed_mps"] as? Double, "\(vector.id) speed")
            #expect(Int(m.cadence) == e["cadence"] as? Int, "\(vector.id) cadence")
            #expect(m.strideLength100ths.map(Int.init) == e["stride_raw"] as? Int, "\(vector.id) stride")
            #expect(m.totalDistance10ths.map(Int.init) == e["total_distance_raw"] as? Int, "\(vector.id) distance")
            if let metres = e["total_distance_m"] as? Double {
                #expect(abs(m.totalDistanceMeters! - metres) < 1e-6, "\(vector.id) distance in metres")
            }
            #expect(m.encoded() == vector.bytes, "\(vector.id) re-encodes")
        }
    }
}

@Suite("GATT characteristic values: spec cases and properties")
struct GATTValueTests {
    @Test("HRM flags 0x16 with two RR intervals keeps them exactly in 1/1024 s")
    func rrIntervalsExact() throws {
        // flags: uint8 HR, contact supported and detected, RR present; HR 72; RR 0x0354, 0x0360.
        let m = try HeartRateMeasurement(decoding: [0x16, 0x48, 0x54, 0x03, 0x60, 0x03])
        #expect(m.heartRate == 72)
        #expect(m.sensorContact == .detected)
        #expect(m.rrIntervals1024ths == [852, 864])
    }

    @Test("HRM with the RR flag and an odd byte left over is rejected with the count")
    func oddRRBytes() {
        #expect(throws: GATTValueError.oddRRIntervalBytes(count: 3)) {
            try HeartRateMeasurement(decoding: [0x10, 0x48, 0x54, 0x03, 0x60])
        }
    }

    @Test("HRM names the field it ran out in")
    func truncationNamesField() {
        #expect(throws: GATTValueError.truncated(field: "energy expended", needed: 2, have: 1)) {
            try HeartRateMeasurement(decoding: [0x08, 0x48, 0x01])
        }
        #expect(throws: GATTValueError.truncated(field: "flags", needed: 1, have: 0)) {
            try HeartRateMeasurement(decoding: [])
        }
    }

    @Test("HRM with many RR intervals (a 247-byte ATT MTU) decodes them all")
    func manyRRIntervals() throws {
        let rr = (0..<120).map { UInt16(700 + $0) }
        let m = HeartRateMeasurement(heartRate: 80, rrIntervals1024ths: rr)
        #expect(try HeartRateMeasurement(decoding: m.encoded()).rrIntervals1024ths == rr)
    }

    @Test("RSC ignores bytes after the fields its flags announce")
    func rscTrailingBytes() throws {
        let m = try RSCMeasurement(decoding: [0x00, 0x00, 0x03, 0xAA, 0xFF, 0xFF])
        #expect(m.speed256ths == 0x0300)
        #expect(m.cadence == 0xAA)
    }

    @Test("Random bytes never trap the HRM and RSC decoders")
    func randomBytesNeverTrap() async {
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...24)) { bytes in
            if let m = try? HeartRateMeasurement(decoding: bytes) {
                // Anything accepted re-decodes to itself from its own encoding.
                #expect((try? HeartRateMeasurement(decoding: m.encoded())) == m)
            }
            if let m = try? RSCMeasurement(decoding: bytes) {
                #expect((try? RSCMeasurement(decoding: m.encoded())) == m)
            }
        }
    }

    @Test("HRM encode then decode gives the same measurement; a rate above 255 is widened to uint16")
    func heartRateRoundTrip() async {
        // Every rate in either format: a uint8 measurement above 255 cannot be sent as uint8,
        // so the encoder widens it (the generator once masked `hr & 0xFF` and never tried it).
        let measurement = zip(
            Gen.uint16(), Gen.bool(), Gen.int(in: 0...2), Gen.uint16().optional,
            Gen.uint16().array(of: 0...9)
        ).map { hr, wide, contact, energy, rr in
            HeartRateMeasurement(
                heartRate: hr, valueFormat: wide ? .uint16 : .uint8,
                sensorContact: [.notSupported, .notDetected, .detected][contact],
                energyExpendedKilojoules: energy, rrIntervals1024ths: rr)
        }
        await propertyCheck(count: 500, input: measurement) { m in
            var expected = m
            if m.heartRate > 0xFF { expected.valueFormat = .uint16 }
            #expect((try? HeartRateMeasurement(decoding: m.encoded())) == expected)
        }
    }

    @Test("HRM: a rate of 300 in uint8 format is sent as uint16 (flag bit 0, two bytes), not cut to 44")
    func heartRateWidened() throws {
        let m = HeartRateMeasurement(heartRate: 300, valueFormat: .uint8)
        #expect(m.encoded() == [0x01, 0x2C, 0x01])
        #expect(try HeartRateMeasurement(decoding: m.encoded()).heartRate == 300)
        #expect(HeartRateMeasurement(heartRate: 255, valueFormat: .uint8).encoded() == [0x00, 0xFF])
    }

    @Test("RSC encode then decode gives the same measurement")
    func rscRoundTrip() async {
        let measurement = zip(
            Gen.uint16(), Gen.uint8(), Gen.uint16().optional, Gen.uint32().optional, Gen.bool()
        ).map { speed, cadence, stride, total, running in
            RSCMeasurement(
                speed256ths: speed, cadence: cadence, strideLength100ths: stride, totalDistance10ths: total,
                isRunning: running)
        }
        await propertyCheck(count: 500, input: measurement) { m in
            #expect((try? RSCMeasurement(decoding: m.encoded())) == m)
        }
    }

    @Test("Hex accepts spaces, colons and 0x, and rejects odd digits and other characters")
    func hex() throws {
        #expect(try Hex.decode("16 48 54 01") == [0x16, 0x48, 0x54, 0x01])
        #expect(try Hex.decode("16:48:54:01") == [0x16, 0x48, 0x54, 0x01])
        #expect(try Hex.decode("0x16485401") == [0x16, 0x48, 0x54, 0x01])
        #expect(try Hex.decode("0x16 0x48") == [0x16, 0x48])
        #expect(try Hex.decode("ABcd") == [0xAB, 0xCD])
        #expect(throws: HexError.oddDigitCount) { try Hex.decode("164") }
        #expect(throws: HexError.invalidCharacter(position: 2)) { try Hex.decode("1g") }
        #expect(Hex.encode([0x00, 0xAB, 0xFF]) == "00abff")
    }
}
