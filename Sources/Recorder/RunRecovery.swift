import HandoffModel

/// Finishes a session whose recorder is gone (a crash, a power cut) from what was committed:
/// its points, events and closed laps. Uses the same statistics code as a live finish.
public enum RunRecovery {
    public struct Result: Hashable, Sendable {
        public var summary: RunSummary
        /// The lap from the last closed one to the last point, if it has any point.
        public var finalLap: Lap?
    }

    /// `points` in elapsed order; `laps` the laps already closed.
    public static func finish(points: [RecordPoint], events: [SessionEvent], laps: [Lap]) -> Result {
        let timeline = TimerTimeline(events: events)
        var session = StatisticsAccumulator()
        var splits = SplitTracker()
        var lap = StatisticsAccumulator()
        var lapPoints = 0
        let lastLap = laps.max { $0.index < $1.index }
        let lapStartElapsed = lastLap?.endElapsedSeconds ?? 0
        var lapStartDistance = 0.0
        for point in points {
            session.add(point)
            splits.add(
                point, timerSeconds: timeline.timerSeconds(atOffset: Int64(point.elapsedSeconds) * nanosecondsPerSecond)
            )
            if lastLap == nil || point.elapsedSeconds > lapStartElapsed {
                lap.add(point)
                lapPoints += 1
            } else if point.elapsedSeconds == lapStartElapsed {
                lapStartDistance = point.distanceMeters
            }
        }
        let end = points.last
        let endOffset = Int64(end?.elapsedSeconds ?? 0) * nanosecondsPerSecond
        let timer = timeline.timerSeconds(atOffset: endOffset)
        let distance = end?.distanceMeters ?? 0
        let summary = RunSummary(
            elapsedSeconds: Double(endOffset) / 1e9,
            statistics: session.statistics(distanceMeters: distance, timerSeconds: timer),
            splits: splits.finished(distanceMeters: distance, timerSeconds: timer))
        var finalLap: Lap?
        if lapPoints > 0, let end {
            let lapStartTimer = timeline.timerSeconds(atOffset: Int64(lapStartElapsed) * nanosecondsPerSecond)
            finalLap = Lap(
                index: (lastLap?.index ?? 0) + 1, trigger: .sessionEnd, startElapsedSeconds: lapStartElapsed,
                endElapsedSeconds: end.elapsedSeconds,
                statistics: lap.statistics(
                    distanceMeters: distance - lapStartDistance, timerSeconds: timer - lapStartTimer))
        }
        return Result(summary: summary, finalLap: finalLap)
    }
}
