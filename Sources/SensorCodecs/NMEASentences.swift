import HandoffModel

/// The GNSS a talker ID names (NMEA 0183 v4.11 §6.1.4; `GB` is the SiRF-TriG's spelling of `BD`).
public enum GNSSConstellation: String, Hashable, Sendable, CaseIterable {
    case gps, glonass, galileo, beidou, qzss, navic, combined, unknown

    public init(talker: String) {
        switch talker {
        case "GP": self = .gps
        case "GL": self = .glonass
        case "GA": self = .galileo
        case "GB", "BD": self = .beidou
        case "GQ", "QZ": self = .qzss
        case "GI": self = .navic
        case "GN": self = .combined
        default: self = .unknown
        }
    }

    /// The NMEA 4.10 GSA/GSV system ID (1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC).
    public init(systemID: Int) {
        switch systemID {
        case 1: self = .gps
        case 2: self = .glonass
        case 3: self = .galileo
        case 4: self = .beidou
        case 5: self = .qzss
        case 6: self = .navic
        default: self = .unknown
        }
    }
}

/// GSA: the fix's dimension, the satellites used and the dilutions of precision. A multi-GNSS
/// receiver sends one GSA per constellation in each epoch.
public struct GSA: Hashable, Sendable {
    public var talker: String
    /// `M` manual or `A` automatic 2D/3D selection.
    public var selection: Character?
    /// 1 no fix, 2 2D, 3 3D.
    public var fixType: Int?
    /// The satellites used in the solution (PRNs as sent; empty slots dropped).
    public var satellitesUsed: [Int]
    public var pdop: Double?
    public var hdop: Double?
    public var vdop: Double?
    /// NMEA 4.10's GNSS system ID, when sent.
    public var systemID: Int?

    init(_ s: NMEASentence) throws(NMEAError) {
        let name = s.talker + "GSA"
        guard s.fieldCount >= 17 else { throw .missingFields(sentence: name, needed: 17, have: s.fieldCount) }
        let f = NMEAFields(sentence: name, s)
        talker = s.talker
        selection = try f.character(0, "selection mode", allowed: "AM")
        fixType = try f.integer(1, "fix type")
        if let t = fixType, !(1...3).contains(t) { throw f.bad("fix type", 1) }
        var used: [Int] = []
        for index in 2..<14 {
            if let prn = try f.integer(index, "satellite") { used.append(prn) }
        }
        satellitesUsed = used
        pdop = try f.number(14, "PDOP")
        hdop = try f.number(15, "HDOP")
        vdop = try f.number(16, "VDOP")
        systemID = s.fieldCount > 17 ? try f.integer(17, "system ID") : nil
    }
}

/// One satellite in view, as a GSV sentence lists it.
public struct SatelliteInView: Hashable, Sendable {
    public var constellation: GNSSConstellation
    public var prn: Int
    public var elevationDegrees: Int?
    public var azimuthDegrees: Int?
    /// Carrier-to-noise density in dB-Hz; `nil` when the satellite is not tracked.
    public var snr: Int?
}

/// GSV: satellites in view, four per sentence, over `total` sentences.
public struct GSV: Hashable, Sendable {
    public var talker: String
    public var total: Int
    public var number: Int
    public var satellitesInView: Int
    public var satellites: [SatelliteInView]
    /// NMEA 4.10's signal ID (the last field when the count of fields says it is there).
    public var signalID: String?

    init(_ s: NMEASentence) throws(NMEAError) {
        let name = s.talker + "GSV"
        guard s.fieldCount >= 3 else { throw .missingFields(sentence: name, needed: 3, have: s.fieldCount) }
        let f = NMEAFields(sentence: name, s)
        talker = s.talker
        guard let total = try f.integer(0, "sentence count"), let number = try f.integer(1, "sentence number"),
            total >= 1, (1...total).contains(number)
        else { throw f.bad("sentence number", 1) }
        self.total = total
        self.number = number
        satellitesInView = try f.integer(2, "satellites in view") ?? 0
        let groups = (s.fieldCount - 3) / 4
        signalID =
            (s.fieldCount - 3) % 4 == 1 ? s.field(s.fieldCount - 1).map { String(decoding: $0, as: UTF8.self) } : nil
        let constellation = GNSSConstellation(talker: s.talker)
        var satellites: [SatelliteInView] = []
        for group in 0..<groups {
            let base = 3 + group * 4
            guard let prn = try f.integer(base, "PRN") else { continue }
            satellites.append(
                SatelliteInView(
                    constellation: constellation, prn: prn,
                    elevationDegrees: try f.signedInteger(base + 1, "elevation"),
                    azimuthDegrees: try f.integer(base + 2, "azimuth"), snr: try f.integer(base + 3, "SNR")))
        }
        self.satellites = satellites
    }
}

/// VTG: course and speed over ground.
public struct VTG: Hashable, Sendable {
    public var trackDegrees: Double?
    public var speedKnots: Double?
    /// The FAA mode indicator (NMEA 2.3+); `N` means the values are not valid.
    public var mode: Character?

