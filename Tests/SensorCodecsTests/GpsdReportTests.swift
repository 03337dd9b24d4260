import HandoffModel
import SensorCodecs
import Testing

/// gpsd's JSON reports (gpsd_json(5)) as the pack's client reads them. Real gpsd output is checked
/// in GpsdClientTests (gpsfake); these are the lines a broken or hostile peer could send.
@Suite("gpsd reports")
struct GpsdReportTests {
    // As gpsd 3.22 writes them (trimmed of members the pack does not read).
    static let tpv =
        #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2021-01-28T16:25:42.000Z","ept":0.005,"#
        + #""lat":46.498293369,"lon":7.567411672,"altHAE":1343.1350,"altMSL":1292.8630,"alt":1292.8630,"#
        + #""epx":2.841,"epy":3.252,"epv":9.543,"track":10.3788,"speed":0.091,"climb":-0.085,"eps":0.65,"#
        + #""epc":19.09,"eph":4.320}"#
    static let sky =
        #"{"class":"SKY","device":"/dev/ttyACM0","xdop":0.55,"ydop":0.62,"vdop":1.10,"tdop":0.78,"hdop":0.83,"#
        + #""gdop":1.58,"pdop":1.38,"nSat":22,"uSat":16,"satellites":[]}"#

    @Test("A TPV gives mode, time, position, MSL altitude, speed, track and gpsd's error estimates")
    func tpvFields() throws {
        guard case .tpv(let tpv) = try GpsdReport(line: Self.tpv) else {
            Issue.record("not a TPV")
            return
        }
        #expect(tpv.device == "/dev/ttyACM0")
        #expect(tpv.fix.mode == .threeD)
        #expect(tpv.fix.iso8601Time == "2021-01-28T16:25:42.000Z")
        #expect(tpv.fix.latitude == 46.498293369 && tpv.fix.longitude == 7.567411672)
        #expect(tpv.fix.altitudeMeters == 1292.8630)
        #expect(tpv.fix.speedMetersPerSecond == 0.091 && tpv.fix.trackDegrees == 10.3788)
        #expect(tpv.fix.errors?.eph == 4.320 && tpv.fix.errors?.epv == 9.543 && tpv.fix.errors?.eps == 0.65)
    }

    @Test("A TPV without a fix has no position even if stale members are present")
    func noFix() throws {
        let line = #"{"class":"TPV","mode":1,"time":"2021-01-28T16:25:42.000Z","lat":46.5,"lon":7.5}"#
        guard case .tpv(let tpv) = try GpsdReport(line: line) else {
            Issue.record("not a TPV")
            return
        }
        #expect(tpv.fix.mode == .none && tpv.fix.latitude == nil && !tpv.fix.hasPosition)
    }

    @Test("SKY's DOPs and satellite counts join the epoch's fix; one fix per epoch, when the next begins")
    func merger() throws {
        var merger = GpsdFixMerger()
        #expect(merger.add(try GpsdReport(line: Self.tpv)) == nil)
        #expect(merger.add(try GpsdReport(line: Self.sky)) == nil)
        // gpsd may report the same epoch again as more sentences arrive: still one fix.
        #expect(merger.add(try GpsdReport(line: Self.tpv)) == nil)
        let next = Self.tpv.replacingOccurrences(of: "16:25:42.000Z", with: "16:25:43.000Z")
        let fix = try #require(merger.add(try GpsdReport(line: next)))
        #expect(fix.iso8601Time == "2021-01-28T16:25:42.000Z")
        #expect(fix.hdop == 0.83 && fix.pdop == 1.38 && fix.vdop == 1.10)
        #expect(fix.satellitesUsed == 16 && fix.satellitesSeen == 22)
        #expect(merger.flush()?.iso8601Time == "2021-01-28T16:25:43.000Z")
        #expect(merger.flush() == nil)
    }

    @Test("gpsd's refusals and classes the pack does not need are told apart")
    func otherClasses() throws {
        #expect(
            try GpsdReport(line: #"{"class":"ERROR","message":"Unrecognized request 'WACH'"}"#)
                == .error("Unrecognized request 'WACH'"))
        #expect(try GpsdReport(line: #"{"class":"VERSION","release":"3.22","proto_major":3}"#) == .other("VERSION"))
        guard
            case .devices(let devices) = try GpsdReport(
                line: #"{"class":"DEVICE","path":"/dev/pts/3","driver":"NMEA0183","activated":0}"#)
        else {
            Issue.record("not DEVICE")
            return
        }
        #expect(devices.first?.path == "/dev/pts/3" && devices.first?.driver == "NMEA0183")
    }

    @Test(
        "Malformed lines are refused with what is wrong",
        arguments: [
            (#"{"class":"TPV","mode":3,"lat":"#, "not JSON"),
            (#"[{"class":"TPV"}]"#, "not a JSON object"),
            (#"{"mode":3,"lat":46.5}"#, #"no "class" member"#),
            (#"{"class":"TPV","mode":3,"lat":"north","lon":7.5}"#, #""lat" has the wrong type"#),
            (#"{"class":"TPV","mode":3,"lat":146.5,"lon":7.5}"#, #""lat" has the wrong type or an impossible value"#),
            (#"{"class":"TPV","mode":3,"lat":46.5,"lon":-187.5}"#, #""lon""#),
            (#"{"class":"TPV","mode":2,"time":"2021-13-28T16:25:42.000Z"}"#, #""time""#),
            (#"{"class":"TPV","mode":2,"time":"yesterday"}"#, #""time""#),
            (#"{"class":"TPV","mode":"3"}"#, #""mode""#),
        ])
    func malformed(line: String, message: String) {
        do {
            let report = try GpsdReport(line: line)
            Issue.record("accepted \(line) as \(report)")
        } catch {
            #expect(error.description.contains(message), "\(error)")
        }
    }
}
