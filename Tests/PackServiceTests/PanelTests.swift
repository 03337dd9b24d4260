import Foundation
import HandoffModel
import Logging
import PackControl
import PackSensors
import PackStorage
import Synchronization
import TestSupport
import Testing

@testable import PackService

private func at(_ ms: Int) -> MonotonicInstant { MonotonicInstant(nanoseconds: Int64(ms) * 1_000_000) }

/// Feeds `edges` (ms, pressed) to a decoder, advancing time in 1 ms steps, and returns each press
/// with the millisecond it was reported at.
private func decode(
    _ edges: [(Int, Bool)], until end: Int, debounce: Double = 0.03, longPress: Double = 1.5
)
    -> [(ButtonDecoder.Press, Int)]
{
    var decoder = ButtonDecoder(debounce: debounce, longPress: longPress)
    var presses: [(ButtonDecoder.Press, Int)] = []
    var pending = edges[...]
    for ms in 0...end {
        while let edge = pending.first, edge.0 == ms {
            presses += decoder.edge(pressed: edge.1, at: at(ms)).map { ($0, ms) }
            pending = pending.dropFirst()
        }
        presses += decoder.advance(to: at(ms)).map { ($0, ms) }
    }
    return presses
}

/// A press from `start` held for `held` ms, with contact bounce at both ends (edges 1–3 ms apart).
private func bouncyPress(start: Int, held: Int) -> [(Int, Bool)] {
    [
        (start, true), (start + 1, false), (start + 3, true), (start + 4, false), (start + 6, true),
        (start + held, false), (start + held + 2, true), (start + held + 3, false),
    ]
}

@Suite("The button: debounce, short and long presses")
struct ButtonDecoderTests {
    @Test("A 200 ms press with bounce is one short press, reported on release")
    func shortPress() {
        let presses = decode(bouncyPress(start: 100, held: 200), until: 1000)
        #expect(presses.map(\.0) == [.short])
        // Released at 300 (the last bounce at 303), taken 30 ms later.
        #expect(presses.first.map { $0.1 } == 333)
    }

    @Test("Held 1.5 s is a long press, reported while still held; the release adds nothing")
    func longPress() {
        let presses = decode(bouncyPress(start: 100, held: 2500), until: 4000)
        #expect(presses.map(\.0) == [.long])
        // Pressed (for good) at 106: long at 1606, long before the release at 2600.
        #expect(presses.first.map { $0.1 } == 1606)
    }

    @Test("Held just under the long-press time is still a short press")
    func almostLong() {
        #expect(decode(bouncyPress(start: 0, held: 1400), until: 3000).map(\.0) == [.short])
    }

    @Test("Glitches shorter than the debounce time are no press at all")
    func glitches() {
        let edges: [(Int, Bool)] = [(100, true), (110, false), (500, true), (525, false), (900, true), (902, false)]
        #expect(decode(edges, until: 2000).isEmpty)
    }

    @Test("Presses in a row: short, long, short")
    func sequence() {
        let edges =
            bouncyPress(start: 0, held: 150) + bouncyPress(start: 1000, held: 1800)
            + bouncyPress(start: 4000, held: 120)
        #expect(decode(edges, until: 6000).map(\.0) == [.short, .long, .short])
    }

    @Test("Random bounce never makes more presses than real ones, and every real press is seen")
    func randomBounce() {
        var random = SeededRandom(seed: 9)
        for _ in 0..<200 {
            var edges: [(Int, Bool)] = []
            var t = 50
            var expected: [ButtonDecoder.Press] = []
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let held = [80, 300, 900, 1700, 2500].randomElement(using: &random)!
                // Bounce: up to 5 extra edge pairs within 4 ms of each transition.
                var press: [(Int, Bool)] = [(t, true)]
                for i in 0..<Int.random(in: 0...5, using: &random) {
                    press += [(t + 2 * i + 1, false), (t + 2 * i + 2, true)]
                }
                press.append((t + held, false))
                for i in 0..<Int.random(in: 0...5, using: &random) {
                    press += [(t + held + 2 * i + 1, true), (t + held + 2 * i + 2, false)]
                }
                edges += press
                expected.append(held >= 1520 ? .long : .short)
                t += held + 400
            }
            #expect(decode(edges, until: t + 2000).map(\.0) == expected)
        }
    }
}

