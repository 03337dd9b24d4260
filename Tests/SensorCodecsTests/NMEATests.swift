import Foundation
import PropertyBased
import SensorCodecs
import TestSupport
import Testing

@Suite("NMEA 0183 sentences")
struct NMEATests {
    @Test("RMC from a u-blox M8 decodes time, position, speed, track and date")
    func rmc() throws {
        let line = "$GNRMC,070012.00,A,4807.20000,N,01134.80000,E,5.832,87.50,140626,,,A,V*3F"
        guard
            case .rmc(let rmc) = try NMEAReport(
                line: NMEASentence.frame(String(line.dropFirst().prefix(while: { $0 != "*" }))))
        else {
            Issue.record("not an RMC")
            return
        }
        #expect(rmc.time == NMEATime(hour: 7, minute: 0, second: 12))
        #expect(rmc.status == "A")
        #expect(abs(rmc.latitude! - (48 + 7.2 / 60)) < 1e-12)
        #expect(abs(rmc.longitude! - (11 + 34.8 / 60)) < 1e-12)
        #expect(abs(rmc.speedMetersPerSecond! - 5.832 * 1852 / 3600) < 1e-12)
        #expect(rmc.trackDegrees == 87.5)
        #expect(rmc.date == NMEADate(year: 2026, month: 6, day: 14))
        #expect(rmc.mode == "A")
        #expect(rmc.hasFix)
    }

    @Test("Southern and western hemispheres are negative")
    func hemispheres() throws {
        let sentence = NMEASentence.frame("GPGGA,123519,3351.000,S,15112.000,W,1,08,0.9,545.4,M,46.9,M,,")
        guard case .gga(let gga) = try NMEAReport(line: sentence) else { Issue.record("not a GGA"); return }
        #expect(abs(gga.latitude! + 33.85) < 1e-12)
        #expect(abs(gga.longitude! + 151.2) < 1e-12)
        #expect(gga.quality == 1 && gga.satellitesUsed == 8 && gga.hdop == 0.9 && gga.altitudeMeters == 545.4)
    }

    @Test("No-fix sentences decode with empty fields and no position")
    func noFix() throws {
        guard case .rmc(let rmc) = try NMEAReport(line: NMEASentence.frame("GNRMC,070012.00,V,,,,,,,140626,,,N,V"))
        else {
            Issue.record("not an RMC"); return
        }
        #expect(!rmc.hasFix && rmc.latitude == nil && rmc.speedKnots == nil)
        guard case .gga(let gga) = try NMEAReport(line: NMEASentence.frame("GNGGA,070012.00,,,,,0,00,99.99,,,,,,"))
        else {
            Issue.record("not a GGA"); return
        }
        #expect(!gga.hasFix && gga.latitude == nil && gga.hdop == 99.99)
    }

    @Test("A MediaTek placeholder position (89°60'N) in a no-fix RMC is ignored, not an error")
    func mediatekPlaceholder() throws {
        let line = "$GPRMC,235946.005,V,8960.000000,N,00000.000000,E,0.000,0.00,050180,,,N*47"
        guard case .rmc(let rmc) = try NMEAReport(line: line) else { Issue.record("not an RMC"); return }
        #expect(!rmc.hasFix && rmc.latitude == nil)
        #expect(rmc.date == NMEADate(year: 1980, month: 1, day: 5))
    }

    @Test("Checksums in lower-case hex are accepted")
    func lowerCaseChecksum() throws {
        // Find a sentence whose checksum has a hex letter in it, and write that letter in lower case.
        for hdop in 1...99 {
            let body = "GPGGA,123519,4807.038,N,01131.000,E,1,08,\(hdop),545.4,M,46.9,M,,"
            let hex = String(NMEASentence.checksum(of: body), radix: 16)
            guard hex.contains(where: \.isLetter) else { continue }
            let line = "$\(body)*\(hex.count == 1 ? "0" + hex : hex)"
            let sentence = try NMEASentence(parsing: line)
            #expect(sentence.type == "GGA")
            return
        }
        Issue.record("no checksum with a letter found")
    }

