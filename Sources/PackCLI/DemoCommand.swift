import ArgumentParser
import Foundation
import HandoffAPI
import PackControl

public struct Demo: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Watch the pack record a simulated 5 km run, upload it to a local group store, and see the group.",
        discussion: """
            Starts a temporary handoffd with its own journal, replays the demo capture into it (a run \
            made by `handoff simulate`: GPS noise, an underpass, a road crossing, a strap dropout), and \
            prints the recorded run checked against what the simulator knows to be true. It also \
            starts a group store (handoff-store, SQLite) in the same temporary directory, with an \
            account and a group, links the pack to it as `handoff link` does, syncs the run, and \
            prints the group's progress and baton. At the end, when standard input is a terminal (or \
            with --wait), the store keeps running and the demo prints its address with the account \
            and password to sign in with, until you press Enter. Ctrl-C, SIGTERM or a closed output \
            stop it at any point, and leave no process and no temporary directory behind. No \
            hardware and nothing of an installed pack is touched.
            """)

    @Option(help: "Replay speed: a factor of real time, or `max`.")
    var speed = "100"

    @Option(help: "Replay this capture instead of the built-in demo run.")
    var capture: String?

    @Option(help: "Keep the journal, socket and log in this directory instead of a temporary one.")
    var keep: String?

    @Option(help: "Write the recorded run as FIT, GPX, TCX and CSV into this directory.")
    var exportDir = "."

    @Flag(help: "Only record: no local group store, no sync.")
    var noStore = false

    @Flag(
        help: """
            At the end, keep the store running for you to sign in to, until Enter or the end of \
            standard input (the default when standard input is a terminal).
            """)
    var wait = false

    @Flag(help: "Stop the store at the end instead of waiting (scripts and CI).")
    var noWait = false

    @OptionGroup var output: JSONOption
    @OptionGroup var units: UnitsOption

    public init() {}

    public func validate() throws {
        if speed != "max", (Double(speed) ?? 0) <= 0 {
            throw ValidationError("--speed must be a positive number or `max`")
        }
        if wait && noWait { throw ValidationError("--wait and --no-wait contradict each other: give one") }
    }

    /// The demo's account on its store, for a person to sign in with at the end.
    static let username = "demo"

    /// A password to read and type: three groups of four letters and digits, none that look alike.
    static func readablePassword() -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        return (0..<3).map { _ in String((0..<4).map { _ in alphabet.randomElement()! }) }.joined(separator: "-")
    }

    public func run() async throws {
        let session = DemoSession.shared
        session.takeSignals()
        defer { session.cleanUp() }
        let say = { (text: String) in session.say(text) }
        guard let capturePath = capture ?? DemoFiles.demoCapture() else {
            Output.error(
                "the demo capture is not installed beside this handoff; make one with `handoff simulate -o run.jsonl` and pass `--capture run.jsonl`"
            )
            throw ExitCode.failure
        }
        guard let daemon = DemoFiles.executable("handoffd") else {
            Output.error("handoffd was not found beside handoff or on PATH; build it with `swift build`")
            throw ExitCode.failure
        }
        let directory: String
        if let keep {
            try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            directory = (keep as NSString).standardizingPath
        } else {
            directory = try DemoFiles.temporaryDirectory()
            session.removeAtEnd(directory)
        }
        let password = Self.readablePassword()
        var store: DemoStore?
        var demoGroup: (id: Int, token: String)?
        if !noStore {
            guard let storeExecutable = DemoFiles.executable("handoff-store") else {
                Output.error(
                    "handoff-store was not found beside handoff or on PATH; build it with `swift build --product handoff-store`, or pass --no-store"
                )
                throw ExitCode.failure
            }
            do {
                let started = try await DemoStore.start(executable: storeExecutable, directory: directory)
                store = started
                let account = try await started.expect(
                    201, "POST", "/v1/accounts",
                    json: SignUp(email: "demo@example.org", username: Self.username, password: password),
                    reply: SignedIn.self)
                let token = account.token
                let group = try await started.expect(
                    201, "POST", "/v1/groups", token: token, json: GroupCreate(name: "Demo relay", goalM: 42_195),
                    reply: GroupView.self)
                demoGroup = (Int(group.id), token)
            } catch let error as ControlError {
                throw Output.fail(error, json: output.json)
            }
        }
        let socket = directory + "/control.sock"
        let logPath = directory + "/handoffd.log"
        // The demo's own configuration, so that no installed handoff.toml changes what it shows.
        let configPath = directory + "/handoff.toml"
        try """
        # handoffd configuration for `handoff demo` (docs/configuration.md lists every key).
        [storage]
        database = "\(directory)/handoff.sqlite"

        [control]
        socket = "\(socket)"

        [replay]
        file = "\(capturePath)"
        speed = "\(speed)"
        # The replayed run is dated from now, after the demo's group was made, so that it counts.
        start_now = \(store != nil)

        [sync]
        enabled = \(store != nil)
        # The demo store is on loopback: "home" is wherever this runs.
        network = "always"
        retry_min_s = 0.5
        retry_max_s = 5

        [display]
        units = "\((units.units ?? .kilometers).rawValue)"
        """.write(toFile: configPath, atomically: true, encoding: .utf8)

        let process: DemoChild
        do {
            process = try session.spawn(
                "handoffd", executable: daemon, arguments: ["--config", configPath], logPath: logPath)
        } catch let failure as DemoChild.Failure {
            Output.error(failure.message)
            throw ExitCode.failure
        }

        let client = ControlClient(socketPath: socket)
        if !output.json {
            say(
                "Replaying \((capturePath as NSString).lastPathComponent) through a temporary handoffd at \(speed == "max" ? "full speed" : speed + "x")…"
            )
        }
        if let store, let demoGroup {
            do {
                try await link(client: client, store: store, token: demoGroup.token, process: process, logPath: logPath)
            } catch let error as ControlError { throw Output.fail(error, json: output.json) }
        }
        let finalStatus = try await follow(client: client, process: process, logPath: logPath)
        let run: RunReport
        // The demo's handoffd writes in --units (kilometres without): the run in them, with its
        // splits per mile in miles; `--json` the same in any units.
        let units = self.units.units ?? .kilometers
        do {
            run = try client.send(Show.request("last", output.json ? .kilometers : units), expecting: RunReport.self)
        } catch {
            throw Output.fail(error, json: output.json)
        }
        // The run as files every tool reads, written before this handoffd goes away.
        var files: [String] = []
        do {
            try FileManager.default.createDirectory(atPath: exportDir, withIntermediateDirectories: true)
            for format in ["fit", "gpx", "tcx", "csv"] {
                let target = (exportDir as NSString).appendingPathComponent("handoff-demo-run.\(format)")
                _ = try Export.write(run: "last", format: format, to: target, client: client)
                files.append(target)
            }
        } catch let error as ControlError {
            throw Output.fail(error, json: output.json)
        }
        var group: DemoGroupReport?
        if let store, let demoGroup {
            do {
                let synced = try await sync(client: client)
                let progress = try await store.expect(
                    200, "GET", "/v1/groups/\(demoGroup.id)/progress", token: demoGroup.token, reply: ProgressView.self)
                group = DemoGroupReport(
                    store: store.url.absoluteString, progress: progress, synced: synced,
                    signIn: .init(username: Self.username, password: password))
            } catch let error as ControlError {
                throw Output.fail(error, json: output.json)
            }
        }
        process.stop()

        let replay = finalStatus.replay
        // Waiting for a person needs one: a terminal on standard input, unless asked for.
        let waiting = store != nil && !noWait && (wait || (!output.json && DemoSession.standardInputIsTerminal))
        if output.json {
            var report = DemoReport(run: run, replay: replay, directory: keep == nil ? nil : directory)
            report.files = files
            report.group = group
            say(try ControlJSON.encode(report))
        } else {
            say("")
            say(Show.render(run, units))
            if let truth = replay?.simulatedDistanceM, let distance = run.totals.distanceM {
                let error = (distance - truth) / truth * 100
                var line =
                    "Checked against the simulator: distance \(Format.fixed(distance, 1)) m, true \(Format.fixed(truth, 1)) m (\(error >= 0 ? "+" : "")\(Format.fixed(error, 2)) %)"
                if let hr = replay?.simulatedAvgHrBpm, let avg = run.rates.avgHrBpm {
                    line += "; average heart rate \(Format.fixed(avg, 1)) bpm, true \(Format.fixed(hr, 1)) bpm"
                }
                say(line + ".")
            }
            say("The run as FIT, GPX, TCX and CSV: \(files.joined(separator: ", ")).")
            if let group { say("\n" + group.render(units)) }
            if keep != nil {
                say("The journal, socket and handoffd's log are in \(directory).")
            } else {
                say("That handoffd and its journal are gone; `--keep DIR` keeps them to explore.")
            }
        }
        if waiting, let store {
            let line =
                "The group store is still running: open \(store.url.absoluteString) — user \(Self.username), password \(password); press Enter to stop."
            // With --json the line is for the person, not the script: on standard error.
            if output.json { DemoSession.write(STDERR_FILENO, line + "\n") } else { say("\n" + line) }
            await DemoSession.waitForEnter()
            session.cleanUp()
            if !output.json {
                say("The store has stopped\(keep == nil ? " and its temporary directory is gone" : "").")
            }
        }
    }

    /// Links the demo pack to the demo store: handoffd asks for a code, the demo's account
    /// approves it (a person would, on the store's /device page).
    private func link(
        client: ControlClient, store: DemoStore, token: String, process: DemoChild, logPath: String
    )
        async throws
    {
        let started = ContinuousClock.now
        var report: LinkReport?
        while report == nil {
            do {
                report = try client.send(
                    .link(store: store.url.absoluteString, name: "demo pack"),
                    expecting: LinkReport.self)
            } catch {
                guard error.code == .notRunning, process.isRunning, ContinuousClock.now - started < .seconds(30)
                else {
                    throw error
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        _ = try await store.expect(
            200, "POST", "/v1/device/approve", token: token, json: DeviceApproval(userCode: report?.userCode ?? ""),
            reply: DeviceApproved.self)
        if !output.json {
            DemoSession.shared.say("Linking the pack to a local group store at \(store.url.absoluteString)…")
        }
        while report?.state == .waiting {
            try await Task.sleep(for: .milliseconds(250))
            report = try client.send(.linkStatus, expecting: LinkReport.self)
        }
        guard report?.state == .linked else {
            throw ControlError(code: "link_failed", message: report?.message ?? "linking failed")
        }
    }

    /// Asks handoffd to sync and waits until the outbox is empty (or a minute passes).
    private func sync(client: ControlClient) async throws -> Bool {
        var status = try client.send(.sync(now: true), expecting: SyncStatusReport.self)
        let started = ContinuousClock.now
        while !(status.state == .idle && status.outbox.synced > 0), ContinuousClock.now - started < .seconds(60) {
            if [.notLinked, .unlinkedByStore, .held].contains(status.state) { break }
            try await Task.sleep(for: .milliseconds(200))
            status = try client.send(.syncStatus, expecting: SyncStatusReport.self)
        }
        if !output.json {
            DemoSession.shared.say(
                status.state == .idle ? "Synced: the run is on the store." : "Not synced: \(status.message)")
        }
        return status.state == .idle && status.outbox.synced > 0
    }

    /// Waits for the daemon, shows progress, and returns the status once the replayed run is finished.
    private func follow(client: ControlClient, process: DemoChild, logPath: String) async throws -> StatusReport {
        let started = ContinuousClock.now
        var lastDecile = -1
        var finishedSince: ContinuousClock.Instant?
        let terminal = Output.standardOutputIsTerminal && !output.json
        while true {
            guard process.isRunning else {
                Output.error("handoffd stopped unexpectedly; its log says:\n" + DemoFiles.tail(logPath))
                throw ExitCode.failure
            }
            let status: StatusReport
            do { status = try client.send(.status, expecting: StatusReport.self) } catch {
                if error.code == .notRunning, ContinuousClock.now - started < .seconds(30) {
                    try await Task.sleep(for: .milliseconds(100))
                    continue
                }
                throw Output.fail(error, json: output.json)
            }
            let replay = status.replay
            let progress = Int(((replay?.progress ?? 0) * 100).rounded())
            if !output.json, replay?.finished != true {
                let line =
                    "\(status.state == .recording ? "Recording" : status.state.rawValue.capitalized) \(Format.duration(status.run.elapsedS ?? 0)) · \(Format.distance(status.run.distanceM ?? 0, UnitsOption.configured(status))) · HR \(status.live.hrBpm.map(String.init) ?? "–") · \(progress) %"
                if terminal {
                    DemoSession.shared.say("\r\u{1B}[K\(line)", newline: false)
                } else if progress / 10 > lastDecile {
                    lastDecile = progress / 10
                    DemoSession.shared.say(line)
                }
            }
            if replay?.finished == true {
                if status.state == .finished || status.state == .idle {
                    if terminal { DemoSession.shared.say("") }
                    return status
                }
                // A capture that ends mid-run: finish the run ourselves after a moment.
                if let since = finishedSince, ContinuousClock.now - since > .seconds(1) {
                    _ = try? client.send(.stop(), expecting: CommandReport.self)
                } else if finishedSince == nil {
                    finishedSince = .now
                }
            }
            try await Task.sleep(for: .milliseconds(terminal ? 100 : 250))
        }
    }
}