@Suite("The LED's patterns")
struct LEDPatternTests {
    /// The lit intervals of a pattern over `ms`, sampled every millisecond.
    static func litIntervals(_ pattern: LEDPattern, over ms: Int) -> [(Int, Int)] {
        var intervals: [(Int, Int)] = []
        var start: Int?
        for t in 0...ms {
            let lit = pattern.level(atMs: t).lit
            if lit, start == nil { start = t }
            if !lit, let s = start {
                intervals.append((s, t))
                start = nil
            }
        }
        if let start { intervals.append((start, ms + 1)) }
        return intervals
    }

    @Test("Each pattern is what docs/pack-controls.md says", arguments: LEDPattern.allCases)
    func documented(_ pattern: LEDPattern) {
        let lit = Self.litIntervals(pattern, over: 9999)
        switch pattern {
        case .recording: #expect(lit.count == 1 && lit[0] == (0, 10000))
        case .idle: #expect(lit.map { $0.1 - $0.0 } == [50, 50] && lit.map(\.0) == [0, 5000])
        case .paused: #expect(lit.map(\.0) == [0, 2000, 4000, 6000, 8000] && lit.allSatisfy { $0.1 - $0.0 == 200 })
        case .waitingForGPS: #expect(lit.count == 10 && lit.allSatisfy { $0.1 - $0.0 == 500 && $0.0 % 1000 == 0 })
        case .syncing: #expect(lit.count == 20 && lit.allSatisfy { $0.1 - $0.0 == 250 && $0.0 % 500 == 0 })
        case .error: #expect(lit.count == 50 && lit.allSatisfy { $0.1 - $0.0 == 100 })
        case .sensorsMissing:
            #expect(lit.map(\.0) == [0, 300, 2000, 2300, 4000, 4300, 6000, 6300, 8000, 8300])
            #expect(lit.allSatisfy { $0.1 - $0.0 == 100 })
        case .batonYours:
            // Three 150 ms flashes, 150 ms apart, every 3 s.
            #expect(lit.map(\.0) == [0, 300, 600, 3000, 3300, 3600, 6000, 6300, 6600, 9000, 9300, 9600])
            #expect(lit.allSatisfy { $0.1 - $0.0 == 150 })
        }
        // The time to the next change is exact: the level holds until then and flips at it.
        for t in stride(from: 0, to: 6000, by: 7) {
            let (level, until) = pattern.level(atMs: t)
            if pattern == .recording { continue }
            #expect(pattern.level(atMs: t + until - 1).lit == level)
            #expect(pattern.level(atMs: t + until).lit != level)
        }
    }

    static func state(
        _ run: SessionState, fix: GPSFix = .threeD, sensors: [(String, SensorLink?)] = [], syncing: Bool = false,
        failing: Bool = false, gps: Bool = true, baton: Bool = false
    ) -> PanelState {
        let report = StatusReport(
            state: run, gps: GPSReport(fix: fix),
            sensors: sensors.map {
                SensorReport(
                    id: $0.0, kind: $0.0 == "gps0" ? .gps : .heartRate, name: nil, link: $0.1, lastSeenS: nil,
                    fresh: $0.1 == .connected, inGap: false,
                    payloads: SensorPayloadsReport(decoded: 0, skipped: 0, rejected: 0, lastError: nil))
            }, recoveredRuns: [], version: "test")
        return PanelState(
            status: report, gpsConfigured: gps, syncing: syncing, journalFailing: failing, batonYours: baton)
    }

