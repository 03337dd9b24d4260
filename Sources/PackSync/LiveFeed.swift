import Dispatch
import HandoffModel
import Synchronization

/// `[live]` in handoff.toml: whether runs are sent live by default (`handoff start --live` and
/// `--no-live` choose for one run), and how often.
public struct LiveSettings: Sendable, Hashable {
    public var enabled = false
    /// Seconds of the run between two positions sent.
    public var intervalSeconds = 15
    /// Positions kept while one update is on its way; older ones give way to newer.
    public var queueLimit = 8

    public init() {}
}

/// The recorder's side of live tracking (issue 35): every `intervalSeconds` of a live run, the
/// recorded second goes into a small bounded queue for `LiveSender`. Offering a point takes a lock
/// and a comparison, never I/O, never waits, and allocates nothing once the queue has its size:
/// the journal's commit is never behind it. When the queue is full the oldest point goes.
public final class LiveFeed: Sendable {
    /// The run being sent.
    public struct Run: Sendable, Hashable {
        public var uuid: String
        public var startWall: WallInstant
        public var sport: RunSport

        public init(uuid: String, startWall: WallInstant, sport: RunSport) {
            self.uuid = uuid
            self.startWall = startWall
            self.sport = sport
        }
    }

    /// What the sender takes at once: the run's points queued since, and whether it ended.
    public struct Batch: Sendable {
        public var run: Run
        public var points: [RecordPoint]
        public var ended: Bool
    }

    /// What live tracking did since handoffd started, for `handoff sync status`.
    public struct Counts: Sendable, Hashable {
        public var live: Bool = false
        public var sent = 0
        public var dropped = 0
        public var lastSent: WallInstant?
        public var lastError: String?
    }

    private struct State {
        var run: Run?
        var on = false
        var nextElapsed = 0
        var queue: [RecordPoint] = []
        /// Runs that ended with their last points, still to be told.
        var ended: [Batch] = []
        var counts = Counts()
    }

    public let settings: LiveSettings
    /// Signalled when something is queued (and by the sender's stop).
    let ready = DispatchSemaphore(value: 0)
    private let state = Mutex(State())

    public init(settings: LiveSettings) {
        self.settings = settings
        state.withLock { $0.queue.reserveCapacity(settings.queueLimit) }
    }

    /// A run began: live when the configuration says so, until `set(live:)` says otherwise.
    public func begin(_ run: Run) {
        state.withLock { state in
            state.run = run
            state.on = settings.enabled
            state.nextElapsed = 0
            state.queue.removeAll(keepingCapacity: true)
            state.counts.live = state.on
        }
    }

    /// `handoff start --live` or `--no-live`: this run is sent live, or not.
    public func set(live on: Bool, run uuid: String) {
        state.withLock { state in
            guard state.run?.uuid == uuid else { return }
            state.on = on
            state.counts.live = on
            if !on { state.queue.removeAll(keepingCapacity: true) }
        }
    }

    /// A recorded second of run `uuid`: queued when it is the live run's and its time has come.
    public func offer(_ point: RecordPoint, run uuid: String) {
        let queued = state.withLock { state -> Bool in
            guard state.on, point.elapsedSeconds >= state.nextElapsed, let run = state.run, run.uuid == uuid else {
                return false
            }
            state.nextElapsed = point.elapsedSeconds + settings.intervalSeconds
            if state.queue.count >= settings.queueLimit {
                state.queue.removeFirst()
                state.counts.dropped += 1
            }
            state.queue.append(point)
            return true
        }
        if queued { ready.signal() }
    }

    /// The run's start moved (GPS time corrected the pack's clock).
    public func correctStart(_ wall: WallInstant, run uuid: String) {
        state.withLock { state in
            if state.run?.uuid == uuid { state.run?.startWall = wall }
        }
    }

    /// The run finished (or was discarded): its last points go with the news that it ended.
    public func end(run uuid: String) {
        let told = state.withLock { state -> Bool in
            guard let run = state.run, run.uuid == uuid else { return false }
            defer {
                state.run = nil
                state.on = false
                state.counts.live = false
                state.queue.removeAll(keepingCapacity: true)
            }
            guard state.on else { return false }
            state.ended.append(Batch(run: run, points: state.queue, ended: true))
            return true
        }
        if told { ready.signal() }
    }

    /// Takes what is to be sent: an ended run's last batch first, else the live run's queue.
    func take() -> Batch? {
        state.withLock { state in
            if !state.ended.isEmpty { return state.ended.removeFirst() }
            guard state.on, let run = state.run, !state.queue.isEmpty else { return nil }
            defer { state.queue.removeAll(keepingCapacity: true) }
            return Batch(run: run, points: state.queue, ended: false)
        }
    }

    func noteSent(_ count: Int, at now: WallInstant) {
        state.withLock { state in
            state.counts.sent += count
            state.counts.lastSent = now
            state.counts.lastError = nil
        }
    }

    func noteDropped(_ count: Int, because error: String) {
        state.withLock { state in
            state.counts.dropped += count
            state.counts.lastError = error
        }
    }

    public var counts: Counts { state.withLock { $0.counts } }
}