    @Test("A wrong checksum is rejected with both values")
    func badChecksum() {
        #expect(throws: NMEAError.badChecksum(stated: 0x00, computed: 0x47)) {
            try NMEASentence(parsing: "$GPRMC,235946.005,V,8960.000000,N,00000.000000,E,0.000,0.00,050180,,,N*00")
        }
    }

    @Test("Framing errors are typed")
    func framing() {
        #expect(throws: NMEAError.missingChecksum) { try NMEASentence(parsing: "$GPGGA,123519,,,,,0,00,,,,,,,") }
        #expect(throws: NMEAError.missingStart) { try NMEASentence(parsing: "hello") }
        #expect(throws: NMEAError.malformedChecksum("4")) { try NMEASentence(parsing: "$GPGGA,1*4") }
        #expect(throws: NMEAError.self) { try NMEASentence(parsing: "$GP\u{01}GA,1*00") }
    }

    @Test("Noise before the sentence and a doubled $ are dropped; CR LF is stripped")
    func noiseAndLineEndings() throws {
        let sentence = NMEASentence.frame("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        let a = try NMEASentence(parsing: "\u{7F}\u{12}xx$" + sentence + "\r\n")
        #expect(a.talker == "GP" && a.type == "GGA" && a.fields.count == 14)
    }

    @Test("Proprietary and unread sentences are reported as such")
    func skippedKinds() {
        #expect(throws: NMEAError.proprietary("UBX")) { try NMEAReport(line: NMEASentence.frame("PUBX,00,1")) }
        #expect(throws: NMEAError.unsupported("GNGST")) {
            try NMEAReport(line: NMEASentence.frame("GNGST,223745.00,24,3.4,2.1,88.4,2.1,3.4,5.0"))
        }
    }

    @Test("A sentence without a checksum is accepted only from a receiver known to send it")
    func missingChecksumPolicy() throws {
        // The MT3301 sends its $POLYN start-up lines bare: framed, then skipped as proprietary.
        let polyn = try NMEASentence(parsing: "$POLYN,TIME,RESTART_OCCURRED")
        #expect(polyn.isProprietary && polyn.type == "OLYN")
        #expect(throws: NMEAError.missingChecksum) { try NMEASentence(parsing: "$GPGGA,123519,,,,,0,00,,,,,,,") }
        let lenient = NMEAChecksumPolicy(addressesWithoutChecksum: ["GPGGA"])
        #expect(try NMEASentence(parsing: "$GPGGA,123519,,,,,0,00,,,,,,,", checksum: lenient).type == "GGA")
    }

    @Test("GSA: fix type, satellites used, PDOP/HDOP/VDOP and the NMEA 4.10 system ID")
    func gsa() throws {
        guard case .gsa(let g) = try NMEAReport(line: "$GNGSA,A,3,82,73,74,67,81,83,68,,,,,,0.99,0.54,0.83,2*08") else {
            Issue.record("not a GSA"); return
        }
        #expect(g.fixType == 3 && g.satellitesUsed == [82, 73, 74, 67, 81, 83, 68])
        #expect(g.pdop == 0.99 && g.hdop == 0.54 && g.vdop == 0.83 && g.systemID == 2)
    }

    @Test("GSV: satellites in view with elevation, azimuth and SNR; an untracked one has no SNR")
    func gsv() throws {
        guard case .gsv(let g) = try NMEAReport(line: "$GPGSV,3,3,12,24,58,220,,26,17,053,,29,20,063,,30,60,311,44*7F")
        else { Issue.record("not a GSV"); return }
        #expect(g.total == 3 && g.number == 3 && g.satellitesInView == 12 && g.satellites.count == 4)
        #expect(g.satellites[0].prn == 24 && g.satellites[0].elevationDegrees == 58)
        #expect(g.satellites[0].azimuthDegrees == 220 && g.satellites[0].snr == nil)
        #expect(g.satellites[3].snr == 44)
        #expect(throws: NMEAError.self) { try NMEAReport(line: NMEASentence.frame("GPGSV,2,3,08")) }
    }

    @Test("VTG, GLL, ZDA and GNS decode; BeiDou's GB talker is BeiDou")
    func otherSentences() throws {
        guard case .vtg(let v) = try NMEAReport(line: "$GPVTG,0.00,T,,M,0.039,N,0.072,K,A*32") else {
            Issue.record("not a VTG"); return
        }
        #expect(v.trackDegrees == 0 && abs(v.speedMetersPerSecond! - 0.039 * 1852 / 3600) < 1e-12 && v.mode == "A")
        guard
            case .gll(let l) = try NMEAReport(
                line: NMEASentence.frame("GNGLL,3806.62964,N,12237.61382,W,223745.00,A,D"))
        else { Issue.record("not a GLL"); return }
        #expect(l.hasFix && abs(l.latitude! - (38 + 6.62964 / 60)) < 1e-12 && l.longitude! < 0)
        guard case .zda(let z) = try NMEAReport(line: NMEASentence.frame("GNZDA,223745.00,11,07,2020,00,00")) else {
            Issue.record("not a ZDA"); return
        }
        #expect(
            z.date == NMEADate(year: 2020, month: 7, day: 11) && z.time == NMEATime(hour: 22, minute: 37, second: 45))
        guard
            case .gns(let n) = try NMEAReport(
                line: "$GNGNS,053232.438,3114.8789,N,12135.2442,E,ANNA,07,1.2,153.8,8.3,,0000*5F")
        else { Issue.record("not a GNS"); return }
        #expect(n.hasFix && n.modes == "ANNA" && n.satellitesUsed == 7 && n.altitudeMeters == 153.8)
        #expect(GNSSConstellation(talker: "GB") == .beidou && GNSSConstellation(talker: "BD") == .beidou)
        #expect(GNSSConstellation(talker: "GQ") == .qzss && GNSSConstellation(talker: "GA") == .galileo)
    }

    @Test("Malformed fields name the field")
    func badFields() {
        #expect(throws: NMEAError.badField(sentence: "GPRMC", field: "time", value: "2560xx")) {
            try NMEAReport(line: NMEASentence.frame("GPRMC,2560xx,A,4807.038,N,01131.000,E,0.1,1.0,010120,,"))
        }
        #expect(throws: NMEAError.badField(sentence: "GPRMC", field: "latitude", value: "4875.000")) {
            try NMEAReport(line: NMEASentence.frame("GPRMC,123519,A,4875.000,N,01131.000,E,0.1,1.0,010120,,"))
        }
        #expect(throws: NMEAError.missingFields(sentence: "GPGGA", needed: 11, have: 3)) {
            try NMEAReport(line: NMEASentence.frame("GPGGA,1,2,3"))
        }
    }

    @Test("Random text never traps the NMEA decoder")
    func randomTextNeverTraps() async {
        let alphabet = Array("$*,.0123456789ABCDEFGPRMCNSEWVa-\r\n ")
        let text = Gen.int(in: 0..<alphabet.count).array(of: 0...90).map { String($0.map { alphabet[$0] }) }
        await propertyCheck(count: 3000, input: text) { line in
            _ = try? NMEAReport(line: line)
            _ = try? NMEAReport(line: NMEASentence.frame(line))
        }
        await propertyCheck(count: 1000, input: Gen.uint8().array(of: 0...90)) { bytes in
            _ = try? NMEAReport(line: String(decoding: bytes, as: UTF8.self))
        }
    }
}