    @Test("The pattern follows the state, by priority")
    func resolution() {
        let strapGone: [(String, SensorLink?)] = [("hr0", .disconnected)]
        let strapOn: [(String, SensorLink?)] = [("hr0", .connected)]
        #expect(LEDPattern.resolve(Self.state(.idle)) == .idle)
        #expect(LEDPattern.resolve(Self.state(.idle, fix: .none)) == .waitingForGPS)
        #expect(LEDPattern.resolve(Self.state(.idle, fix: .none, gps: false)) == .idle)
        #expect(LEDPattern.resolve(Self.state(.idle, sensors: strapGone)) == .sensorsMissing)
        #expect(LEDPattern.resolve(Self.state(.idle, sensors: strapOn, syncing: true)) == .syncing)
        #expect(LEDPattern.resolve(Self.state(.recording, sensors: strapOn)) == .recording)
        #expect(LEDPattern.resolve(Self.state(.recording, sensors: strapOn, syncing: true)) == .recording)
        #expect(LEDPattern.resolve(Self.state(.recording, sensors: strapGone)) == .sensorsMissing)
        #expect(LEDPattern.resolve(Self.state(.recording, fix: .none, sensors: strapGone)) == .waitingForGPS)
        #expect(LEDPattern.resolve(Self.state(.paused, fix: .none, sensors: strapGone)) == .paused)
        #expect(LEDPattern.resolve(Self.state(.paused, failing: true)) == .error)
        #expect(LEDPattern.resolve(Self.state(.finished)) == .idle)
        // The baton passed to this runner: shown when idle, over a missing fix or strap, under
        // a sync under way and under anything while recording.
        #expect(LEDPattern.resolve(Self.state(.idle, baton: true)) == .batonYours)
        #expect(LEDPattern.resolve(Self.state(.idle, fix: .none, sensors: strapGone, baton: true)) == .batonYours)
        #expect(LEDPattern.resolve(Self.state(.idle, syncing: true, baton: true)) == .syncing)
        #expect(LEDPattern.resolve(Self.state(.recording, sensors: strapOn, baton: true)) == .recording)
        #expect(LEDPattern.resolve(Self.state(.finished, baton: true)) == .batonYours)
    }
}

/// The GPIO character device simulated at the boundary where the pack talks to it (the
/// `ButtonLine`/`LEDLine` protocols the real `GPIOLine` implements): Debian's amd64 kernel has
/// neither gpio-sim nor gpio-mockup. As the kernel does, the button's line stamps each edge with
/// CLOCK_MONOTONIC when it happens and holds it until read: a press is scripted as edges with
/// exact times, each readable once its time has come, however late the reader (or this test)
/// runs on a loaded machine. The LED's levels are recorded with the time they were set.
final class SimulatedGPIO: ButtonLine, LEDLine, @unchecked Sendable {
    private let lock = NSCondition()
    private var edges: [ButtonEdge] = []
    private(set) var ledLevels: [(lit: Bool, at: MonotonicInstant)] = []

    func nextEdge(timeout: Double) throws -> ButtonEdge? {
        lock.lock()
        defer { lock.unlock() }
        let deadline = PackClock.system.monotonic().advanced(byNanoseconds: Int64(timeout * 1e9))
        while true {
            let now = PackClock.system.monotonic()
            if let first = edges.first, first.at <= now { return edges.removeFirst() }
            let until = min(deadline, edges.first?.at ?? deadline)
            if now >= deadline { return nil }
            _ = lock.wait(until: Date().addingTimeInterval(until.seconds(since: now) + 0.0005))
        }
    }

    func set(lit: Bool) throws {
        lock.lock()
        ledLevels.append((lit, PackClock.system.monotonic()))
        lock.unlock()
    }

    var levels: [(lit: Bool, at: MonotonicInstant)] { lock.withLock { ledLevels } }

    private func enqueue(_ new: [ButtonEdge]) {
        lock.lock()
        edges += new
        lock.signal()
        lock.unlock()
    }

    /// A press that began `ago` seconds ago and lasted `held` (a reader that is late finds all
    /// its edges waiting, as in the kernel's queue).
    func pressed(secondsAgo ago: Double, held: Double) {
        let start = PackClock.system.monotonic().advanced(byNanoseconds: -Int64(ago * 1e9))
        func at(_ seconds: Double) -> MonotonicInstant { start.advanced(byNanoseconds: Int64(seconds * 1e9)) }
        enqueue(
            [(0, true), (0.001, false), (0.002, true), (held, false)].map { ButtonEdge(pressed: $0.1, at: at($0.0)) })
    }

