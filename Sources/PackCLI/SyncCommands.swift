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

    @Option(
        name: .customLong("home-ssid"),
        help: "Make this Wi-Fi a home network, where runs upload by themselves (default: offer the one the pack is on)."
    )
    var homeSSID: String?

    @Flag(help: "Set no home network (runs then upload only when you run `handoff sync`).")
    var noHome = false

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    public init() {}

    public func validate() throws {
        if noHome && homeSSID != nil { throw ValidationError("--home-ssid and --no-home say opposite things") }
    }

    public func run() async throws {
        let client = connection.client(timeout: 30)
        var report: LinkReport
        report = try client.call(
            .link(store: store, name: name), LinkReport.self, json: output.json)
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
        if noWait {
            // Linking goes on without this command: only a home network named now is set now.
            if homeSSID != nil { try setUpHome(client) }
            return
        }
        if !output.json { Output.print("Waiting for the code to be entered… (Ctrl-C stops waiting; linking goes on)") }
        while report.state == .waiting {
            try await Task.sleep(for: .seconds(1))
            report = try client.call(.linkStatus, LinkReport.self, json: output.json)
        }
        if output.json { try Output.printJSON(report) } else { Output.print(report.message.capitalizedFirst + ".") }
        if report.state != .linked { throw ExitCode.failure }
        try setUpHome(client)
    }

    /// Linking ends with a pack that uploads by itself: the Wi-Fi it is on becomes home when the
    /// person agrees (or names one, or declines with --no-home).
    func setUpHome(_ client: ControlClient) throws {
        if let homeSSID {
            let added = try client.call(
                .homeAdd(target: homeSSID), HomeReport.self, json: output.json)
            return output.json ? try Output.printJSON(added) : Output.print(added.message.capitalizedFirst + ".")
        }
        let home = try client.call(.home, HomeReport.self, json: output.json)
        let offer = home.wifi.flatMap { home.homeNetworks.contains($0) ? nil : $0 }
        guard !noHome, let wifi = offer, !output.json, Output.standardInputIsTerminal else {
            return output.json ? try Output.printJSON(home) : Output.print(home.message.capitalizedFirst + ".")
        }
        Output.prompt(
            "Make \"\(wifi)\", the Wi-Fi the pack is on now, a home network? Finished runs then upload by themselves whenever the pack is on it. [Y/n] "
        )
        let answer = (readLine() ?? "n").trimmingCharacters(in: .whitespaces).lowercased()
        guard answer.isEmpty || answer == "y" || answer == "yes" else {
            return Output.print(
                "No home network set: runs upload only when you run `handoff sync` (`handoff sync home NAME` sets one later)."
            )
        }
        let added = try client.call(.homeAdd(target: wifi), HomeReport.self, json: false)
        Output.print(added.message.capitalizedFirst + ".")
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
            .unlink, LinkReport.self, json: output.json)
        if output.json { try Output.printJSON(report) } else { Output.print(report.message.capitalizedFirst) }
    }
}

/// `handoff sync` and `handoff sync status`.
public struct Sync: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Upload finished runs to the group store now, or see what waits.",
        subcommands: [SyncRun.self, SyncStatus.self, SyncHome.self], defaultSubcommand: SyncRun.self)

    public init() {}
}

