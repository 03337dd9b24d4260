import HandoffModel

/// One line of gpsd's JSON protocol (gpsd_json(5)), as the pack's gpsd client reads it.
public enum GpsdReport: Hashable, Sendable {
    /// A time-position-velocity report.
    case tpv(GpsdTPV)
    /// A sky view: dilutions of precision and satellites.
    case sky(GpsdSky)
    /// The devices gpsd reads (`DEVICES`, or one `DEVICE` when it appears or goes).
    case devices([GpsdDevice])
    /// Another class (`VERSION`, `WATCH`, `PPS`, …): understood and not needed.
    case other(String)
    /// gpsd refused a command.
    case error(String)

    public init(line: String) throws(GpsdReportError) {
        let value: JSONValue
        do { value = try JSONParser.parse(line) } catch { throw .notJSON("\(error)") }
        guard let object = value.objectValue else { throw .notAnObject }
        guard let type = object["class"]?.stringValue else { throw .missingClass }
        switch type {
        case "TPV": self = .tpv(try GpsdTPV(object))
        case "SKY": self = .sky(GpsdSky(object))
        case "DEVICES":
            self = .devices((object["devices"]?.arrayValue ?? []).compactMap { $0.objectValue.map(GpsdDevice.init) })
        case "DEVICE": self = .devices([GpsdDevice(object)])
        case "ERROR": self = .error(object["message"]?.stringValue ?? "gpsd reported an error")
        default: self = .other(type)
        }
    }
}

public enum GpsdReportError: Error, Hashable, Sendable, CustomStringConvertible {
    case notJSON(String)
    case notAnObject
    case missingClass
    case badField(String)

    public var description: String {
        switch self {
        case .notJSON(let why): "not JSON: \(why)"
        case .notAnObject: "not a JSON object"
        case .missingClass: "no \"class\" member"
        case .badField(let name): "\"\(name)\" has the wrong type or an impossible value"
        }
    }
}

/// gpsd's TPV: the fix of one epoch (possibly reported several times as sentences arrive).
public struct GpsdTPV: Hashable, Sendable {
    public var device: String?
    public var fix: GNSSFix

    init(_ o: JSONObject) throws(GpsdReportError) {
        device = o["device"]?.stringValue
        func number(_ key: String) throws(GpsdReportError) -> Double? {
            guard let v = o[key], !v.isNull else { return nil }
            guard let d = v.doubleValue, d.isFinite else { throw .badField(key) }
            return d
        }
        // Compared as a number: converting gpsd's (or a forger's) 1e300 to Int would trap.
        let modeNumber = try number("mode") ?? 0
        let mode: GPSFixMode = modeNumber >= 3 ? .threeD : modeNumber == 2 ? .twoD : .none
        var fix = GNSSFix(mode: mode)
        if let text = o["time"]?.stringValue {
            guard let (date, time) = Self.parseTime(text) else { throw .badField("time") }
            fix.date = date
            fix.time = time
        }
        if mode >= .twoD {
            fix.latitude = try number("lat")
            fix.longitude = try number("lon")
            if let lat = fix.latitude, abs(lat) > 90 { throw .badField("lat") }
            if let lon = fix.longitude, abs(lon) > 180 { throw .badField("lon") }
            // gpsd 3.20+ sends altMSL; older versions only alt (which meant MSL).
            let msl = try number("altMSL")
            fix.altitudeMeters = msl != nil ? msl : try number("alt")
            fix.speedMetersPerSecond = try number("speed")
            fix.trackDegrees = try number("track")
        }
        fix.errors = GNSSErrorEstimates(
            ept: try number("ept"), eph: try number("eph"), epv: try number("epv"), epx: try number("epx"),
            epy: try number("epy"), eps: try number("eps"), epd: try number("epd"), epc: try number("epc"))
        if fix.errors == GNSSErrorEstimates() { fix.errors = nil }
        self.fix = fix
    }

    /// `2020-07-11T22:37:45.000Z`.
    static func parseTime(_ text: String) -> (NMEADate, NMEATime)? {
        let b = Array(text.utf8)
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
            b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), b.last == UInt8(ascii: "Z")
        else { return nil }
        func int(_ range: Range<Int>) -> Int? {
            var v = 0
            for i in range {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                v = v * 10 + Int(b[i] - 0x30)
            }
            return v
        }
        guard let y = int(0..<4), let mo = int(5..<7), let d = int(8..<10), let h = int(11..<13),
            let mi = int(14..<16), let seconds = NMEAFields.decimal(b[17..<(b.count - 1)]),
            CivilTime.supportedYears.contains(y), (1...12).contains(mo),
            (1...CivilTime.daysIn(month: mo, year: y)).contains(d), h < 24, mi < 60, seconds < 61
        else { return nil }
        return (NMEADate(year: y, month: mo, day: d), NMEATime(hour: h, minute: mi, second: seconds))
    }
}

/// gpsd's SKY: dilutions of precision and the satellites in view.
public struct GpsdSky: Hashable, Sendable {
    public var hdop: Double?
    public var pdop: Double?
    public var vdop: Double?
    public var satellitesSeen: Int?
    public var satellitesUsed: Int?

    init(_ o: JSONObject) {
        hdop = o["hdop"]?.doubleValue
        pdop = o["pdop"]?.doubleValue
        vdop = o["vdop"]?.doubleValue
        let satellites = o["satellites"]?.arrayValue
        satellitesSeen = o["nSat"]?.int64Value.map(Int.init) ?? satellites?.count
        satellitesUsed =
            o["uSat"]?.int64Value.map(Int.init)
            ?? satellites.map { list in list.filter { $0.objectValue?["used"]?.boolValue == true }.count }
    }
}

/// A device gpsd reads.
public struct GpsdDevice: Hashable, Sendable {
    public var path: String?
    public var driver: String?
    public var activated: String?

    init(_ o: JSONObject) {
        path = o["path"]?.stringValue
        driver = o["driver"]?.stringValue
        activated = o["activated"]?.stringValue
    }
}

/// Turns gpsd's stream of reports into one fix per epoch.
///
/// gpsd reports a TPV after several sentences of an epoch, each time with what it knows so far
/// (the first ones may have a speed gpsd derived from positions; the last has the receiver's).
/// The merger keeps the latest TPV of an epoch and hands it on when a TPV of another epoch
/// arrives, adding the DOPs and satellite counts of the latest SKY.
public struct GpsdFixMerger: Sendable {
    private var pending: GNSSFix?
    private var sky: GpsdSky?

    public init() {}

    /// Takes a report; returns the fix of an epoch it closes, if any.
    public mutating func add(_ report: GpsdReport) -> GNSSFix? {
        switch report {
        case .sky(let s):
            sky = s
            if pending != nil { merge(into: &pending!) }
            return nil
        case .tpv(let tpv):
            var fix = tpv.fix
            merge(into: &fix)
            defer { pending = fix }
            guard let previous = pending else { return nil }
            if let a = previous.time, let b = fix.time, a == b, previous.date == fix.date { return nil }
            if previous.time == nil, fix.time == nil, previous.mode == fix.mode, fix.mode == .none { return nil }
            return previous
        default:
            return nil
        }
    }

    /// The epoch in progress, when the stream ends or stalls.
    public mutating func flush() -> GNSSFix? {
        defer { pending = nil }
        return pending
    }

    private func merge(into fix: inout GNSSFix) {
        guard let sky else { return }
        fix.hdop = sky.hdop
        fix.pdop = sky.pdop
        fix.vdop = sky.vdop
        fix.satellitesSeen = sky.satellitesSeen
        fix.satellitesUsed = sky.satellitesUsed
    }
}