@Suite("NMEA framing of a receiver's byte stream")
struct NMEAFramingTests {
    static let epoch = [
        "GNRMC,223745.00,A,3806.62964,N,12237.61382,W,0.040,,110720,,,D,V",
        "GNGGA,223745.00,3806.62964,N,12237.61382,W,2,12,0.54,83.1,M,-29.5,M,,0000",
        "GNRMC,223746.00,A,3806.62965,N,12237.61383,W,0.041,,110720,,,D,V",
        "GNGGA,223746.00,3806.62965,N,12237.61383,W,2,12,0.54,83.1,M,-29.5,M,,0000",
    ].map(NMEASentence.frame)

    static func decode(_ chunks: [[UInt8]]) -> ([GNSSFix], NMEADecoder.Counts) {
        var decoder = NMEADecoder()
        var fixes: [GNSSFix] = []
        for chunk in chunks { decoder.append(chunk) { fixes.append($0) } }
        decoder.finish { fixes.append($0) }
        return (fixes, decoder.counts)
    }

    @Test("Sentences split across reads anywhere give the same fixes as whole lines")
    func splitReads() async {
        let bytes = Array(Self.epoch.map { $0 + "\r\n" }.joined().utf8)
        let (whole, _) = Self.decode([bytes])
        #expect(whole.count == 2 && whole[0].latitude != nil)
        await propertyCheck(count: 300, input: Gen.int(in: 1...40).array(of: 1...60)) { sizes in
            var chunks: [[UInt8]] = []
            var offset = 0
            for size in sizes where offset < bytes.count {
                chunks.append(Array(bytes[offset..<min(bytes.count, offset + size)]))
                offset += size
            }
            if offset < bytes.count { chunks.append(Array(bytes[offset...])) }
            #expect(Self.decode(chunks).0 == whole)
        }
    }

