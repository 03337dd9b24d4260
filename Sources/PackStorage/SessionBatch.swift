import HandoffModel

/// What the recorder produced since the last commit, written in one transaction.
public struct SessionBatch: Sendable {
    public var session: SessionID
    public var points: [RecordPoint] = []
    public var rrIntervals: [RRIntervalBatch] = []
    public var events: [SessionEvent] = []
    public var laps: [Lap] = []
    /// The session's new state, when it changed (recording, paused).
    public var state: SessionState?
    /// The run's summary, when it finished; the run then enters the outbox in the same transaction.
    public var finish: Finish?
    /// The session's start in UTC from GPS time, replacing the unsynchronised system clock's.
    public var correctedStartWall: WallInstant?

    public struct Finish: Sendable {
        public var summary: RunSummary
        /// The wall-clock time it finished, for the outbox.
        public var wall: WallInstant

        public init(summary: RunSummary, wall: WallInstant) {
            self.summary = summary
            self.wall = wall
        }
    }

    public init(session: SessionID) { self.session = session }

    public var isEmpty: Bool {
        points.isEmpty && rrIntervals.isEmpty && events.isEmpty && laps.isEmpty && state == nil && finish == nil
            && correctedStartWall == nil
    }

    /// Appends a later batch of the same session.
    public mutating func append(_ other: SessionBatch) {
        points += other.points
        rrIntervals += other.rrIntervals
        events += other.events
        laps += other.laps
        state = other.state ?? state
        finish = other.finish ?? finish
        correctedStartWall = other.correctedStartWall ?? correctedStartWall
    }
}
