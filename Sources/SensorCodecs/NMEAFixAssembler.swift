import HandoffModel

/// Merges a receiver's sentences into one fix per epoch.
///
/// A receiver reports each solution (an *epoch*, usually one per second) as a burst of
/// sentences that share a UTC time of day: RMC, GGA, GSA, GSV, VTG, GLL, ZDA, GNS in an order and
/// mix of its own. The assembler collects one burst and emits the fix when the burst is over:
/// either when a sentence with a new time of day arrives, or — once it has seen one whole
/// burst — right after the sentence that ended the previous burst, so a live fix is not held
/// back for a second (gpsd learns its "cycle ender" the same way).
public struct NMEAFixAssembler: Sendable {
    /// The fields of the burst being collected.
    private var epoch = Burst()
    /// The time of day of the latest timed sentence: a different one starts a new burst.
    private var lastTime: NMEATime?
    private var reportedTime: NMEATime?
    /// The sentence that ended the last complete burst, and how many of it the burst held.
    private var ender: (address: String, occurrence: Int)?
    private var counts: [String: Int] = [:]
    private var lastAddress: String?
    /// The date carries over from burst to burst; a receiver states it only in RMC and ZDA.
    private var date: NMEADate?
    private var dateTime: NMEATime?
    /// The sky view: each talker's latest complete GSV set (some receivers send GSV every few
    /// epochs), with the receiver's time of day when it completed. A set not renewed for
    /// `skyLifetimeSeconds` (a constellation the receiver stopped reporting) no longer counts.
    private var sky: [String: (satellites: [SatelliteInView], secondsOfDay: Double?)] = [:]
    static let skyLifetimeSeconds = 30.0
    private var skyInProgress: [String: [SatelliteInView]] = [:]

    public init() {}

    private struct Burst {
        var time: NMEATime?
        var rmc: RMC?
        var gga: GGA?
        var gns: GNS?
        var gll: GLL?
        var vtg: VTG?
        var gsa: [GSA] = []
        var hasSentences = false
    }

    /// Takes one decoded sentence and its address (`GNRMC`); returns the fix of the burst it
    /// completes, if any. At most one burst completes per sentence.
    public mutating func add(_ report: NMEAReport, address: String) -> GNSSFix? {
        var completed: GNSSFix?
        if let time = report.time, lastTime.map({ !Self.sameTime(time, $0) }) ?? true {
            // A new time of day: whatever was collected under the old one is a whole burst.
            if lastTime != nil, let lastAddress { ender = (lastAddress, counts[lastAddress] ?? 1) }
            if epoch.time != nil { completed = takeFix() }
            lastTime = time
            counts.removeAll(keepingCapacity: true)
        }
        apply(report)
        counts[address, default: 0] += 1
        lastAddress = address
        if completed == nil, let ender, ender.address == address, counts[address] == ender.occurrence,
            epoch.time != nil
        {
            completed = takeFix()
        }
        return completed
    }

    /// The fix of the burst in progress, at the end of the input.
    public mutating func finish() -> GNSSFix? {
        epoch.time != nil ? takeFix() : nil
    }

    /// The burst's fix; sentences after it start the next burst.
    private mutating func takeFix() -> GNSSFix {
        let result = fix()
        reportedTime = epoch.time
        epoch = Burst()
        return result
    }

    private static func sameTime(_ a: NMEATime, _ b: NMEATime) -> Bool {
        a.hour == b.hour && a.minute == b.minute && abs(a.second - b.second) < 0.0005
    }

    private mutating func apply(_ report: NMEAReport) {
        epoch.hasSentences = true
        if let time = report.time {
            // A late sentence of an epoch already reported must not reopen it.
            if let reportedTime, Self.sameTime(time, reportedTime) { return }
            epoch.time = time
        }
        switch report {
        case .rmc(let s):
            epoch.rmc = s
            // Before a fix, receivers fill the date from their unset clock (an MT3301 says 1980,
            // an SE4100L 2006): only a valid RMC's date is the date.
            if s.status == "A", let d = s.date { setDate(d, at: s.time) }
        case .gga(let s): if epoch.gga == nil || s.hasFix { epoch.gga = s }
        case .gns(let s): epoch.gns = s
        case .gll(let s): epoch.gll = s
        case .vtg(let s): epoch.vtg = s
        case .zda(let s): if let d = s.date { setDate(d, at: s.time) }
        case .gsa(let s): epoch.gsa.append(s)
        case .gsv(let s):
            let key = s.talker + (s.signalID ?? "")
            if s.number == 1 { skyInProgress[key] = [] }
            skyInProgress[key, default: []].append(contentsOf: s.satellites)
            if s.number == s.total {
                sky[key] = (skyInProgress[key] ?? [], lastTime?.secondsOfDay)
                skyInProgress[key] = nil
            }
        }
    }

