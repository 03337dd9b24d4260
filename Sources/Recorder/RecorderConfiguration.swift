import HandoffModel

/// How the recorder fuses and judges readings. Defaults are documented in
/// `docs/configuration.md` and are what the pack uses unless `handoff.toml` says otherwise.
public struct RecorderConfiguration: Hashable, Sendable {
    /// Close a lap every this many metres; `nil` turns auto-lap off.
    public var autoLapMeters: Double?
    /// A sensor value older than this is absent from record points, and the sensor is in a gap.
    public var staleAfterNanoseconds: Int64
    /// A second counts as moving when the fused speed is at least this (m/s).
    public var movingSpeed: Double
    public var gps: GPSDistanceConfiguration
    /// Count steps from the footpod's cadence while no pedometer is fresh (the last fallback).
    public var stepsFromFootpodCadence: Bool
    public var bike: BikeConfiguration

    public init(
        autoLapMeters: Double? = 1000, staleAfterNanoseconds: Int64 = 3 * nanosecondsPerSecond,
        movingSpeed: Double = 0.5, gps: GPSDistanceConfiguration = GPSDistanceConfiguration(),
        stepsFromFootpodCadence: Bool = true, bike: BikeConfiguration = BikeConfiguration()
    ) {
        self.bike = bike
        self.stepsFromFootpodCadence = stepsFromFootpodCadence
        self.autoLapMeters = autoLapMeters
        self.staleAfterNanoseconds = staleAfterNanoseconds
        self.movingSpeed = movingSpeed
        self.gps = gps
    }
}

/// How GPS distance is measured and its jitter filtered.
///
/// With a speed over ground in the fixes (every receiver's RMC has one, from Doppler), distance
/// is that speed integrated between consecutive fixes: position noise then adds nothing.
/// Speeds below `stationarySpeed` count as standing still. Without speeds, distance is summed
/// between positions that moved further than the jitter radius from the last counted one.
public struct GPSDistanceConfiguration: Hashable, Sendable {
    public var stationarySpeed: Double
    /// Jitter radius: at least this many metres…
    public var minimumJitterRadius: Double
    /// …or this many metres per unit of HDOP, whichever is larger.
    public var jitterRadiusPerHDOP: Double
    /// Fixes further apart than this are not joined: the gap is someone else's (the footpod's).
    public var maximumFixGapNanoseconds: Int64
    /// A speed above this (m/s) is a glitch, not a runner.
    public var maximumSpeed: Double

    public init(
        stationarySpeed: Double = 0.3, minimumJitterRadius: Double = 3, jitterRadiusPerHDOP: Double = 3,
        maximumFixGapNanoseconds: Int64 = 5 * nanosecondsPerSecond, maximumSpeed: Double = 12
    ) {
        self.stationarySpeed = stationarySpeed
        self.minimumJitterRadius = minimumJitterRadius
        self.jitterRadiusPerHDOP = jitterRadiusPerHDOP
        self.maximumFixGapNanoseconds = maximumFixGapNanoseconds
        self.maximumSpeed = maximumSpeed
    }
}

/// How a ride's wheel becomes speed and distance.
///
/// The CSC sensor counts wheel revolutions; its circumference turns them into metres. Unset, it
/// is learnt: the GPS's metres over the wheel's revolutions during the first `learnOverMeters`
/// with a GPS lock, accepted between 1 and 3 m (a 20-inch to a 29er wheel with room either side).
/// Until then, and whenever the bike sensor is silent, GPS measures the ride.
public struct BikeConfiguration: Hashable, Sendable {
    /// The wheel's circumference in metres (2.105 for a 700×25C road tyre); `nil` learns it.
    public var wheelCircumferenceMeters: Double?
    public var learnOverMeters: Double
    /// A GPS speed above this (m/s) during a ride is a glitch (a runner's limit is `gps.maximumSpeed`).
    public var maximumSpeed: Double
    /// No wheel or crank event for this long means the wheel or the crank stands still.
    public var stillAfterNanoseconds: Int64

    public static let plausibleCircumference = 1.0...3.0
    /// Crank revolutions per minute beyond what a track sprinter turns.
    public static let maximumCadence = 250.0

    public init(
        wheelCircumferenceMeters: Double? = nil, learnOverMeters: Double = 2000, maximumSpeed: Double = 25,
        stillAfterNanoseconds: Int64 = 2 * nanosecondsPerSecond
    ) {
        self.wheelCircumferenceMeters = wheelCircumferenceMeters
        self.learnOverMeters = learnOverMeters
        self.maximumSpeed = maximumSpeed
        self.stillAfterNanoseconds = stillAfterNanoseconds
    }
}
