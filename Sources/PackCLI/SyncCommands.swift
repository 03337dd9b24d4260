import ArgumentParser
import Foundation
import PackControl

/// `handoff link`: the device flow from the pack's side.
public struct Link: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Link this pack to your account on a group store.",
        discussion: """
            handoffd asks the store for a short code; enter it on the store's /device page while \
            signed in (a phone will do). The pack keeps the token it gets in a file only handoffd \
            can read, and uploads finished runs whenever it is home.
            """)

    @Option(help: "The store's address, such as https://store.example.org.")
    var store: String

    @Option(help: "The name this pack shows on your account (default: its host name).")
    var name: String?

    @Flag(help: "Print the code and return instead of waiting for it to be entered.")
    var noWait = false

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    public init() {}

    public func run() async throws {
        let client = connection.client(timeout: 30)
        var report: LinkReport
        report = try client.call(
            ControlRequest(command: "link", name: name, store: store), LinkReport.self, json: output.json)
        if output.json {
            try Output.printJSON(report)
        } else {
            Output.print("To link this pack, open \(report.verificationUri ?? store + "/device") and enter the code")
            Output.print("")
            Output.print("    \(report.userCode ?? "?")")
            Output.print("")
            if let complete = report.verificationUriComplete { Output.print("(or open \(complete))") }
            if let expires = report.expiresAt {
                Output.print("The code works until \(Output.localTime(expires)).")
            }
        }
        if noWait { return }
        if !output.json { Output.print("Waiting for the code to be entered… (Ctrl-C stops waiting; linking goes on)") }
        while report.state == "waiting" {
            try await Task.sleep(for: .seconds(1))
            report = try client.call(ControlRequest(command: "link_status"), LinkReport.self, json: output.json)
        }
        if output.json { try Output.printJSON(report) } else { Output.print(report.message.capitalizedFirst) }
        if report.state != "linked" { throw ExitCode.failure }
    }
}

/// `handoff unlink`.
public struct Unlink: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Unlink this pack from its store (its runs stay on the pack).")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    public init() {}

    public func run() async throws {
        let report: LinkReport
        report = try connection.client(timeout: 30).call(
            ControlRequest(command: "unlink"), LinkReport.self, json: output.json)
        if output.json { try Output.printJSON(report) } else { Output.print(report.message.capitalizedFirst) }
    }
}

/// `handoff sync` and `handoff sync status`.
public struct Sync: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Upload finished runs to the group store now, or see what waits.",
        subcommands: [SyncRun.self, SyncStatus.self], defaultSubcommand: SyncRun.self)

    public init() {}
}

public struct SyncRun: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Upload what waits and show the progress (handoffd also does this by itself when home).")

    @Flag(help: "Try now: forget retry times, and try runs the store refused again.")
    var now = false

    @Flag(help: "Upload even if the pack is not on a home network (this once).")
    var anywhere = false

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    public init() {}

    public func run() async throws {
        let client = connection.client(timeout: 30)
        var report: SyncStatusReport
        report = try client.call(
            ControlRequest(command: "sync", anywhere: anywhere, now: now), SyncStatusReport.self, json: output.json)
        let target = report.passes + (report.looking ? 2 : 1)
        let terminal = Output.standardOutputIsTerminal && !output.json
        var lastLine = ""
        let queuedAtStart = report.queued.count
        while report.passes < target {
            let line = Self.progress(report, queuedAtStart: queuedAtStart)
            if line != lastLine, !output.json {
                if terminal {
                    FileHandle.standardOutput.write(Data("\r\u{1B}[K\(line)".utf8))
                } else {
                    Output.print(line)
                }
                lastLine = line
            }
            try await Task.sleep(for: .milliseconds(200))
            report = try client.call(ControlRequest(command: "sync_status"), SyncStatusReport.self, json: output.json)
        }
        if terminal, !lastLine.isEmpty { Output.print("") }
        if output.json {
            try Output.printJSON(report)
        } else {
            Output.print(SyncStatus.render(report))
        }
        if ["not_linked", "unlinked_by_store", "held"].contains(report.state) { throw ExitCode.failure }
    }

    /// For each run uploaded in the latest pass, where it counted: "Run 12: counted in Danube
    /// relay; not in Club 10k: it started before you joined".
    public static func countedLines(_ report: SyncStatusReport) -> [String] {
        report.countedLines
    }

    static func progress(_ r: SyncStatusReport, queuedAtStart: Int) -> String {
        if let current = r.current {
            return
                "Uploading run \(current.run) (\(current.index) of \(current.of)\(current.bytes.map { ", " + Format.bytes($0) } ?? ""))…"
        }
        if r.state == "checking" { return "Asking the store…" }
        return "Looking at \(queuedAtStart) queued run(s)…"
    }
}

