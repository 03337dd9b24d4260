import ArgumentParser
import HandoffModel
import PackControl

/// `handoff start|stop|pause|resume|lap`.
protocol SessionCommandLine: AsyncParsableCommand {
    /// The request for this command, its message's distance in `units` (the configured ones when `nil`).
    static func request(units: String?) -> ControlRequest
    var connection: ConnectionOptions { get }
    var output: JSONOption { get }
    var units: UnitsOption { get }
}

extension SessionCommandLine {
    public func run() async throws {
        let report: CommandReport
        // The message's distance: in --units, else in handoffd's configured units.
        report = try connection.client.call(
            Self.request(units: units.request(json: output.json)), CommandReport.self,
            json: output.json)
        if output.json { try Output.printJSON(report) } else { Output.print(report.message) }
    }
}

public struct Start: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Start recording a run (taking the group's baton when the pack is linked and it is free).",
        discussion: """
            Without a GPS fix it first waits for one, as a watch does, showing the satellites seen and \
            used, up to gps.start_wait_s (120 s unless handoff.toml says otherwise); then it starts \
            anyway. --now starts at once. With no GPS and no sensor at all it warns first.
            """)
    @Flag(help: "Run without the baton.")
    var solo = false
    @Option(help: "run, bike or walk (default: the pack's recording.sport).")
    var sport: RunSport?
    @Flag(help: "Start at once, without waiting for a GPS fix.")
    var now = false
    @Flag(
        inversion: .prefixedNo,
        help: "Send this run live to the store while the pack has a network (default: the pack's live.enabled).")
    var live: Bool?
    @Option(help: "Wait at most this many seconds for a GPS fix (default: the pack's gps.start_wait_s).")
    var fixWait: Double?
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    public init() {}

    public func validate() throws {
        if let fixWait, !(fixWait >= 0) { throw ValidationError("--fix-wait must be 0 or more seconds") }
    }

    public func run() async throws {
        let client = connection.client(timeout: 15)
        var status = try client.call(.status, StatusReport.self, json: output.json)
        let idle = !status.state.isOpen
        if idle {
            if status.gps.receiver.sensor == nil, !status.sensors.contains(where: { $0.fresh || $0.link == .connected })
            {
                Output.error(
                    "warning: no GPS and no sensor is connected: this run records time only (no distance, pace or heart rate). `handoff doctor` says why."
                )
            }
            if sport == .bike, !status.sensors.contains(where: { $0.kind == .bike && $0.fresh }) {
                Output.error(
                    "warning: no bike sensor (CSC) is sending: the ride's distance and speed come from GPS, with no cadence. `handoff sensors` lists the paired ones."
                )
            }
            if !now, status.gps.receiver.sensor != nil, status.gps.fix == .none {
                status = try await waitForFix(client, status)
            }
        }
        let report = try client.call(
            .start(solo: solo, sport: sport?.rawValue, live: live), CommandReport.self, json: output.json)
        if output.json { try Output.printJSON(report) } else { Output.print(report.message) }
    }

    /// Waits for a fix, a line of progress a second (redrawn on a terminal); returns the status
    /// that has one, or the last one when the time is up.
    func waitForFix(_ client: ControlClient, _ first: StatusReport) async throws -> StatusReport {
        let limit = fixWait ?? first.gps.startWaitS ?? 120
        let started = ContinuousClock.now
        let terminal = Output.standardErrorIsTerminal
        var status = first
        var lastShown = -1
        while status.gps.fix == .none {
            let elapsed = (ContinuousClock.now - started) / .seconds(1)
            if elapsed >= limit {
                if terminal { Output.progress(nil) }
                Output.error(
                    "no GPS fix after \(Format.duration(limit)): starting without one (distance comes from the footpod, if any, until the GPS has a fix)"
                )
                return status
            }
            if Int(elapsed) != lastShown {
                lastShown = Int(elapsed)
                let seen = status.gps.quality.satellitesSeen.map(String.init) ?? "?"
                let used = status.gps.quality.satellites ?? 0
                let line =
                    "Waiting for a GPS fix: \(seen) satellites seen, \(used) used · \(Format.duration(elapsed)) of \(Format.duration(limit)) (`handoff start --now` starts without)"
                if terminal { Output.progress(line) } else if lastShown % 10 == 0 { Output.error(line) }
            }
            try await Task.sleep(for: .milliseconds(250))
            status = try client.call(.status, StatusReport.self, json: output.json)
        }
        if terminal { Output.progress(nil) }
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        if !output.json {
            Output.print(
                "GPS: \(status.gps.fix.phrase) with \(status.gps.quality.satellites.map { "\($0) satellites" } ?? "satellites") after \(Format.duration(elapsed))."
            )
        }
        return status
    }
}

public struct Stop: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Finish the run being recorded.",
        discussion: """
            A run shorter than a minute that went no distance (a false start) is discarded: it is \
            not kept, uploaded or counted. --keep keeps it; `[recording] discard_shorter_than_s` \
            in handoff.toml sets the length (0 keeps every run).
            """)
    @Flag(help: "Keep the run even if it is too short to be worth keeping.")
    var keep = false
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    @OptionGroup var units: UnitsOption
    public init() {}

    public func run() async throws {
        let report = try connection.client.call(
            .stop(keep: keep), CommandReport.self, json: output.json)
        if output.json { try Output.printJSON(report) } else { Output.print(report.message) }
    }
}

public struct Pause: SessionCommandLine {
    public static let configuration = CommandConfiguration(abstract: "Pause the run (time and distance stop counting).")
    static func request(units: String?) -> ControlRequest { .pause(units: units) }
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    @OptionGroup var units: UnitsOption
    public init() {}
}

public struct Resume: SessionCommandLine {
    public static let configuration = CommandConfiguration(abstract: "Resume a paused run.")
    static func request(units: String?) -> ControlRequest { .resume(units: units) }
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    @OptionGroup var units: UnitsOption
    public init() {}
}

public struct Lap: SessionCommandLine {
    public static let configuration = CommandConfiguration(abstract: "Mark a lap.")
    static func request(units: String?) -> ControlRequest { .lap(units: units) }
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    @OptionGroup var units: UnitsOption
    public init() {}
}
