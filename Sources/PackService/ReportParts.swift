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

extension GPSReport {
    /// A fix: where it puts the pack, how it moves and when, and how good it is.
    init(_ fix: GNSSFix) {
        self.init(fix: GPSFix(fix.mode))
        position.time = fix.iso8601Time
        position.lat = fix.latitude
        position.lon = fix.longitude
        position.altM = fix.altitudeMeters
        position.speedMps = fix.speedMetersPerSecond.map { Format.rounded($0, 2) }
        position.trackDeg = fix.trackDegrees
        quality.hdop = fix.hdop
        quality.pdop = fix.pdop
        quality.vdop = fix.vdop
        quality.satellites = fix.satellitesUsed
        quality.satellitesSeen = fix.satellitesSeen
        quality.ephM = fix.errors?.eph
        quality.epvM = fix.errors?.epv
        quality.epsMps = fix.errors?.eps
    }
}

extension SensorPayloadsReport {
    init(_ counts: RunPipeline.DecodeCounts) {
        self.init(
            decoded: counts.decoded, skipped: counts.skipped, rejected: counts.rejected, lastError: counts.lastError)
    }
}
