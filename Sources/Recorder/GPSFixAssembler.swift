import HandoffModel
import SensorCodecs

/// A GPS position fused from a receiver's sentences.
public struct GPSFix: Hashable, Sendable {
    public var mode: GPSFixMode
    public var latitude: Double?
    public var longitude: Double?
    public var altitudeMeters: Double?
    public var speedMetersPerSecond: Double?
    public var trackDegrees: Double?
    public var hdop: Double?
    public var satellitesUsed: Int?

    public static let noFix = GPSFix(mode: .none)

    public init(
        mode: GPSFixMode, latitude: Double? = nil, longitude: Double? = nil, altitudeMeters: Double? = nil,
        speedMetersPerSecond: Double? = nil, trackDegrees: Double? = nil, hdop: Double? = nil,
        satellitesUsed: Int? = nil
    ) {
        self.mode = mode
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeMeters = altitudeMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.trackDegrees = trackDegrees
        self.hdop = hdop
        self.satellitesUsed = satellitesUsed
    }
}

/// One fix that drives the distance filter: one per receiver epoch.
struct EpochFix: Hashable, Sendable {
    var time: MonotonicInstant
    var hasFix: Bool
    var latitude: Double
    var longitude: Double
    var speed: Double?
    var hdop: Double?
}

/// Merges a receiver's RMC and GGA sentences into fixes.
///
/// RMC drives the epochs (it carries status, position and speed); GGA adds altitude, HDOP and
/// satellites. A receiver that sends GGA alone is driven by GGA, without speed.
struct GPSFixAssembler: Hashable, Sendable {
    private(set) var lastRMC: RMC?
    private(set) var lastRMCTime: MonotonicInstant?
    private(set) var lastGGA: GGA?
    private(set) var lastGGATime: MonotonicInstant?
    private var sendsRMC = false
    /// RMC and GGA of one epoch arrive within this of each other.
    private let epochWindow: Int64 = 1_500_000_000

    /// Takes a sentence; returns the epoch fix it completes, if it drives epochs.
    mutating func add(_ report: NMEAReport, at time: MonotonicInstant) -> EpochFix? {
        switch report {
        case .rmc(let rmc):
            sendsRMC = true
            lastRMC = rmc
            lastRMCTime = time
            guard rmc.hasFix, let lat = rmc.latitude, let lon = rmc.longitude else {
                return EpochFix(time: time, hasFix: false, latitude: 0, longitude: 0)
            }
            let hdop = recentGGA(at: time)?.hdop
            return EpochFix(
                time: time, hasFix: true, latitude: lat, longitude: lon, speed: rmc.speedMetersPerSecond, hdop: hdop)
        case .gga(let gga):
            lastGGA = gga
            lastGGATime = time
            guard !sendsRMC else { return nil }
            guard gga.hasFix, let lat = gga.latitude, let lon = gga.longitude else {
                return EpochFix(time: time, hasFix: false, latitude: 0, longitude: 0)
            }
            return EpochFix(time: time, hasFix: true, latitude: lat, longitude: lon, speed: nil, hdop: gga.hdop)
        }
    }

    private func recentGGA(at time: MonotonicInstant) -> GGA? {
        guard let gga = lastGGA, let t = lastGGATime, time.nanoseconds - t.nanoseconds <= epochWindow else {
            return nil
        }
        return gga
    }

    /// When this receiver last said anything.
    var lastSentenceTime: MonotonicInstant? {
        switch (lastRMCTime, lastGGATime) {
        case (nil, nil): nil
        case (let a?, nil): a
        case (nil, let b?): b
        case (let a?, let b?): max(a, b)
        }
    }

    /// The fix as of `now`: from the newest sentence not older than `staleAfter`.
    func fix(at now: MonotonicInstant, staleAfter: Int64) -> GPSFix {
        func fresh(_ t: MonotonicInstant?) -> Bool {
            guard let t else { return false }
            return now.nanoseconds - t.nanoseconds <= staleAfter
        }
        let rmc = fresh(lastRMCTime) ? lastRMC : nil
        let gga = fresh(lastGGATime) ? lastGGA : nil
        // The newest sentence decides whether there is a fix at all.
        let newestIsRMC =
            (lastRMCTime ?? MonotonicInstant(nanoseconds: .min)) >= (lastGGATime ?? MonotonicInstant(nanoseconds: .min))
        let newestHasFix: Bool
        if newestIsRMC, let rmc {
            newestHasFix = rmc.hasFix
        } else if let gga {
            newestHasFix = gga.hasFix
        } else {
            return .noFix
        }
        guard newestHasFix else { return .noFix }
        let validRMC = rmc?.hasFix == true ? rmc : nil
        let validGGA = gga?.hasFix == true ? gga : nil
        let useRMCPosition = validRMC != nil && (validGGA == nil || newestIsRMC)
        let latitude = useRMCPosition ? validRMC?.latitude : validGGA?.latitude
        let longitude = useRMCPosition ? validRMC?.longitude : validGGA?.longitude
        let altitude = validGGA?.altitudeMeters
        return GPSFix(
            mode: altitude != nil ? .threeD : .twoD, latitude: latitude, longitude: longitude,
            altitudeMeters: altitude, speedMetersPerSecond: validRMC?.speedMetersPerSecond,
            trackDegrees: validRMC?.trackDegrees, hdop: validGGA?.hdop, satellitesUsed: validGGA?.satellitesUsed)
    }
}