    public var speedMetersPerSecond: Double? { speedKnots.map { $0 * 1852.0 / 3600.0 } }

    init(_ s: NMEASentence) throws(NMEAError) {
        let name = s.talker + "VTG"
        let f = NMEAFields(sentence: name, s)
        if s.fieldCount >= 8, s.field(1) == nil || s.field(1) == [UInt8(ascii: "T")] {
            // NMEA 2.x and later: value, unit letter pairs.
            trackDegrees = try f.number(0, "track")
            speedKnots = try f.number(4, "speed")
            if speedKnots == nil, let kmh = try f.number(6, "speed") { speedKnots = kmh / 1.852 }
            mode = s.fieldCount > 8 ? try f.character(8, "mode", allowed: "ADEFMNPRS") : nil
        } else if s.fieldCount >= 4 {
            // NMEA 1.x: track true, track magnetic, knots, km/h without unit letters.
            trackDegrees = try f.number(0, "track")
            speedKnots = try f.number(2, "speed")
            mode = nil
        } else {
            throw .missingFields(sentence: name, needed: 4, have: s.fieldCount)
        }
    }
}

/// GLL: geographic position, latitude and longitude, with time and status.
public struct GLL: Hashable, Sendable {
    public var latitude: Double?
    public var longitude: Double?
    public var time: NMEATime?
    public var status: Character?
    public var mode: Character?

    public var hasFix: Bool { status != "V" && mode != "N" && latitude != nil && longitude != nil }

    init(_ s: NMEASentence) throws(NMEAError) {
        let name = s.talker + "GLL"
        guard s.fieldCount >= 4 else { throw .missingFields(sentence: name, needed: 4, have: s.fieldCount) }
        let f = NMEAFields(sentence: name, s)
        time = s.fieldCount > 4 ? try f.time(4) : nil
        status = s.fieldCount > 5 ? try f.character(5, "status", allowed: "AV") : nil
        mode = s.fieldCount > 6 ? try f.character(6, "mode", allowed: "ADEFMNPRS") : nil
        (latitude, longitude) = status == "V" ? (nil, nil) : try f.position(0)
    }
}

/// ZDA: UTC time and a four-digit year (no two-digit-year ambiguity).
public struct ZDA: Hashable, Sendable {
    public var time: NMEATime?
    public var date: NMEADate?

    init(_ s: NMEASentence) throws(NMEAError) {
        let name = s.talker + "ZDA"
        guard s.fieldCount >= 4 else { throw .missingFields(sentence: name, needed: 4, have: s.fieldCount) }
        let f = NMEAFields(sentence: name, s)
        time = try f.time(0)
        let day = try f.integer(1, "day")
        let month = try f.integer(2, "month")
        let year = try f.integer(3, "year")
        switch (day, month, year) {
        case (nil, nil, nil): date = nil
        // A noisy line can pass the XOR checksum: a year outside CivilTime.supportedYears (1980–2100)
        // or a day the month lacks is refused here, never converted.
        case (let d?, let m?, let y?)
        where CivilTime.supportedYears.contains(y) && (1...12).contains(m)
            && (1...CivilTime.daysIn(month: m, year: y)).contains(d):
            date = NMEADate(year: y, month: m, day: d)
        default: throw f.bad("date", 1)
        }
    }
}

/// GNS: GNSS fix data, one mode letter per constellation (GPS, GLONASS, Galileo, BeiDou, …).
public struct GNS: Hashable, Sendable {
    public var time: NMEATime?
    public var latitude: Double?
    public var longitude: Double?
    /// One letter per constellation: `N` no fix, `A` autonomous, `D` differential, `E` estimated, …
    public var modes: String
    public var satellitesUsed: Int?
    public var hdop: Double?
    public var altitudeMeters: Double?
    public var geoidSeparationMeters: Double?

    /// Some constellation has a measured (not estimated, manual or simulated) fix.
    public var hasFix: Bool {
        latitude != nil && longitude != nil && modes.contains(where: { "ADPRF".contains($0) })
    }

    init(_ s: NMEASentence) throws(NMEAError) {
        let name = s.talker + "GNS"
        guard s.fieldCount >= 10 else { throw .missingFields(sentence: name, needed: 10, have: s.fieldCount) }
        let f = NMEAFields(sentence: name, s)
        time = try f.time(0)
        modes = s.field(5).map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard modes.utf8.allSatisfy({ "ADEFMNPRS".utf8.contains($0) }) else { throw f.bad("mode", 5) }
        let anyFix = modes.contains(where: { $0 != "N" })
        (latitude, longitude) = anyFix ? try f.position(1) : (nil, nil)
        satellitesUsed = try f.integer(6, "satellites used")
        hdop = try f.number(7, "HDOP")
        altitudeMeters = try f.number(8, "altitude")
        geoidSeparationMeters = try f.number(9, "geoid separation")
    }
}
