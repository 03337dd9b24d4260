import ArgumentParser
import PackControl

/// `handoff start|stop|pause|resume|lap`.
protocol SessionCommandLine: AsyncParsableCommand {
    static var command: String { get }
    var connection: ConnectionOptions { get }
    var output: JSONOption { get }
}

extension SessionCommandLine {
    public func run() async throws {
        let report: CommandReport
        report = try connection.client.call(
            ControlRequest(command: Self.command), CommandReport.self, json: output.json)
        if output.json { try Output.printJSON(report) } else { Output.print(report.message) }
    }
}

public struct Start: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Start recording a run (taking the group's baton when the pack is linked and it is free).")
    @Flag(help: "Run without the baton.")
    var solo = false
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    public init() {}

    public func run() async throws {
        let report = try connection.client(timeout: 15).call(
            ControlRequest(command: "start", solo: solo), CommandReport.self, json: output.json)
        if output.json { try Output.printJSON(report) } else { Output.print(report.message) }
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
    public init() {}

    public func run() async throws {
        let report = try connection.client.call(
            ControlRequest(command: "stop", keep: keep), CommandReport.self, json: output.json)
        if output.json { try Output.printJSON(report) } else { Output.print(report.message) }
    }
}

public struct Pause: SessionCommandLine {
    public static let configuration = CommandConfiguration(abstract: "Pause the run (time and distance stop counting).")
    static let command = "pause"
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    public init() {}
}

public struct Resume: SessionCommandLine {
    public static let configuration = CommandConfiguration(abstract: "Resume a paused run.")
    static let command = "resume"
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    public init() {}
}

public struct Lap: SessionCommandLine {
    public static let configuration = CommandConfiguration(abstract: "Mark a lap.")
    static let command = "lap"
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    public init() {}
}
