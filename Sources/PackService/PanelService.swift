import CPackSystem
import Foundation
import HandoffModel
import Logging
import PackControl
import PackSensors
import PackSync
import PackSystem
import ServiceLifecycle
import Synchronization

/// An edge on the button's line: pressed or released (after active-low), and when.
struct ButtonEdge: Sendable {
    var pressed: Bool
    var at: MonotonicInstant
}

/// The boundary where the pack talks to the GPIO character device: the button's line gives
/// edges, the LED's line takes levels. `GPIOLine` is the kernel's; tests put a simulation here
/// (Debian's amd64 kernel has neither gpio-sim nor gpio-mockup).
protocol ButtonLine: Sendable {
    /// Waits up to `timeout` seconds for the next edge; nil when none came.
    func nextEdge(timeout: Double) throws -> ButtonEdge?
}

protocol LEDLine: Sendable {
    func set(lit: Bool) throws
}

/// One requested line of `/dev/gpiochipN`, through the kernel's GPIO uAPI v2.
final class GPIOLine: ButtonLine, LEDLine, @unchecked Sendable {
    let descriptor: Int32
    let name: String

    /// The button: an input reporting both edges, pulled up and active low when wired to ground.
    static func button(chip: String, line: UInt32, activeLow: Bool, debounceMs: Int) throws(SystemError) -> GPIOLine {
        let fd = try syscall("GPIO_V2_GET_LINE_IOCTL", subject: "\(chip) line \(line)") {
            pack_gpio_request(
                chip, line, 0, activeLow ? 1 : 0, activeLow ? 1 : 0, UInt32(debounceMs * 1000), 0, "handoff-button")
        }
        return GPIOLine(descriptor: fd, name: "\(chip) line \(line)")
    }

    /// The LED: an output, dark at first.
    static func led(chip: String, line: UInt32, activeLow: Bool) throws(SystemError) -> GPIOLine {
        let fd = try syscall("GPIO_V2_GET_LINE_IOCTL", subject: "\(chip) line \(line)") {
            pack_gpio_request(chip, line, 1, activeLow ? 1 : 0, 0, 0, 0, "handoff-led")
        }
        return GPIOLine(descriptor: fd, name: "\(chip) line \(line)")
    }

    private init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    deinit { close(descriptor) }

    func nextEdge(timeout: Double) throws -> ButtonEdge? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let (ready, pollError) = pollOnce(&poller, timeoutMilliseconds: Int32(max(0, timeout * 1000)))
        if pollError != 0 { throw SystemError(call: "poll", errno: pollError, subject: name) }
        guard ready > 0 else { return nil }
        var timestamp: UInt64 = 0
        var active: Int32 = 0
        try syscall("read", subject: name) { pack_gpio_read_edge(descriptor, &timestamp, &active) }
        return ButtonEdge(pressed: active != 0, at: MonotonicInstant(nanoseconds: Int64(timestamp)))
    }

    func set(lit: Bool) throws {
        try syscall("GPIO_V2_LINE_SET_VALUES_IOCTL", subject: name) { pack_gpio_set(descriptor, lit ? 1 : 0) }
    }
}

/// The button and the LED (`[gpio]` in handoff.toml): presses become the same commands as
/// `handoff lap`, `handoff start` (the baton as `handoff start` takes it) and `handoff stop`; the
/// LED shows the pack's state by pattern (docs/pack-controls.md).
final class PanelService: Service, Sendable {
    let engine: PackEngine
    let sync: SyncWorker?
    let button: (any ButtonLine)?
    let led: (any LEDLine)?
    let gpsConfigured: Bool
    let debounce: Double
    let longPress: Double
    let logger: Logger
    /// The pattern to show. The LED's thread starts it (lit) when it sees it change.
    private let shown = Mutex<LEDPattern>(.idle)
    /// Set when a press has been acted on: the state is read again at once.
    private let wake = Wakeup()
    /// Wakes the LED's thread when the pattern changes (it otherwise sleeps until its next edge).
    private let ledWake = ThreadWake()
    /// What the panel has done so far, for tests that must see it act before they can say that
    /// nothing came of it: presses acted on (a command sent, or ignored), looks at the pack's state,
    /// and when the LED's thread began its latest finished look at the pattern.
    private let activity = Mutex<(presses: Int, looks: Int, ledLook: MonotonicInstant?)>((0, 0, nil))

    init(
        engine: PackEngine, sync: SyncWorker?, button: (any ButtonLine)?, led: (any LEDLine)?, gpsConfigured: Bool,
        debounce: Double, longPress: Double, logger: Logger
    ) {
        self.engine = engine
        self.sync = sync
        self.button = button
        self.led = led
        self.gpsConfigured = gpsConfigured
        self.debounce = debounce
        self.longPress = longPress
        self.logger = logger
    }

    var pattern: LEDPattern { shown.withLock { $0 } }
    /// Presses acted on so far: counted once the press's command has been answered, or ignored.
    var pressesHandled: Int { activity.withLock { $0.presses } }
    /// Looks at the pack's state so far (one every 0.5 s, and one after each press).
    var looks: Int { activity.withLock { $0.looks } }
    /// When the LED's thread began its latest finished look at the pattern (the line set, if the
    /// level changed): a look begun after a level was set has seen that level stand, or changed it.
    var ledLookedAt: MonotonicInstant? { activity.withLock { $0.ledLook } }

