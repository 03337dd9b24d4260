import HandoffModel
import SensorCodecs

/// What the recorder knows of one sensor: its latest value, link and gap state, and the state
/// its distance increments need.
struct SensorTrack: Hashable, Sendable {
    let id: SensorID
    /// What it measures; `unknown` until its first reading says (a link event can come first).
    var kind: SensorKind
    var lastDataTime: MonotonicInstant?
    var link: LinkState?
    var inGap = false

    var heartRate: HeartRateMeasurement?

    var footpod = FootpodTrack()
    var gps = GPSTrack()
    var bike = BikeTrack()
    /// The latest battery level, in percent.
    var batteryPercent: UInt8?

    /// A pedometer's last count, to turn counts into increments.
    var stepCount: Int?

    init(id: SensorID, kind: SensorKind) {
        self.id = id
        self.kind = kind
    }

    /// Whether its latest value may be used at `time`.
    func isFresh(at time: MonotonicInstant, staleAfter: Int64) -> Bool {
        guard link != .disconnected, let last = lastDataTime else { return false }
        return time.nanoseconds - last.nanoseconds <= staleAfter
    }

    /// Whether the GPS distance filter has two consecutive fixes it trusts.
    func gpsIsLocked(at time: MonotonicInstant, configuration: RecorderConfiguration) -> Bool {
        guard kind == .gps, gps.locked, let previous = gps.previous else { return false }
        return isFresh(at: time, staleAfter: configuration.staleAfterNanoseconds)
            && time.nanoseconds - previous.time.nanoseconds <= configuration.staleAfterNanoseconds
    }
}

/// A footpod's latest measurement, and the previous one with its time for distance increments.
struct FootpodTrack: Hashable, Sendable {
    var latest: RSCMeasurement?
    var previous: RSCMeasurement?
    var previousTime: MonotonicInstant?
}

/// A receiver's latest fix, and the state of the GPS distance filter.
struct GPSTrack: Hashable, Sendable {
    /// The latest fix.
    var fix: GNSSFix?
    /// The previous epoch with a fix, for GPS distance increments.
    var previous: EpochFix?
    /// Where position-based distance last counted from (receivers without speed).
    var anchor: EpochFix?
    /// Set once two consecutive fixes joined up: from then on GPS measures the distance.
    var locked = false
}

/// A bike sensor's latest two measurements (speed and cadence come from their difference).
struct BikeTrack: Hashable, Sendable {
    var latest: CSCMeasurement?
    var previous: CSCMeasurement?
}
