import HandoffModel
import SensorCodecs
import Testing

/// Input a noisy serial line, a broken gpsd or a hostile peer can send, found by the attack on
/// the pack (issue 27): a date past 2262 used to overflow when it became an instant and kill
/// handoffd mid-run.
@Suite("Sensor input past the calendar's edges gives typed errors, never a trap")
struct HostileInputTests {
    @Test(
        "ZDA: a year outside 1980–2100 or a day the month lacks is refused; an XOR checksum lets noise through",
        arguments: [
            ("201530.00,04,07,2262,00,00", false), ("201530.00,04,07,9999,00,00", false),
            ("201530.00,04,07,2101,00,00", false), ("201530.00,31,12,2100,00,00", true),
            ("201530.00,31,02,2026,00,00", false), ("201530.00,29,02,2024,00,00", true),
            ("201530.00,04,07,1979,00,00", false),
        ])
    func zdaYears(_ fields: String, _ valid: Bool) {
        let line = NMEASentence.frame("GPZDA," + fields)
        let decoded = Result { () throws(NMEAError) in try NMEAReport(line: line) }
        if valid {
            guard case .success(.zda(let z)) = decoded else {
                Issue.record("\(line) did not decode: \(decoded)")
                return
            }
            #expect(z.date != nil)
        } else {
            guard case .failure(let error) = decoded else {
                Issue.record("\(line) decoded")
                return
            }
            #expect("\(error)".contains("date"), "\(error)")
        }
    }

    @Test("The issue's own sentence fed to the decoder among good ones: the fixes go on, none dated 2262")
    func decoderSurvivesZDA2262() {
        var decoder = NMEADecoder()
        var fixes: [GNSSFix] = []
        let lines = [
            "$GPZDA,201530.00,04,07,2262,00,00",
            "$GPRMC,201530.00,A,4630.0000,N,00730.0000,E,0.1,0.0,040726,,,A",
            "$GPGGA,201530.00,4630.0000,N,00730.0000,E,1,08,1.0,500.0,M,48.0,M,,",
            "$GPZDA,201531.00,04,07,2262,00,00",
            "$GPRMC,201531.00,A,4630.0001,N,00730.0000,E,0.1,0.0,040726,,,A",
            "$GPGGA,201531.00,4630.0001,N,00730.0000,E,1,08,1.0,500.0,M,48.0,M,,",
        ].map { NMEASentence.frame(String($0.dropFirst())) + "\r\n" }
        decoder.append(Array(lines.joined().utf8)) { fixes.append($0) }
        decoder.finish { fixes.append($0) }
        #expect(decoder.counts.rejected == 2)
        #expect(fixes.count == 2)
        #expect(fixes.allSatisfy { $0.iso8601Time?.hasPrefix("2026-07-04T20:15:3") == true })
    }

    @Test("gpsd: a TPV dated 2262 or 31 February is refused; a mode of 1e300 does not trap")
    func gpsdTimes() throws {
        for time in ["2262-07-04T20:15:30.000Z", "2026-02-31T00:00:00.000Z", "1970-01-01T00:00:00.000Z"] {
            let line = #"{"class":"TPV","mode":3,"time":"\#(time)","lat":46.5,"lon":7.5}"#
            #expect(throws: GpsdReportError.badField("time")) { try GpsdReport(line: line) }
        }
        guard case .tpv(let tpv) = try GpsdReport(line: #"{"class":"TPV","mode":1e300,"lat":46.5,"lon":7.5}"#) else {
            Issue.record("not a TPV")
            return
        }
        #expect(tpv.fix.mode == .threeD)
    }

    @Test("A fix whose date was set past 2100 by any path has no instant rather than an overflowing one")
    func fixInstantBounded() {
        var fix = GNSSFix(mode: .threeD)
        fix.time = NMEATime(hour: 20, minute: 15, second: 30)
        fix.date = NMEADate(year: 2262, month: 7, day: 4)
        #expect(fix.utc == nil && fix.iso8601Time == nil)
        fix.date = NMEADate(year: 2100, month: 12, day: 31)
        #expect(fix.iso8601Time == "2100-12-31T20:15:30.000Z")
    }

    @Test("A heart-rate value whose flags promise RR intervals but carries none is malformed (as Nordic's parser says)")
    func hrmPromisedRR() {
        #expect(throws: GATTValueError.truncated(field: "RR interval", needed: 2, have: 0)) {
            try HeartRateMeasurement(decoding: [0x10, 72])
        }
        #expect((try? HeartRateMeasurement(decoding: [0x10, 72, 0x00, 0x04]))?.rrIntervals1024ths == [1024])
    }

    @Test("An accelerometer CSV whose times span 1e12 s is refused when resampled (found by fuzzing: it filled memory)")
    func csvHugeSpan() throws {
        let samples = try AccelerometerCSV(text: "0,0,9.8,0\n0.01,0,9.8,0\n0.02,0,9.8,0\n1e12,0,9.8,0\n")
        #expect(throws: AccelerometerCSV.Error.self) { try samples.resampled(to: 50) }
        let walk = try AccelerometerCSV(text: (0..<200).map { "\(Double($0) / 100),0,9.8,0" }.joined(separator: "\n"))
        #expect(try walk.resampled(to: 50).times.count == 100)
    }

    @Test(
        "An HxM frame with a version byte that is not UTF-8 decodes, encodes and decodes to the same (found by fuzzing)"
    )
    func hxmVersionBytes() throws {
        var data = [UInt8](repeating: 0, count: HxMGeneralData.dataLength)
        data[0] = 26
        data[2] = 0xFF
        data[3] = UInt8(ascii: "f")
        data[6] = 0x00
        data[7] = 0x80
        let decoded = try HxMGeneralData(data: data)
        #expect(decoded.firmwareVersion.unicodeScalars.map(\.value) == [0xFF, 0x66])
        let frame = decoded.encodedFrame()
        #expect(Array(frame[3..<(3 + HxMGeneralData.dataLength)]) == data)
        #expect(try HxMGeneralData(data: Array(frame[3..<(3 + HxMGeneralData.dataLength)])) == decoded)
    }

    @Test("A capture event's clocks are bounded: mono_ns 0…2^62, wall_ns 1970…2100 (found by fuzzing: an overflow)")
    func captureClockBounds() throws {
        func event(_ mono: String, wall: String = "null") -> [UInt8] {
            Array(#"{"mono_ns":\#(mono),"wall_ns":\#(wall),"kind":"command","command":"stop"}"#.utf8)
        }
        #expect(try CaptureCodec.decodeEvent(event("0")).monotonic.nanoseconds == 0)
        #expect(try CaptureCodec.decodeEvent(event("4611686018427387904")).monotonic.nanoseconds == 1 << 62)
        for bad in ["9223372036854775807", "-1", "4611686018427387905"] {
            #expect(throws: CaptureError.self) { try CaptureCodec.decodeEvent(event(bad)) }
        }
        #expect(throws: CaptureError.self) { try CaptureCodec.decodeEvent(event("1", wall: "-1")) }
        #expect(throws: CaptureError.self) { try CaptureCodec.decodeEvent(event("1", wall: "9223372036854775807")) }
        #expect(try CaptureCodec.decodeEvent(event("1", wall: "1781418558970000000")).wall != nil)
    }
}
