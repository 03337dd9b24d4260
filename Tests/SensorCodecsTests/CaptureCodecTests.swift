import HandoffModel
import PropertyBased
import SensorCodecs
import Testing

@Suite("Capture format (docs/capture-format.md)")
struct CaptureCodecTests {
    let header = CaptureHeader(
        sensors: [
            SensorDescriptor(
                id: "hr0", kind: .heartRate, name: "Polar H10", address: "A0:9E:1A:00:00:01", transport: .ble),
            SensorDescriptor(id: "gps0", kind: .gps),
        ], createdBy: "test",
        simulation: SimulationTruth(
            seed: 3, routeDistanceMeters: 5012.5, averageHeartRate: 150.25, heartRateSamples: 10, rrIntervals: 12))

    @Test("A header round-trips, with a simulated ride's truth too")
    func headerRoundTrip() throws {
        let line = CaptureCodec.encode(header)
        #expect(line.hasPrefix(#"{"handoff_capture":1,"#))
        #expect(!line.contains("ride"))
        #expect(try CaptureCodec.decodeHeader(line) == header)
        var ride = header
        ride.simulation?.ride = RideTruth(wheelCircumferenceMeters: 2.105, averageCrankRPM: 84.5)
        #expect(try CaptureCodec.decodeHeader(CaptureCodec.encode(ride)) == ride)
    }

    @Test("Every kind of event round-trips and is written the same way every time")
    func eventRoundTrip() throws {
        let events = [
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 41_318_000_001),
                wall: WallInstant(nanosecondsSinceEpoch: 1_781_000_000_123_456_789),
                body: .payload(sensor: "hr0", kind: .heartRateMeasurement, .bytes([0x16, 0x48, 0x54, 0x01]))),
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 5),
                body: .payload(sensor: "gps0", kind: .nmea, .text("$GNGGA,070012.00,,,,,0,00,99.99,,,,,,*7B"))),
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 6),
                body: .link(sensor: "hr0", state: .disconnected, reason: "supervision timeout")),
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 7), body: .link(sensor: "hr0", state: .connected, reason: nil)),
            CaptureEvent(monotonic: MonotonicInstant(nanoseconds: 8), wall: nil, body: .command(.pause)),
            CaptureEvent(monotonic: MonotonicInstant(nanoseconds: 8), body: .command(.start, sport: .bike)),
            CaptureEvent(monotonic: MonotonicInstant(nanoseconds: 9), body: .clock(synchronized: false)),
            CaptureEvent(monotonic: MonotonicInstant(nanoseconds: 10), body: .clock(synchronized: true)),
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 11),
                body: .payload(sensor: "steps0", kind: .steps, .text("1043"))),
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 12),
                body: .payload(
                    sensor: "gps0", kind: .gpsd,
                    .text(#"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"lat":46.498293369,"lon":7.567411672}"#))),
        ]
        for event in events {
            let line = CaptureCodec.encode(event)
            #expect(try CaptureCodec.decodeEvent(line) == event)
            #expect(CaptureCodec.encode(try CaptureCodec.decodeEvent(line)) == line)
        }
        // A start without a sport is written as it always was: a run's capture stays byte for byte.
        #expect(
            CaptureCodec.encode(CaptureEvent(monotonic: MonotonicInstant(nanoseconds: 1), body: .command(.start)))
                == #"{"mono_ns":1,"kind":"command","command":"start"}"#)
        #expect(
            CaptureCodec.encode(events[0])
                == #"{"mono_ns":41318000001,"wall_ns":1781000000123456789,"sensor":"hr0","kind":"hrm","hex":"16485401"}"#
        )
    }

    @Test(
        "Malformed lines give errors that say what is wrong",
        arguments: [
            (#"{"mono_ns":1}"#, CaptureError.missingField("kind")),
            (
                #"{"mono_ns":"1","kind":"command","command":"start"}"#,
                CaptureError.wrongType(field: "mono_ns", expected: "an integer")
            ),
            (#"{"mono_ns":1,"kind":"command","command":"jump"}"#, CaptureError.unknownCommand("jump")),
            (
                #"{"mono_ns":1,"kind":"command","command":"start","sport":"swim"}"#,
                CaptureError.wrongType(field: "sport", expected: "run, bike or walk")
            ),
            (
                #"{"mono_ns":1,"sensor":"hr0","kind":"hrm","hex":"1g"}"#,
                CaptureError.badHex(.invalidCharacter(position: 2))
            ),
            (#"{"mono_ns":1,"sensor":"hr0","kind":"hrm"}"#, CaptureError.missingField("hex\" or \"text")),
            (#"[1,2]"#, CaptureError.notAnObject),
            (#"{"handoff_capture":1,"sensors":[]}"#, CaptureError.unexpectedHeader),
        ])
    func malformedEvents(line: String, expected: CaptureError) {
        #expect(throws: expected) { try CaptureCodec.decodeEvent(line) }
    }

    @Test("A header from a newer format version is refused with both versions named")
    func newerVersion() {
        #expect(throws: CaptureError.unsupportedVersion(2)) {
            try CaptureCodec.decodeHeader(#"{"handoff_capture":2,"sensors":[]}"#)
        }
        #expect("\(CaptureError.unsupportedVersion(2))".contains("reads version 1"))
    }

    @Test("An unknown payload kind still loads (a newer pack's capture)")
    func unknownKind() throws {
        let event = try CaptureCodec.decodeEvent(#"{"mono_ns":1,"sensor":"imu0","kind":"accel","text":"1 2 3"}"#)
        #expect(event.body == .payload(sensor: "imu0", kind: PayloadKind(rawValue: "accel"), .text("1 2 3")))
    }

    @Test("Random text never traps the capture reader")
    func randomLines() async {
        let alphabet = Array(#"{}[]:,"mono_nswall_sensorkindhextcmd 0123456789"#.utf8)
        let text = Gen.int(in: 0..<alphabet.count).array(of: 0...60).map {
            String(decoding: $0.map { alphabet[$0] }, as: UTF8.self)
        }
        await propertyCheck(count: 3000, input: text) { line in
            _ = try? CaptureCodec.decodeEvent(line)
            _ = try? CaptureCodec.decodeHeader(line)
        }
    }
}