public struct SyncStatus: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show queued runs, the last attempt, the last error and the next retry.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    public init() {}

    public func run() async throws {
        let report: SyncStatusReport
        report = try connection.client.call(
            ControlRequest(command: "sync_status"), SyncStatusReport.self, json: output.json)
        if output.json { try Output.printJSON(report) } else { Output.print(Self.render(report)) }
    }

    static func render(_ r: SyncStatusReport) -> String {
        var lines: [[String]] = []
        lines.append(["store", r.store.map { $0 + (r.username.map { " (as \($0))" } ?? "") } ?? "not linked"])
        lines.append(["network", r.network])
        lines.append(["state", r.message])
        var synced = "\(r.synced) run(s)"
        if let last = r.lastSyncedAt { synced += ", last at \(Output.localTime(last))" }
        lines.append(["synced", synced])
        if let attempt = r.lastAttemptAt { lines.append(["last attempt", Output.localTime(attempt)]) }
        if let error = r.lastError { lines.append(["last error", error]) }
        if let next = r.nextAttemptAt { lines.append(["next retry", Output.localTime(next)]) }
        var text = Output.table(lines)
        guard !r.queued.isEmpty else { return text }
        var rows = [["RUN", "STARTED", "DISTANCE", "TRIES", "NEXT", "LAST ERROR"]]
        for run in r.queued {
            let next = run.held ? "held" : run.nextRetryAt.map { Output.localTime($0) } ?? "when home"
            rows.append([
                String(run.run), Output.localTime(run.startTime), Format.distance(run.distanceM), String(run.attempts),
                next, run.lastError ?? "",
            ])
        }
        text += "\n\nQueued:\n" + Output.table(rows, rightAligned: [0, 2, 3])
        return text
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

/// `handoff baton` and `handoff baton pass [MEMBER]`.
public struct BatonCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "baton", abstract: "Show the group's baton, or pass it on.",
        subcommands: [BatonShow.self, BatonPass.self], defaultSubcommand: BatonShow.self)
    public init() {}
}

public struct BatonShow: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Who holds the group's baton, and the latest legs.")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    public init() {}

    public func run() async throws {
        let report: BatonReport
        report = try connection.client(timeout: 30).call(
            ControlRequest(command: "baton"), BatonReport.self, json: output.json)
        if output.json { return try Output.printJSON(report) }
        var text = report.message
        if let since = report.since { text += " Since \(Output.localTime(since))" }
        if let expires = report.expiresAt { text += "; the lease runs to \(Output.localTime(expires))" }
        Output.print(text + (report.since == nil ? "" : "."))
        guard !report.legs.isEmpty else { return }
        var rows = [["RUNNER", "TAKEN", "ENDED", "HOW", "DISTANCE", "RUNS"]]
        for leg in report.legs {
            rows.append([
                leg["runner"] ?? "(gone)", leg["taken_at"].map { Output.localTime($0) } ?? "",
                leg["ended_at"].map { Output.localTime($0) } ?? "running", leg["ended"] ?? "",
                leg["distance_m"].flatMap(Double.init).map(Format.distance) ?? "", leg["runs"] ?? "",
            ])
        }
        Output.print("\nLegs:\n" + Output.table(rows, rightAligned: [4, 5]))
    }
}

public struct BatonPass: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "pass",
        abstract: "Hand the baton to a member, or to the next in the group's rotation (after your run has synced).")
    @Argument(help: "The member's username (default: the next in the rotation).")
    var member: String?
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    public init() {}

    public func run() async throws {
        let report: BatonReport
        report = try connection.client(timeout: 30).call(
            ControlRequest(command: "baton_pass", target: member), BatonReport.self, json: output.json)
        if output.json { try Output.printJSON(report) } else { Output.print(report.message) }
    }
}
