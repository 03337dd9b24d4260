import PackControl
import PackStorage
import Recorder
import SensorCodecs

// The control reports' parts, made from what the pack knows.

extension RunClock {
    init(_ source: ClockSource) {
        switch source {
        case .system: self = .system
        case .gps: self = .gps
        case .unsynchronized: self = .unsynchronized
        }
    }
}

extension GPSPositionReport {
    /// Where the fix puts the pack, how it moves, and when.
    init(_ fix: GNSSFix) {
        self.init()
        time = fix.iso8601Time
        lat = fix.latitude
        lon = fix.longitude
        altM = fix.altitudeMeters
        speedMps = fix.speedMetersPerSecond.map { Format.rounded($0, 2) }
        trackDeg = fix.trackDegrees
    }
}

extension GPSQualityReport {
    /// How good the fix is.
    init(_ fix: GNSSFix) {
        self.init()
        hdop = fix.hdop
        pdop = fix.pdop
        vdop = fix.vdop
        satellites = fix.satellitesUsed
        satellitesSeen = fix.satellitesSeen
        ephM = fix.errors?.eph
        epvM = fix.errors?.epv
        epsMps = fix.errors?.eps
    }
}

extension SensorPayloadsReport {
    init(_ counts: RunPipeline.DecodeCounts) {
        self.init(
            decoded: counts.decoded, skipped: counts.skipped, rejected: counts.rejected, lastError: counts.lastError)
    }
}
