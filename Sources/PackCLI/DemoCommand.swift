import ArgumentParser
import Foundation
import PackControl

public struct Demo: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Watch the pack record a simulated 5 km run, then see its summary and splits.",
        discussion: """
            Starts a temporary handoffd with its own journal, replays the demo capture into it (a run \
            made by `handoff simulate`: GPS noise, an underpass, a road crossing, a strap dropout), and \
            prints the recorded run checked against what the simulator knows to be true. No hardware \
            and nothing of an installed pack is touched.
            """)

    @Option(help: "Replay speed: a factor of real time, or `max`.")
    var speed = "100"

    @Option(help: "Replay this capture instead of the built-in demo run.")
    var capture: String?

    @Option(help: "Keep the journal, socket and log in this directory instead of a temporary one.")
    var keep: String?

    @Option(help: "Write the recorded run as FIT, GPX, TCX and CSV into this directory.")
    var exportDir = "."

    @OptionGroup var output: JSONOption

    public init() {}

    public func validate() throws {
        if speed != "max", (Double(speed) ?? 0) <= 0 {
            throw ValidationError("--speed must be a positive number or `max`")
        }
    }

    public func run() async throws {
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
        """.write(toFile: configPath, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: daemon)
        process.arguments = ["--config", configPath]
        process.standardOutput = log
        process.standardError = log
        try process.run()
        defer {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
            if keep == nil { try? FileManager.default.removeItem(atPath: directory) }
        }

        let client = ControlClient(socketPath: socket)
        if !output.json {
            Output.print(
                "Replaying \((capturePath as NSString).lastPathComponent) through a temporary handoffd at \(speed == "max" ? "full speed" : speed + "x")…"
            )
        }
        let finalStatus = try await follow(client: client, process: process, logPath: logPath)
        let run: RunReport
        do { run = try client.send(ControlRequest(command: "show", run: "last"), expecting: RunReport.self) } catch {
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
        process.terminate()
        process.waitUntilExit()

        let replay = finalStatus.replay
        if output.json {
            var report = DemoReport(run: run, replay: replay, directory: keep == nil ? nil : directory)
            report.files = files
            try Output.printJSON(report)
            return
        }
        Output.print("")
        Output.print(Show.render(run))
        if let truth = replay?.simulatedDistanceM, let distance = run.distanceM {
            let error = (distance - truth) / truth * 100
            var line =
                "Checked against the simulator: distance \(Format.fixed(distance, 1)) m, true \(Format.fixed(truth, 1)) m (\(error >= 0 ? "+" : "")\(Format.fixed(error, 2)) %)"
            if let hr = replay?.simulatedAvgHrBpm, let avg = run.avgHrBpm {
                line += "; average heart rate \(Format.fixed(avg, 1)) bpm, true \(Format.fixed(hr, 1)) bpm"
            }
            Output.print(line + ".")
        }
        Output.print("The run as FIT, GPX, TCX and CSV: \(files.joined(separator: ", ")).")
        if keep != nil {
            Output.print("The journal, socket and handoffd's log are in \(directory).")
        } else {
            Output.print("That handoffd and its journal are gone; `--keep DIR` keeps them to explore.")
        }
    }

    /// Waits for the daemon, shows progress, and returns the status once the replayed run is finished.
    private func follow(client: ControlClient, process: Process, logPath: String) async throws -> StatusReport {
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
            do { status = try client.send(ControlRequest(command: "status"), expecting: StatusReport.self) } catch {
                if error.code == "not_running", ContinuousClock.now - started < .seconds(30) {
                    try await Task.sleep(for: .milliseconds(100))
                    continue
                }
                throw Output.fail(error, json: output.json)
            }
            let replay = status.replay
            let progress = Int(((replay?.progress ?? 0) * 100).rounded())
            if !output.json, replay?.finished != true {
                let line =
                    "\(status.state == "recording" ? "Recording" : status.state.capitalized) \(Format.duration(status.elapsedS ?? 0)) · \(Format.distance(status.distanceM ?? 0)) · HR \(status.hrBpm.map(String.init) ?? "–") · \(progress) %"
                if terminal {
                    FileHandle.standardOutput.write(Data("\r\u{1B}[K\(line)".utf8))
                } else if progress / 10 > lastDecile {
                    lastDecile = progress / 10
                    Output.print(line)
                }
            }
            if replay?.finished == true {
                if status.state == "finished" || status.state == "idle" {
                    if terminal { Output.print("") }
                    return status
                }
                // A capture that ends mid-run: finish the run ourselves after a moment.
                if let since = finishedSince, ContinuousClock.now - since > .seconds(1) {
                    _ = try? client.send(ControlRequest(command: "stop"), expecting: CommandReport.self)
                } else if finishedSince == nil {
                    finishedSince = .now
                }
            }
            try await Task.sleep(for: .milliseconds(terminal ? 100 : 250))
        }
    }
}

struct DemoReport: Encodable {
    let run: RunReport
    let simulatedDistanceM: Double?
    let simulatedAvgHrBpm: Double?
    let distanceErrorPct: Double?
    let directory: String?
    var files: [String] = []

    enum CodingKeys: String, CodingKey {
        case run, directory, files
        case simulatedDistanceM = "simulated_distance_m", simulatedAvgHrBpm = "simulated_avg_hr_bpm"
        case distanceErrorPct = "distance_error_pct"
    }

    init(run: RunReport, replay: ReplayReport?, directory: String?) {
        self.run = run
        simulatedDistanceM = replay?.simulatedDistanceM
        simulatedAvgHrBpm = replay?.simulatedAvgHrBpm
        if let truth = replay?.simulatedDistanceM, let distance = run.distanceM {
            distanceErrorPct = Format.rounded((distance - truth) / truth * 100, 3)
        } else {
            distanceErrorPct = nil
        }
        self.directory = directory
    }
}

/// Finding the demo's files.
enum DemoFiles {
    static var executableDirectory: String {
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (exe as NSString).deletingLastPathComponent
    }

    /// The demo capture: `$HANDOFF_DEMO_CAPTURE`, the build's resource bundle beside this
    /// executable, or an installed copy under share/handoff.
    static func demoCapture() -> String? {
        let name = "demo-run.capture.jsonl"
        var candidates: [String] = []
        if let path = ProcessInfo.processInfo.environment["HANDOFF_DEMO_CAPTURE"], !path.isEmpty {
            candidates.append(path)
        }
        candidates += [
            executableDirectory + "/Handoff_PackCLI.resources/" + name,
            executableDirectory + "/../share/handoff/" + name,
            "/usr/share/handoff/" + name,
        ]
        return candidates.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    static func executable(_ name: String) -> String? {
        let beside = executableDirectory + "/" + name
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    static func temporaryDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory() + "handoff-demo.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        return String(cString: made)
    }

    static func tail(_ path: String, lines: Int = 15) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }
}