    @Test("Garbage, binary, a doubled $ and bare LF between sentences are dropped and counted")
    func garbageBetweenSentences() {
        var bytes: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 0x00, 0xFF]  // a u-blox UBX frame's start
        bytes += Array(("$" + Self.epoch[0] + "\n").utf8)  // $$GNRMC
        bytes += Array("$GNGGA,223745.00,3806.6".utf8) + [0x00, 0x81]  // cut off by binary
        bytes += Array((Self.epoch[1] + "\r\nnoise\r\n" + Self.epoch[2] + "\r" + Self.epoch[3] + "\n").utf8)
        let (fixes, counts) = Self.decode([bytes])
        #expect(fixes.count == 2)
        #expect(counts.decoded == 4 && counts.rejected == 0)
        #expect(counts.discardedBytes > 20)
    }

    @Test("A line that never ends is dropped, and the next sentence still decodes")
    func overlongLine() {
        let bytes = Array(("$GPGGA," + String(repeating: "1", count: 500) + Self.epoch[0] + "\r\n").utf8)
        var framer = NMEAFramer()
        var lines: [[UInt8]] = []
        framer.append(bytes) { lines.append($0) }
        #expect(lines.map { String(decoding: $0, as: UTF8.self) } == [Self.epoch[0]])
        #expect(framer.overlongLines == 1)
    }

    @Test("Random bytes and mutated real sentences never trap the decoder")
    func fuzz() async {
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...400)) { bytes in
            var decoder = NMEADecoder()
            decoder.append(bytes) { _ in }
            decoder.finish { _ in }
        }
        let real = Array(Self.epoch.map { $0 + "\r\n" }.joined().utf8)
        // Each random number encodes one edit: where, which byte, and replace, insert or delete.
        await propertyCheck(count: 2000, input: Gen.int(in: 0...(1 << 40)).array(of: 1...12)) { edits in
            var bytes = real
            for edit in edits {
                let position = edit % bytes.count
                let byte = UInt8(truncatingIfNeeded: edit >> 20)
                switch (edit >> 30) % 3 {
                case 0: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: bytes.remove(at: position)
                }
            }
            // Fix the checksums of mutated lines half the time, so field decoding is reached too.
            for line in NMEAFramer.lines(in: bytes) {
                let text = String(decoding: line, as: UTF8.self)
                let body = text.dropFirst().prefix { $0 != "*" }
                _ = try? NMEAReport(line: NMEASentence.frame(String(body)))
            }
            var decoder = NMEADecoder()
            decoder.append(bytes) { _ in }
            decoder.finish { _ in }
        }
    }
}