    /// A press from now, held `held` seconds, with contact bounce at both ends (edges 1 ms
    /// apart); returns when it is over.
    func press(held: Double) async throws {
        let start = PackClock.system.monotonic()
        func at(_ seconds: Double) -> MonotonicInstant { start.advanced(byNanoseconds: Int64(seconds * 1e9)) }
        let script: [(Double, Bool)] = [
            (0, true), (0.001, false), (0.002, true), (0.003, false), (0.004, true),
            (held, false), (held + 0.001, true), (held + 0.002, false),
        ]
        enqueue(script.map { ButtonEdge(pressed: $0.1, at: at($0.0)) })
        while PackClock.system.monotonic() < at(held + 0.05) { try await Task.sleep(for: .milliseconds(20)) }
    }
}

@Suite(
    "Button and LED drive a recording (GPIO simulated at the pack's boundary; real time: the panel's poll and the LED's blinking)",
    .serialized)
struct PanelServiceTests {
    /// A live engine over a journal in `dir`, with no GPS (so no "waiting for GPS") and no sensors.
    static func liveEngine(in dir: TemporaryDirectory) throws -> (PackDatabase, PackEngine) {
        let database = try PackDatabase(path: dir.path + "/handoff.sqlite")
        var configuration = PackConfiguration()
        configuration.gps.source = .none
        let engine = PackEngine(
            database: database, configuration: configuration, mode: .live, sensors: [], recoveredRuns: [],
            logger: Logger(label: "test"))
        return (database, engine)
    }