    func run() async throws {
        let stopping = StopFlag()
        var threads: [Thread] = []
        if let button {
            let thread = Thread { [self] in readButton(button, stopping: stopping) }
            thread.name = "button"
            threads.append(thread)
        }
        if let led {
            let thread = Thread { [self] in driveLED(led, stopping: stopping) }
            thread.name = "led"
            threads.append(thread)
        }
        threads.forEach { $0.start() }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.refresh()
                _ = await self.wake.wait(seconds: 0.5)
            }
        }
        stopping.set()
        wake.poke()
        ledWake.signal()
        if let led { try? led.set(lit: false) }
    }

    /// Reads the pack's state and picks the LED's pattern.
    func refresh() async {
        let status = await engine.status()
        let failing = await engine.failedCommits > 0
        let syncing = await sync?.isTalkingToStore ?? false
        let state = PanelState(
            status: status, gpsConfigured: gpsConfigured, syncing: syncing, journalFailing: failing,
            batonYours: await sync?.isBatonYours ?? false)
        let next = LEDPattern.resolve(state)
        let changed = shown.withLock { current in
            guard current != next else { return false }
            current = next
            return true
        }
        if changed { ledWake.signal() }
        activity.withLock { $0.looks += 1 }
    }

    private func readButton(_ line: any ButtonLine, stopping: StopFlag) {
        var decoder = ButtonDecoder(debounce: debounce, longPress: longPress)
        var failures = 0
        while !stopping.isSet {
            let now = PackClock.system.monotonic()
            let wait = decoder.nextDeadline.map { max(0.001, $0.seconds(since: now)) } ?? 0.25
            do {
                var presses: [ButtonDecoder.Press] = []
                // Every edge already waiting is taken, by its own time, before the clock is: a
                // reader that ran late must not see a short press that has ended as a long one.
                var edge = try line.nextEdge(timeout: min(wait, 0.25))
                while let next = edge {
                    presses += decoder.edge(pressed: next.pressed, at: next.at)
                    edge = try line.nextEdge(timeout: 0)
                }
                presses += decoder.advance(to: PackClock.system.monotonic())
                for press in presses { act(on: press) }
                failures = 0
            } catch {
                failures += 1
                if failures == 1 { logger.error("The button's line failed: \(error); retrying every second") }
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }

    /// A press, as the CLI's command: the same path, the same rules (and the same baton).
    private func act(on press: ButtonDecoder.Press) {
        let engine = self.engine
        let sync = self.sync
        let logger = self.logger
        let wake = self.wake
        Task { [self] in
            defer { activity.withLock { $0.presses += 1 } }
            let state = await engine.status().state
            let request: ControlRequest
            switch press {
            case .short where state == .paused: request = .resume()
            case .short where state.isOpen: request = .lap()
            case .short:
                logger.info("Button: a short press while not recording does nothing (hold it to start)")
                return
            // The button keeps every run it stops: the pack has no screen to say that a short one
            // was discarded, and a press cannot say --keep (issue 29).
            case .long: request = state.isOpen ? .stop(keep: true) : .start()
            }
            let command = request.command
            let reply = await ControlDispatcher.respond(to: request, engine: engine, sync: sync)
            let ok = reply.contains(#""ok":true"#)
            logger.notice(
                "Button: \(press == .long ? "long" : "short") press → \(command)\(ok ? "" : " refused: \(reply)")",
                metadata: ["button.press": "\(press == .long ? "long" : "short")", "command": "\(command)"])
            wake.poke()
        }
    }

    private func driveLED(_ line: any LEDLine, stopping: StopFlag) {
        var lit: Bool?
        var failures = 0
        // The pattern on the line and when it began: it begins (lit) when this thread first
        // shows it, so a new pattern is seen at once however late the thread runs.
        var showing: LEDPattern?
        var since = PackClock.system.monotonic()
        while !stopping.isSet {
            let look = PackClock.system.monotonic()
            let pattern = shown.withLock { $0 }
            let begins = pattern != showing
            if begins {
                showing = pattern
                since = PackClock.system.monotonic()
            }
            let elapsed = Int(PackClock.system.monotonic().seconds(since: since) * 1000)
            let level = pattern.level(atMs: elapsed)
            if lit != level.lit {
                do {
                    try line.set(lit: level.lit)
                    lit = level.lit
                    failures = 0
                    // The pattern's first edge is where it begins: a thread held up between
                    // reading the clock and setting the line (a loaded machine) shortens no
                    // flash (one of 194 ms was seen where 200 were meant).
                    if begins { since = PackClock.system.monotonic() }
                } catch {
                    failures += 1
                    if failures == 1 { logger.error("The LED's line failed: \(error)") }
                }
            }
            activity.withLock { $0.ledLook = look }
            // Sleep until the pattern's next edge, or until the pattern changes: an idle pack's
            // LED thread wakes twice in 5 s.
            ledWake.wait(seconds: Double(max(5, min(level.untilChangeMs, 5000))) / 1000)
        }
    }
}

/// A thread's timed sleep that another thread can cut short.
final class ThreadWake: @unchecked Sendable {
    private let condition = NSCondition()
    private var signalled = false

    func signal() {
        condition.lock()
        signalled = true
        condition.signal()
        condition.unlock()
    }

    /// Sleeps up to `seconds`, or until `signal()`; a signal given before the call ends it at once.
    func wait(seconds: Double) {
        condition.lock()
        if !signalled { _ = condition.wait(until: Date().addingTimeInterval(seconds)) }
        signalled = false
        condition.unlock()
    }
}
