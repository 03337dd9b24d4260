/// Folds record points into `RunStatistics`. The recorder uses it as points are made, recovery
/// over the points a crash left behind, and the activity-file readers over a file's points: one
/// computation for all.
public struct StatisticsAccumulator: Hashable, Sendable {
    private var heartRateSum = 0
    private var heartRateCount = 0
    private var heartRateMax: Int?
    private var cadenceSum = 0
    private var cadenceCount = 0
    private var crankSum = 0
    private var crankCount = 0
    private var movingSeconds = 0
    private var pointCount = 0
    private var maximumSpeed: Double?

    public init() {}

    /// How many points were added.
    public var count: Int { pointCount }

    public mutating func add(_ point: RecordPoint) {
        pointCount += 1
        if let hr = point.heartRateBPM {
            heartRateSum += hr
            heartRateCount += 1
            heartRateMax = max(heartRateMax ?? hr, hr)
        }
        // Cadence is averaged over the seconds with steps, as watches do.
        if let cadence = point.cadenceSPM, cadence > 0 {
            cadenceSum += cadence
            cadenceCount += 1
        }
        // Crank cadence likewise over the seconds pedalled: coasting is not a cadence of zero.
        if let rpm = point.cadenceRPM, rpm > 0 {
            crankSum += rpm
            crankCount += 1
        }
        if point.isMoving { movingSeconds += 1 }
        if let speed = point.speedMetersPerSecond { maximumSpeed = max(maximumSpeed ?? speed, speed) }
    }

    public func statistics(distanceMeters: Double, timerSeconds: Double) -> RunStatistics {
        RunStatistics(
            distanceMeters: distanceMeters, timerSeconds: timerSeconds, movingSeconds: movingSeconds,
            averageHeartRate: heartRateCount > 0 ? Double(heartRateSum) / Double(heartRateCount) : nil,
            maximumHeartRate: heartRateMax,
            averageCadence: cadenceCount > 0 ? Double(cadenceSum) / Double(cadenceCount) : nil,
            maximumSpeed: maximumSpeed, pointCount: pointCount,
            averageCrankCadence: crankCount > 0 ? Double(crankSum) / Double(crankCount) : nil)
    }
}
