import HandoffModel
import SensorCodecs

/// The recorder's state at a moment, for `handoff status`.
public struct RecorderSnapshot: Hashable, Sendable {
    public var state: SessionState
    public var elapsedSeconds: Double?
    public var timerSeconds: Double?
    public var distanceMeters: Double?
    /// The lap in progress (while a run is).
    public var lap: LapProgress?
    public var pointCount: Int
    /// The latest fused values, absent when stale.
    public var heartRateBPM: Int?
    public var cadenceSPM: Int?
    public var speedMetersPerSecond: Double?
    public var gps: GNSSFix
    /// Steps counted in this session so far, when there is a step source.
    public var steps: Int?
    public var sensors: [SensorSnapshot]

    /// The lap in progress: its number and the distance it has so far.
    public struct LapProgress: Hashable, Sendable {
        public var index: Int
        public var distanceMeters: Double
    }

    public var lapIndex: Int? { lap?.index }
    public var lapDistanceMeters: Double? { lap?.distanceMeters }
}

/// One sensor as status shows it.
public struct SensorSnapshot: Hashable, Sendable {
    public var id: SensorID
    public var kind: SensorKind
    public var link: LinkState?
    /// Seconds since its last value, if it ever sent one.
    public var secondsSinceData: Double?
    public var isFresh: Bool
    public var inGap: Bool
    /// The latest values it sent (fresh or not), for `handoff sensor test`.
    public var heartRate: HeartRateMeasurement?
    public var rsc: RSCMeasurement?
    /// Wheel revolutions per second and crank revolutions per minute from its last two values.
    public var wheelPerSecond: Double?
    public var crankPerMinute: Double?
    public var steps: Int?
    public var batteryPercent: UInt8?
}

extension Recorder {
    /// What the recorder knows at `now` (which need not be an input time).
    public func snapshot(at now: MonotonicInstant) -> RecorderSnapshot {
        let stale = configuration.staleAfterNanoseconds
        let now = max(now, grid.lastInputTime)
        func freshest(_ kind: SensorKind) -> SensorTrack? {
            if let id = selected[kind], let t = tracks.first(where: { $0.id == id }),
                t.isFresh(at: now, staleAfter: stale)
            {
                return t
            }
            return tracks.filter { $0.kind == kind && $0.isFresh(at: now, staleAfter: stale) }
                .max { ($0.lastDataTime!, $1.id) < ($1.lastDataTime!, $0.id) }
        }
        let hr = freshest(.heartRate)?.heartRate.flatMap { $0.isPlausible ? Int($0.heartRate) : nil }
        let rsc = freshest(.footpod)?.footpod.latest
        let fix = freshest(.gps)?.gps.fix ?? GNSSFix(mode: .none)
        var snapshot = RecorderSnapshot(
            state: state, pointCount: totals.statistics.count,
            heartRateBPM: hr, cadenceSPM: rsc.map { Int($0.cadence) },
            speedMetersPerSecond: fix.speedMetersPerSecond ?? rsc?.speedMetersPerSecond, gps: fix,
            sensors: tracks.map { t in
                let rates = t.bike.latest.flatMap { c in t.bike.previous.map { c.rates(since: $0) } }
                return SensorSnapshot(
                    id: t.id, kind: t.kind, link: t.link,
                    secondsSinceData: t.lastDataTime.map { now.seconds(since: $0) },
                    isFresh: t.isFresh(at: now, staleAfter: stale), inGap: t.inGap, heartRate: t.heartRate,
                    rsc: t.footpod.latest, wheelPerSecond: rates?.wheelPerSecond, crankPerMinute: rates?.crankPerMinute,
                    steps: t.stepCount, batteryPercent: t.batteryPercent)
            })
        if let start, state != .idle {
            let offset = now.nanoseconds - start.monotonic.nanoseconds
            snapshot.elapsedSeconds = Double(offset) / 1e9
            snapshot.timerSeconds = timeline.timerSeconds(atOffset: offset)
            snapshot.distanceMeters = totals.distance.totalMeters
            snapshot.lap = RecorderSnapshot.LapProgress(
                index: lap.index, distanceMeters: totals.distance.totalMeters - lap.startDistance)
            if stepCount.hasSource { snapshot.steps = Int(stepCount.count) }
        }
        return snapshot
    }
}