@Suite(
    "NMEA against gpsd's own decoding of real receiver logs",
    .enabled(if: Fixtures.available, "needs ../shared/fixtures"))
struct NMEAGpsdTests {
    static let logs = [
        "beidou-gb", "bu353-glonass", "gp-320fw-2019-04-07-coldboot", "mtk-3301", "nmea-fuzzy-cases",
        "sirfstarv-nmea", "ublox-neo-m9n-nmea",
    ]

    /// gpsd's time of day ("…T22:37:45.000Z") in seconds.
    static func secondsOfDay(_ iso: String) -> Double? {
        guard let t = iso.split(separator: "T").last?.dropLast() else { return nil }
        let parts = t.split(separator: ":")
        guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]) else {
            return nil
        }
        return h * 3600 + m * 60 + s
    }

    /// gpsd's final TPV of each epoch it dated: several TPVs share a time as an epoch's
    /// sentences arrive; the last one is the epoch's report.
    static func gpsdEpochs(_ log: String) throws -> [(seconds: Double, tpv: [String: Any])] {
        var epochs: [(seconds: Double, tpv: [String: Any])] = []
        for raw in try Fixtures.text("gpsd/expected/\(log).log.chk").split(whereSeparator: \.isNewline) {
            guard raw.hasPrefix("{"), raw.contains("\"TPV\""),
                let tpv = try JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String: Any],
                let time = tpv["time"] as? String, let seconds = secondsOfDay(time)
            else { continue }
            if let last = epochs.last, abs(last.seconds - seconds) < 0.0005 { epochs.removeLast() }
            epochs.append((seconds, tpv))
        }
        return epochs
    }

    /// Compares a fix with gpsd's TPV: the same fields present, equal within the acceptance's
    /// tolerances. Returns the differences.
    static func differences(_ fix: GNSSFix, _ tpv: [String: Any]) -> [String] {
        var problems: [String] = []
        if fix.mode.rawValue != tpv["mode"] as? Int {
            problems.append("mode \(fix.mode.rawValue) vs \(tpv["mode"] ?? "-")")
        }
        let pairs: [(String, Double?, Double)] = [
            ("lat", fix.latitude, 1e-6), ("lon", fix.longitude, 1e-6), ("alt", fix.altitudeMeters, 0.1),
            ("speed", fix.speedMetersPerSecond, 0.01), ("track", fix.trackDegrees, 0.01),
        ]
        for (key, ours, tolerance) in pairs {
            let theirs = tpv[key] as? Double
            switch (ours, theirs) {
            case (nil, nil): continue
            case (let a?, let b?) where abs(a - b) <= tolerance: continue
            default:
                problems.append("\(key) \(ours.map { "\($0)" } ?? "absent") vs \(theirs.map { "\($0)" } ?? "absent")")
            }
        }
        return problems
    }

    @Test("Every epoch gpsd 3.22 dated has our fix with its mode, position, altitude, speed and track", arguments: logs)
    func agreesWithGpsd(log: String) throws {
        let (fixes, counts) = NMEADecoder.fixes(in: try Fixtures.data("gpsd/\(log).log"))
        let epochs = try Self.gpsdEpochs(log)
        #expect(epochs.count >= 1)
        for (seconds, tpv) in epochs {
            guard let fix = fixes.first(where: { $0.time.map { abs($0.secondsOfDay - seconds) < 0.0005 } ?? false })
            else {
                Issue.record("\(log): no fix of ours at \(tpv["time"] ?? seconds)")
                continue
            }
            let problems = Self.differences(fix, tpv)
            #expect(problems.isEmpty, "\(log) \(tpv["time"] ?? ""): \(problems.joined(separator: "; "))")
        }
        #expect(counts.decoded > 0)
    }

    @Test("Dates are reported as the sentences state them, not gpsd's week-rollover guess")
    func datesAsStated() throws {
        // gpsd 3.22 dates this 2015 SiRF-TriG log in 2034; its RMC says 2 March 2015.
        let (fixes, _) = NMEADecoder.fixes(in: try Fixtures.data("gpsd/beidou-gb.log"))
        let dated = fixes.filter { $0.date != nil }
        #expect(!dated.isEmpty)
        #expect(dated.allSatisfy { $0.date == NMEADate(year: 2015, month: 3, day: 2) })
        #expect(dated.last?.iso8601Time == "2015-03-02T05:32:33.438Z")
    }

    @Test(
        "The logs without gpsd's decoding decode; every rejected line has a reason", arguments: logs + ["haicom-305N"])
    func everyLineIsHandled(log: String) throws {
        let (fixes, counts) = NMEADecoder.fixes(in: try Fixtures.data("gpsd/\(log).log"))
        #expect(counts.decoded > 0 && !fixes.isEmpty)
        // Known bad input: the SE4100L cold-boot log holds binary garbage and corrupted sentences.
        let knownRejects = ["gp-320fw-2019-04-07-coldboot": 41]
        #expect(
            counts.rejected == knownRejects[log, default: 0],
            "\(log): \(counts.rejected) rejected, last \(String(describing: counts.lastError))")
    }

    @Test("Satellites used and seen, and DOPs, come from GSA and GSV")
    func satellites() throws {
        let (fixes, _) = NMEADecoder.fixes(in: try Fixtures.data("gpsd/ublox-neo-m9n-nmea.log"))
        let first = try #require(fixes.first { $0.satellitesSeen != nil })
        // Four GNSS: GSA lists 8 GPS + 7 GLONASS + 5 Galileo + 5 BeiDou in the first epoch.
        #expect(
            fixes[0].satellitesUsed == 25 && fixes[0].pdop == 0.99 && fixes[0].hdop == 0.54 && fixes[0].vdop == 0.83)
        // GSV: 16 GPS + 10 GLONASS + 10 Galileo + 7 BeiDou in view, gpsd's nSat for the epoch.
        #expect(first.satellitesSeen == 43)
    }

    /// `body` with its `$` and checksum.
    static func sentence(_ body: String) -> String {
        "$\(body)*" + String(format: "%02X", body.utf8.reduce(UInt8(0), ^))
    }

    @Test("A constellation the receiver stops reporting leaves the sky view after 30 s")
    func staleSky() throws {
        func epoch(_ second: Int, glonass: Bool) -> String {
            let time = String(format: "1200%02d.00", second)
            var lines = [
                Self.sentence("GPGGA,\(time),4807.038,N,01131.000,E,1,04,0.9,545.4,M,46.9,M,,"),
                Self.sentence("GPGSV,1,1,02,05,40,083,46,12,30,070,42"),
            ]
            if glonass { lines.append(Self.sentence("GLGSV,1,1,03,66,09,027,,67,56,054,40,68,55,168,44")) }
            return lines.joined(separator: "\r\n") + "\r\n"
        }
        var log = (0..<5).map { epoch($0, glonass: true) }.joined()
        log += (5..<50).map { epoch($0, glonass: false) }.joined()
        let (fixes, _) = NMEADecoder.fixes(in: Data(log.utf8))
        #expect(fixes.count == 50)
        let seen = fixes.map { $0.satellitesSeen ?? -1 }
        #expect(seen[0...34].allSatisfy { $0 == 5 }, "\(seen)")
        #expect(seen[35...].allSatisfy { $0 == 2 }, "\(seen)")
    }
}