public struct SyncRun: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Upload every run that waits, now, wherever the pack is, and say what happened to each.",
        discussion: """
            Runs the store refused before are tried again, and no retry time is waited for. handoffd \
            also uploads by itself whenever the pack is on a home network (`handoff sync home`), \
            backing off after failures. Exits non-zero when a run could not be uploaded.
            """)

    // Kept so that scripts written for earlier versions still run: both are what `sync` does now.
    @Flag(help: .hidden) var now = false
    @Flag(help: .hidden) var anywhere = false

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    public init() {}

    public func run() async throws {
        let client = connection.client(timeout: 30)
        var report: SyncStatusReport
        report = try client.call(
            .sync(now: true, anywhere: true), SyncStatusReport.self, json: output.json)
        guard let number = report.request else {
            throw Output.fail(
                ControlError(
                    code: "old_handoffd", message: "this handoffd is older than handoff: restart it to sync from here"),
                json: output.json)
        }
        let terminal = Output.standardOutputIsTerminal && !output.json
        var lastLine = ""
        let queuedAtStart = report.outbox.queued.count
        let passesAtStart = report.activity.passes
        while (report.lastRequest?.request ?? 0) < number {
            guard report.activity.passes >= passesAtStart else {
                throw Output.fail(
                    ControlError(
                        code: "restarted",
                        message: "handoffd restarted while syncing: `handoff sync status` shows what was uploaded"),
                    json: output.json)
            }
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
            report = try client.call(.syncStatus, SyncStatusReport.self, json: output.json)
        }
        if terminal, !lastLine.isEmpty { FileHandle.standardOutput.write(Data("\r\u{1B}[K".utf8)) }
        let outcome = report.lastRequest!
        if output.json {
            try Output.printJSON(report)
        } else {
            for line in Self.render(outcome, report) { Output.print(line) }
            for failure in [outcome.problem].compactMap({ $0 }) + outcome.failed {
                Output.error(Self.sentence(failure, store: report.link.store))
            }
            if !outcome.notTried.isEmpty {
                Output.error(
                    "run \(outcome.notTried.map(String.init).joined(separator: ", ")) not tried: the store stopped answering before their turn; they wait on the pack"
                )
            }
            if let advice = report.network.advice { Output.print("Note: " + advice + ".") }
        }
        if outcome.problem != nil || !outcome.failed.isEmpty || !outcome.notTried.isEmpty { throw ExitCode.failure }
    }

    /// For each run uploaded in the latest pass, where it counted: "Run 12: counted in Danube
    /// relay; not in Club 10k: it started before you joined".
    public static func countedLines(_ report: SyncStatusReport) -> [String] {
        report.countedLines
    }

    static func progress(_ r: SyncStatusReport, queuedAtStart: Int) -> String {
        if let current = r.outbox.current {
            return
                "Uploading run \(current.run) (\(current.index) of \(current.of)\(current.bytes.map { ", " + Format.bytes($0) } ?? ""))…"
        }
        if r.state == .checking { return "Asking the store…" }
        return "Looking at \(queuedAtStart) queued run\(queuedAtStart == 1 ? "" : "s")…"
    }

    /// What went well, a line a run.
    static func render(_ outcome: SyncRequestReport, _ report: SyncStatusReport) -> [String] {
        var lines: [String] = []
        // "Run 12 uploaded: counted in Danube relay; not in Club 10k: it started before you joined."
        func counted(_ run: Int64) -> String {
            report.activity.recent.first { $0.run == run }.map { ": " + $0.counting.sentence + "." } ?? "."
        }
        for run in outcome.uploaded { lines.append("Run \(run) uploaded" + counted(run)) }
        for run in outcome.alreadyStored { lines.append("Run \(run) was already on the store" + counted(run)) }
        if outcome.problem == nil, outcome.failed.isEmpty, outcome.notTried.isEmpty, lines.isEmpty {
            lines.append(
                "Nothing to upload: every finished run is on the store (\(report.outbox.synced) run\(report.outbox.synced == 1 ? "" : "s") synced)."
            )
        }
        return lines
    }

    /// Why a run did not upload, and what to do: one sentence per kind of failure.
    static func sentence(_ f: SyncFailureReport, store: String?) -> String {
        let subject = f.run.map { "run \($0) was not uploaded" } ?? "nothing was uploaded"
        let keep = f.run == nil ? "runs wait on the pack" : "the run waits on the pack"
        switch f.kind {
        case .unreachable:
            return
                "\(subject): the store\(store.map { " at " + $0 } ?? "") did not answer (\(f.message)). Check that it is running and that this pack is online (`handoff doctor`); \(keep)"
        case .storeFailed:
            return
                "\(subject): the store failed (\(f.message)). The fault is the store's: tell its operator; \(keep) and handoffd tries again later"
        case .busy:
            return "\(subject): the store is busy and asked to wait (\(f.message)); `handoff sync` again in a minute"
        case .refused:
            return
                "\(subject): the store refused its file (\(f.message)). The run stays on the pack (`handoff export \(f.run.map(String.init) ?? "RUN")` saves a copy); `handoff sync` tries it again once the cause is fixed"
        case .notLinked: return f.message
        default: return "\(subject): \(f.message)"
        }
    }
}

