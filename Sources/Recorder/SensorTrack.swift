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

    var rsc: RSCMeasurement?
    /// The footpod's previous measurement, for its distance increments.
    var rscPrevious: RSCMeasurement?
    var rscPreviousTime: MonotonicInstant?

    /// The latest fix and when it arrived.
    var gpsFix: GNSSFix?
    /// The previous epoch with a fix, for GPS distance increments.
    var gpsPrevious: EpochFix?
    /// Where position-based distance last counted from (receivers without speed).
    var gpsAnchor: EpochFix?
    /// Set once two consecutive fixes joined up: from then on GPS measures the distance.
    var gpsLocked = false

    /// A bike sensor's latest two measurements (speed and cadence come from their difference).
    var csc: CSCMeasurement?
    var cscPrevious: CSCMeasurement?
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
        guard kind == .gps, gpsLocked, let previous = gpsPrevious else { return false }
        return isFresh(at: time, staleAfter: configuration.staleAfterNanoseconds)
            && time.nanoseconds - previous.time.nanoseconds <= configuration.staleAfterNanoseconds
    }
}
