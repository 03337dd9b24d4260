import HandoffModel
import PackControl

/// The pack's one button, from raw edges to presses: debounced (a level counts once it has held
/// for `debounce`), a **long press** reported as soon as the button has been held `longPress`
/// (the LED answers while the runner still holds it), a **short press** on release otherwise.
///
/// A value type driven by edges and the clock (`advance(to:)`), so tests give it any bounce.
struct ButtonDecoder: Sendable {
    enum Press: Equatable, Sendable {
        case short
        case long
    }

    var debounce: Double
    var longPress: Double
    /// The debounced level: pressed or not.
    private(set) var pressed = false
    /// The latest raw level and when it was reached, until it has held for `debounce`.
    private var candidate: (pressed: Bool, at: MonotonicInstant)?
    private var pressedAt: MonotonicInstant?
    private var longReported = false

    init(debounce: Double = 0.03, longPress: Double = 1.5) {
        self.debounce = debounce
        self.longPress = longPress
    }

    /// A raw edge from the line (`pressed` after active-low), stamped by the kernel.
    mutating func edge(pressed raw: Bool, at time: MonotonicInstant) -> [Press] {
        var presses = advance(to: time)
        if let candidate, candidate.pressed == raw { return presses }
        candidate = raw == pressed ? nil : (raw, time)
        presses += advance(to: time)
        return presses
    }

    /// Lets time pass: a level that has held long enough is taken, a long hold is reported.
    mutating func advance(to now: MonotonicInstant) -> [Press] {
        var presses: [Press] = []
        if let candidate, now.seconds(since: candidate.at) >= debounce {
            self.candidate = nil
            if candidate.pressed != pressed {
                pressed = candidate.pressed
                if pressed {
                    pressedAt = candidate.at
                    longReported = false
                } else {
                    if !longReported, pressedAt != nil { presses.append(.short) }
                    pressedAt = nil
                }
            }
        }
        if pressed, !longReported, let pressedAt, now.seconds(since: pressedAt) >= longPress {
            longReported = true
            presses.append(.long)
        }
        return presses
    }

    /// When `advance` next has something to decide, if anything.
    var nextDeadline: MonotonicInstant? {
        if let candidate { return candidate.at.advanced(byNanoseconds: Int64(debounce * 1e9)) }
        if pressed, !longReported, let pressedAt { return pressedAt.advanced(byNanoseconds: Int64(longPress * 1e9)) }
        return nil
    }
}

/// What the LED shows, by pattern, highest priority first (docs/pack-controls.md).
enum LEDPattern: String, CaseIterable, Sendable {
    /// The journal refuses writes: a fast 5 Hz flash.
    case error
    /// A run is paused: one 200 ms flash every 2 s.
    case paused
    /// GPS is configured and has no fix: an even 1 Hz blink.
    case waitingForGPS = "waiting_for_gps"
    /// A paired sensor is not connected: two short flashes every 2 s.
    case sensorsMissing = "sensors_missing"
    /// Recording, all well: on.
    case recording
    /// Uploading runs to the store: an even 2 Hz blink.
    case syncing
    /// The baton is this runner's (passed to them, as the store said at the latest sync): three
    /// quick flashes every 3 s.
    case batonYours = "baton_yours"
    /// Nothing to do: a 50 ms blip every 5 s (the pack is alive).
    case idle

    /// One cycle: (lit, milliseconds) segments.
    var cycle: [(lit: Bool, ms: Int)] {
        switch self {
        case .error: [(true, 100), (false, 100)]
        case .paused: [(true, 200), (false, 1800)]
        case .waitingForGPS: [(true, 500), (false, 500)]
        case .sensorsMissing: [(true, 100), (false, 200), (true, 100), (false, 1600)]
        case .recording: [(true, 1000)]
        case .syncing: [(true, 250), (false, 250)]
        case .batonYours: [(true, 150), (false, 150), (true, 150), (false, 150), (true, 150), (false, 2250)]
        case .idle: [(true, 50), (false, 4950)]
        }
    }

    var periodMs: Int { cycle.reduce(0) { $0 + $1.ms } }

    /// Lit or not `ms` after the pattern began, and how long until that changes.
    func level(atMs ms: Int) -> (lit: Bool, untilChangeMs: Int) {
        var t = ms % periodMs
        for (index, segment) in cycle.enumerated() {
            if t < segment.ms {
                // Merge with following segments of the same level (and the next cycle's start).
                var remaining = segment.ms - t
                var next = index + 1
                while cycle[next % cycle.count].lit == segment.lit, remaining < periodMs {
                    remaining += cycle[next % cycle.count].ms
                    next += 1
                }
                return (segment.lit, remaining)
            }
            t -= segment.ms
        }
        return (false, periodMs)
    }

    /// The pattern for the pack's state.
    static func resolve(_ state: PanelState) -> LEDPattern {
        if state.journalFailing { return .error }
        let recording = state.status.state.isOpen
        if state.status.state == .paused { return .paused }
        let noFix = state.gpsConfigured && state.status.gps.fix == .none
        let missing = state.status.sensors.contains { $0.kind != .gps && $0.link == .disconnected }
        if recording {
            if noFix { return .waitingForGPS }
            if missing { return .sensorsMissing }
            return .recording
        }
        if state.syncing { return .syncing }
        if state.batonYours { return .batonYours }
        if noFix { return .waitingForGPS }
        if missing { return .sensorsMissing }
        return .idle
    }
}

/// What the LED is chosen from.
struct PanelState: Sendable {
    var status: StatusReport
    var gpsConfigured: Bool
    var syncing: Bool
    var journalFailing: Bool
    /// The store said at the latest contact that the baton is this runner's.
    var batonYours = false
}