public struct SyncStatus: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show queued runs, the last attempt, the last error and the next retry.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    @OptionGroup var units: UnitsOption

    public init() {}

    public func run() async throws {
        let report: SyncStatusReport
        report = try connection.client.call(
            .syncStatus, SyncStatusReport.self, json: output.json)
        if output.json { return try Output.printJSON(report) }
        Output.print(Self.render(report, try units.resolve(connection.client, json: false)))
    }

    static func render(_ r: SyncStatusReport, _ units: Units) -> String {
        var lines: [[String]] = []
        lines.append(["store", r.link.store.map { $0 + (r.link.username.map { " (as \($0))" } ?? "") } ?? "not linked"])
        lines.append(["network", r.network.summary])
        lines.append([
            "automatic",
            r.network.uploadsByItself
                ? (r.network.homeNetworks.isEmpty
                    ? "on: every network is home"
                    : "on: runs upload by themselves on "
                        + r.network.homeNetworks.map { "\"\($0)\"" }.joined(separator: ", "))
                : "off: no home Wi-Fi is set",
        ])
        lines.append(["state", r.message])
        var synced = Format.count(r.outbox.synced, "run")
        if let last = r.outbox.lastSyncedAt { synced += ", last at \(Output.localTime(last))" }
        lines.append(["synced", synced])
        if let attempt = r.contact.lastAttemptAt { lines.append(["last attempt", Output.localTime(attempt)]) }
        if let error = r.contact.lastError { lines.append(["last error", error]) }
        if let next = r.contact.nextAttemptAt { lines.append(["next retry", Output.localTime(next)]) }
        var text = Output.table(lines)
        if let advice = r.network.advice { text += "\n\n" + advice.capitalizedFirst + "." }
        guard !r.outbox.queued.isEmpty else { return text }
        var rows = [["RUN", "STARTED", "DISTANCE", "TRIES", "NEXT", "LAST ERROR"]]
        for run in r.outbox.queued {
            let next = run.held ? "held" : run.nextRetryAt.map { Output.localTime($0) } ?? "when home"
            rows.append([
                String(run.run), Output.localTime(run.startTime), Format.distance(run.distanceM, units),
                String(run.attempts),
                next, run.lastError ?? "",
            ])
        }
        text += "\n\nQueued:\n" + Output.table(rows, rightAligned: [0, 2, 3])
        return text
    }
}

/// `handoff sync home`: the networks on which runs upload by themselves.
public struct SyncHome: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "home",
        abstract: "Make a Wi-Fi a home network: finished runs upload by themselves whenever the pack is on it.",
        discussion: """
            With no name, the Wi-Fi the pack is on now. The networks added here are kept beside the \
            pack's link; those named in handoff.toml (sync.home_ssids) are home too.
            """)

    @Argument(help: "The Wi-Fi's name (SSID); default: the one the pack is on now.")
    var name: String?

    @Flag(help: "Only list the home networks.")
    var list = false

    @Option(help: "Stop treating this network as home.")
    var remove: String?

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    public init() {}

    public func validate() throws {
        if list && (name != nil || remove != nil) { throw ValidationError("--list takes no name and no --remove") }
        if remove != nil && name != nil { throw ValidationError("give a name to add, or --remove NAME, not both") }
    }

    public func run() async throws {
        let request: ControlRequest
        if list {
            request = .home
        } else if let remove {
            request = .homeRemove(target: remove)
        } else {
            request = .homeAdd(target: name)
        }
        let report = try connection.client.call(request, HomeReport.self, json: output.json)
        if output.json { return try Output.printJSON(report) }
        Output.print(report.message.capitalizedFirst + ".")
        guard list, !report.homeNetworks.isEmpty else { return }
        Output.print(
            Output.table(
                report.homeNetworks.map { name in
                    [
                        "  " + name, report.configured.contains(name) ? "handoff.toml" : "added",
                        name == report.wifi ? "← the pack is on it" : "",
                    ]
                }))
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
