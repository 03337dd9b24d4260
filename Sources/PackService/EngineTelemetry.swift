import HandoffModel
import PackControl

/// What the engine notes about itself for `handoff status` and the logs, apart from recording:
/// how long readings took to reach the card, the replay's progress, the clock's synchronisation
/// as last seen, the paired sensors, and how many rejected readings were logged.
struct EngineTelemetry: Sendable {
    /// When measurement notifications arrived that no committed point includes yet (live only).
    private var arrivals: [(arrived: MonotonicInstant, taken: MonotonicInstant)] = []
    /// The latest point's grid moment.
    var latestPointBoundary: MonotonicInstant?
    private var lastDelayBoundary: MonotonicInstant?
    /// How long notifications took to reach a committed point.
    private(set) var commitLatency = LatencyStatistics()
    /// How long after its second ended each point was on the card.
    private(set) var pointCommitDelay = LatencyStatistics()
    private var decodeErrorsLogged = 0
    /// The system clock's synchronisation as last seen (live only).
    var clockSynchronized: Bool?
    var replay: ReplayReport?
    /// The paired Bluetooth sensors' ids.
    var pairedSensors: Set<SensorID> = []

    /// A measurement that came off its socket at `arrived` and was taken by the recorder at `taken`.
    mutating func noteArrival(arrived: MonotonicInstant, taken: MonotonicInstant) {
        if arrivals.count >= 256 { arrivals.removeFirst() }
        arrivals.append((arrived: arrived, taken: taken))
    }

    mutating func runStarted() { arrivals.removeAll() }

    /// Whether this rejected reading is logged: the first 200, then one in a thousand.
    mutating func shouldLogDecodeError() -> Bool {
        decodeErrorsLogged += 1
        return decodeErrorsLogged <= 200 || decodeErrorsLogged % 1000 == 0
    }

    /// After a commit that left nothing waiting, at `now`: every notification that arrived before
    /// the latest committed point's grid moment is in that point (or was superseded by a later one
    /// in it), so it took until now to be on the card.
    mutating func noteCommit(now: MonotonicInstant) {
        guard let boundary = latestPointBoundary else { return }
        if boundary != lastDelayBoundary {
            pointCommitDelay.add(nanoseconds: now.nanoseconds - boundary.nanoseconds)
            lastDelayBoundary = boundary
        }
        var kept: [(arrived: MonotonicInstant, taken: MonotonicInstant)] = []
        for arrival in arrivals {
            if arrival.taken < boundary {
                commitLatency.add(nanoseconds: now.nanoseconds - arrival.arrived.nanoseconds)
            } else {
                kept.append(arrival)
            }
        }
        arrivals = kept
    }
}

/// A rolling window of latencies (the last 1024) with their percentiles.
struct LatencyStatistics: Sendable {
    private var samples: [Int64] = []
    private var next = 0
    private(set) var count = 0

    mutating func add(nanoseconds: Int64) {
        count += 1
        if samples.count < 1024 {
            samples.append(nanoseconds)
        } else {
            samples[next] = nanoseconds
            next = (next + 1) % samples.count
        }
    }

    var report: LatencyReport? {
        guard let p50 = milliseconds(at: 0.5), let p95 = milliseconds(at: 0.95), let max = milliseconds(at: 1) else {
            return nil
        }
        return LatencyReport(
            samples: count, p50Ms: Format.rounded(p50, 1), p95Ms: Format.rounded(p95, 1), maxMs: Format.rounded(max, 1))
    }

    /// Milliseconds at the quantile `q` (0–1) of the window.
    func milliseconds(at q: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let index = min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded()))
        return Double(sorted[index]) / 1e6
    }
}