    private mutating func setDate(_ d: NMEADate, at time: NMEATime?) {
        date = d
        dateTime = time
    }

    /// The date of the burst: the last stated date, a day later if the time of day wrapped
    /// past midnight since it was stated.
    private func burstDate(_ time: NMEATime) -> NMEADate? {
        guard let date else { return nil }
        guard let stated = dateTime, time.secondsOfDay + 43_200 < stated.secondsOfDay else { return date }
        return date.adding(days: 1)
    }

    private func fix() -> GNSSFix {
        let e = epoch
        var fix = GNSSFix(mode: .none, time: e.time)
        if let time = e.time { fix.date = burstDate(time) }

        // Position: GGA, else GNS, else RMC, else GLL — the first that has a fix.
        let rmcFix = e.rmc.map { $0.hasFix } ?? false
        if let g = e.gga, g.hasFix {
            (fix.latitude, fix.longitude) = (g.latitude, g.longitude)
            fix.altitudeMeters = g.altitudeMeters
            fix.satellitesUsed = g.satellitesUsed
            fix.hdop = g.hdop
        } else if let g = e.gns, g.hasFix {
            (fix.latitude, fix.longitude) = (g.latitude, g.longitude)
            fix.altitudeMeters = g.altitudeMeters
            fix.satellitesUsed = g.satellitesUsed
            fix.hdop = g.hdop
        } else if let r = e.rmc, rmcFix {
            (fix.latitude, fix.longitude) = (r.latitude, r.longitude)
        } else if let l = e.gll, l.hasFix {
            (fix.latitude, fix.longitude) = (l.latitude, l.longitude)
        }
        // A receiver that says it has no fix is believed over any position it still sends.
        let denied =
            (e.rmc.map { !$0.hasFix } ?? false) || (e.gga.map { $0.quality == 0 } ?? false)
            || (e.gsa.first?.fixType == 1 && e.gsa.allSatisfy { $0.fixType == 1 })
        if denied && !(rmcFix || e.gga?.hasFix == true) { (fix.latitude, fix.longitude) = (nil, nil) }

        if fix.latitude != nil {
            let gsaMode = e.gsa.compactMap(\.fixType).max()
            if fix.altitudeMeters != nil {
                fix.mode = .threeD
            } else if gsaMode == 3 {
                fix.mode = .threeD
            } else {
                fix.mode = .twoD
            }
            if let r = e.rmc, rmcFix {
                fix.speedMetersPerSecond = r.speedMetersPerSecond
                fix.trackDegrees = r.trackDegrees
            }
            if let v = e.vtg, v.mode != "N" {
                if fix.speedMetersPerSecond == nil { fix.speedMetersPerSecond = v.speedMetersPerSecond }
                if fix.trackDegrees == nil { fix.trackDegrees = v.trackDegrees }
            }
        }
        if let gsa = e.gsa.last {
            fix.pdop = gsa.pdop
            fix.vdop = gsa.vdop
            if fix.hdop == nil { fix.hdop = gsa.hdop }
            var used = Set<Int>()
            for s in e.gsa { used.formUnion(s.satellitesUsed.map { Self.satelliteKey(s, $0) }) }
            if !used.isEmpty || fix.satellitesUsed == nil { fix.satellitesUsed = used.count }
        }
        let now = e.time?.secondsOfDay
        let seen = sky.values.reduce(into: Set<Int>()) { set, entry in
            if let now, let then = entry.secondsOfDay {
                // Receiver time of day: an age across midnight wraps.
                let age = (now - then + 86_400).truncatingRemainder(dividingBy: 86_400)
                if age > Self.skyLifetimeSeconds { return }
            }
            for sat in entry.satellites {
                set.insert(sat.prn &* 16 &+ GNSSConstellation.allCases.firstIndex(of: sat.constellation)!)
            }
        }
        if !seen.isEmpty { fix.satellitesSeen = seen.count }
        return fix
    }

    /// A satellite's identity across GSA sentences: the system ID (NMEA 4.10) or the talker, and
    /// the PRN.
    private static func satelliteKey(_ gsa: GSA, _ prn: Int) -> Int {
        let system =
            gsa.systemID
            ?? (gsa.talker == "GN"
                ? 0
                : GNSSConstellation.allCases.firstIndex(
                    of: GNSSConstellation(talker: gsa.talker))! + 16)
        return system &* 1000 &+ prn
    }
}

extension NMEADate {
    /// The next calendar days (a time of day past midnight after the date was stated).
    func adding(days: Int) -> NMEADate {
        var y = year
        var m = month
        var d = day + min(max(days, 0), 366)
        while true {
            let length = CivilTime.daysIn(month: m, year: y)
            guard d > length else { break }
            d -= length
            m += 1
            if m > 12 {
                m = 1
                y += 1
            }
        }
        return NMEADate(year: y, month: m, day: d)
    }

}