    @Test("A long press starts, a short press laps, a long press stops; the LED follows")
    func pressesDriveARun() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (database, engine) = try Self.liveEngine(in: dir)
        let gpio = SimulatedGPIO()
        let panel = PanelService(
            engine: engine, sync: nil, button: gpio, led: gpio, gpsConfigured: false, debounce: 0.03, longPress: 1.0,
            logger: Logger(label: "test"))
        let ticking = Task {
            while !Task.isCancelled {
                await engine.tick()
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        defer { ticking.cancel() }
        let running = Task { try await panel.run() }
        defer { running.cancel() }

        func waitFor(_ what: String, _ condition: @escaping (StatusReport) -> Bool) async throws -> StatusReport {
            for _ in 0..<2400 {
                let status = await engine.status()
                if condition(status) { return status }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("timed out waiting for \(what): \(await engine.status().state)")
            return await engine.status()
        }

        // Idle: the 50 ms blip, every 5 s. (CI's loaded first pass has been seen to set the "off"
        // half a second late: the line's shape is waited for, not a fixed time.)
        for _ in 0..<2400 where gpio.levels.count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(panel.pattern == .idle)
        // (Exact timings are LEDPatternTests'; here the line must show the pattern's shape, and a
        // loaded machine may set a level late, never early.)
        let idleLevels = gpio.levels
        #expect(idleLevels.first?.lit == true && idleLevels.dropFirst().first?.lit == false, "\(idleLevels)")
        if idleLevels.count >= 2 {
            let blip = idleLevels[1].at.seconds(since: idleLevels[0].at)
            #expect(blip >= 0.045 && blip < 3, "blip \(blip) s")
        }

        // A short press while idle starts nothing: once the panel has acted on it (and answered
        // any command it sent), the pack is still idle.
        let pressesBefore = panel.pressesHandled
        try await gpio.press(held: 0.2)
        for _ in 0..<2400 where panel.pressesHandled == pressesBefore { try await Task.sleep(for: .milliseconds(50)) }
        #expect(panel.pressesHandled == pressesBefore + 1, "the panel did not act on the short press")
        #expect(await engine.status().state == .idle)

        // Long: recording; the LED is then on and stays on.
        try await gpio.press(held: 1.3)
        let recording = try await waitFor("recording") { $0.state == .recording }
        #expect(recording.run.lap == 1)
        for _ in 0..<2400 where panel.pattern != .recording || gpio.levels.last?.lit != true {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(panel.pattern == .recording)
        let onSince = gpio.levels.last
        #expect(onSince?.lit == true)
        // The LED stays on: the panel has looked at the recording pack twice more, the LED's thread
        // has looked at the pattern again since it lit the LED (it does every second while
        // recording), and the line is as it was.
        let looksBefore = panel.looks
        func ledLookedAgain() -> Bool {
            guard let on = onSince?.at, let look = panel.ledLookedAt else { return false }
            return look > on
        }
        for _ in 0..<2400 where panel.looks < looksBefore + 2 || !ledLookedAgain() {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(ledLookedAgain(), "the LED's thread did not look at the pattern again")
        #expect(panel.looks >= looksBefore + 2, "the panel stopped looking at the pack's state")
        #expect(panel.pattern == .recording)
        #expect(gpio.levels.last?.at == onSince?.at, "the LED changed while recording")

        // Short: a lap.
        try await gpio.press(held: 0.15)
        _ = try await waitFor("lap 2") { $0.run.lap == 2 }

        // Paused from the CLI: one 200 ms flash every 2 s.
        _ = try await engine.command(.pause)
        // The panel reads the state every 0.5 s; the second flash begins 2 s after that.
        _ = try await waitFor("two flashes") { _ in
            gpio.levels.filter { $0.at > onSince!.at && $0.lit }.count >= 2
        }
        #expect(panel.pattern == .paused)
        let pausedLevels = gpio.levels.filter { $0.at > onSince!.at }
        let steps = zip(pausedLevels, pausedLevels.dropFirst())
        let flashes = steps.filter { $0.0.lit && !$0.1.lit }.map { $0.1.at.seconds(since: $0.0.at) }
        let darks = steps.filter { !$0.0.lit && $0.1.lit }.map { $0.1.at.seconds(since: $0.0.at) }
        // 200 ms on, 1800 ms off: no other pattern has an on of 150 ms or more with offs of 1.5 s.
        #expect(!flashes.isEmpty && flashes.allSatisfy { $0 >= 0.195 && $0 < 3 }, "flashes \(flashes)")
        #expect(!darks.isEmpty && darks.allSatisfy { $0 >= 1.795 }, "dark \(darks)")
        // A short press resumes a paused run.
        try await gpio.press(held: 0.1)
        _ = try await waitFor("resumed") { $0.state == .recording }

        // Long: stopped, the run is in the journal with its two laps, the LED back to idle.
        try await gpio.press(held: 1.2)
        _ = try await waitFor("stopped") { $0.state != .recording && $0.state != .paused }
        for _ in 0..<2400 where panel.pattern != .idle { try await Task.sleep(for: .milliseconds(50)) }
        #expect(panel.pattern == .idle)
        let runs = try database.runs(limit: 5)
        #expect(runs.count == 1)
        if let run = runs.first { #expect(try database.laps(of: run.id).count == 2) }
    }

    @Test("A reader that runs late still takes a short press that has ended as short (edges before the clock)")
    func lateReader() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let (_, engine) = try Self.liveEngine(in: dir)
        _ = try await engine.command(.start)
        // A lap needs a recorded second in it: ticks until the first point is in.
        let firstPoint = ContinuousClock.now + .seconds(120)
        while await engine.status().run.points ?? 0 < 1, ContinuousClock.now < firstPoint {
            try await Task.sleep(for: .milliseconds(50))
            await engine.tick()
        }
        #expect(await engine.status().run.points ?? 0 >= 1, "no point recorded")
        let gpio = SimulatedGPIO()
        // A 200 ms press that ended 1.3 s ago: by the clock now, the button would have been held
        // past the 1 s long-press time, had its release not been read first.
        gpio.pressed(secondsAgo: 1.5, held: 0.2)
        let panel = PanelService(
            engine: engine, sync: nil, button: gpio, led: nil, gpsConfigured: false, debounce: 0.03, longPress: 1.0,
            logger: Logger(label: "test"))
        let running = Task { try await panel.run() }
        defer { running.cancel() }
        var status = await engine.status()
        for _ in 0..<2400 where status.run.lap != 2 {
            try await Task.sleep(for: .milliseconds(50))
            status = await engine.status()
        }
        #expect(status.state == .recording, "a long press stopped the run")
        #expect(status.run.lap == 2)
    }
}
