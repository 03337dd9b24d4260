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
    /// Every metre this receiver measured, counted or not (a ride's wheel learns from it).
    var odometer = 0.0
}

/// A bike sensor's latest two measurements (speed and cadence come from their difference), the
/// rates they gave, and its wheel as learnt from GPS (kept from one ride to the next).
struct BikeTrack: Hashable, Sendable {
    var latest: CSCMeasurement?
    var previous: CSCMeasurement?
    var latestTime: MonotonicInstant?
    /// Wheel revolutions per second and crank revolutions per minute, and when each last moved.
    var wheelRate: Double?
    var crankRate: Double?
    var wheelMoved: MonotonicInstant?
    var crankMoved: MonotonicInstant?
    /// The circumference learnt from GPS, in metres.
    var learntCircumference: Double?
    var learning = WheelLearning()
}

/// GPS metres and wheel revolutions over the same intervals, while the wheel is learnt.
struct WheelLearning: Hashable, Sendable {
    var meters = 0.0
    var revolutions = 0.0
    /// The GPS odometer at the previous CSC event, while GPS was locked.
    var odometerBefore: Double?
}
