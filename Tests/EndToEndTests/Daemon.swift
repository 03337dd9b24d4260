import Foundation
import GRDB
import PackControl
import TestSupport

/// A `handoffd` process started by a test, with its own directory, journal and socket, and its
/// log in a file (so that what it wrote survives a SIGKILL).
final class Daemon: @unchecked Sendable {
    let directory: TemporaryDirectory
    let process = Process()
    let logPath: String
    var database: String { directory.path + "/handoff.sqlite" }
    var socket: String { directory.path + "/control.sock" }
    var client: ControlClient { ControlClient(socketPath: socket, timeoutSeconds: 10) }

    /// Starts handoffd with `arguments` added to its journal and socket (and an empty config).
    init(
        in directory: TemporaryDirectory, arguments: [String], logName: String = "handoffd.log",
        environment: [String: String] = [:]
    ) throws {
        self.directory = directory
        logPath = directory.path + "/" + logName
        let config = directory.path + "/handoff.toml"
        if !FileManager.default.fileExists(atPath: config) {
            try "# test configuration\n".write(toFile: config, atomically: true, encoding: .utf8)
        }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.executableURL = Products.url("handoffd")
        process.arguments = ["--config", config, "--database", database, "--socket", socket] + arguments
        process.standardOutput = log
        process.standardError = log
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        try process.run()
    }

    /// Waits until the control socket answers.
    @discardableResult
    func waitUntilReady(timeout: Duration = .seconds(30)) async throws -> StatusReport {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let status = try? client.send(.status, expecting: StatusReport.self) {
                return status
            }
            guard process.isRunning else {
                throw DaemonFailure("handoffd exited (\(process.terminationStatus)): \(log)")
            }
            guard ContinuousClock.now < deadline else { throw DaemonFailure("handoffd did not answer: \(log)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Polls status until `condition` holds.
    func waitFor(timeout: Duration = .seconds(120), _ condition: (StatusReport) -> Bool) async throws -> StatusReport {
        let deadline = ContinuousClock.now + timeout
        while true {
            let status = try client.send(.status, expecting: StatusReport.self)
            if condition(status) { return status }
            guard ContinuousClock.now < deadline else {
                throw DaemonFailure("timed out; last status \(status.state): \(log)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func terminate() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The journal, opened read-only beside the daemon.
    func openDatabase() throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: database, configuration: configuration)
    }
}

struct DaemonFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs the `handoff` CLI.
func handoff(
    _ arguments: [String], stdin: String? = nil, stdinBytes: Data? = nil, environment: [String: String]? = nil
) throws -> ProcessResult {
    try runProcess(Products.url("handoff"), arguments, environment: environment, stdin: stdin, stdinBytes: stdinBytes)
}

/// The committed demo capture.
var demoCapturePath: String {
    Fixtures.repositoryRoot.appendingPathComponent("Sources/PackCLI/Resources/demo-run.capture.jsonl").path
}

/// Records `capture` with a handoffd of its own, to the end, and returns the journal's rows
/// (points, RR intervals, events) as text for comparison.
func recordToCompletion(_ capture: String, speed: String = "max", extra: [String] = [], name: String) throws -> [String]
{
    let dir = try TemporaryDirectory(name)
    defer { dir.remove() }
    let daemon = try Daemon(in: dir, arguments: ["--replay", capture, "--speed", speed, "--exit-after-replay"] + extra)
    daemon.process.waitUntilExit()
    guard daemon.process.terminationStatus == 0 else {
        throw DaemonFailure("handoffd exited \(daemon.process.terminationStatus): \(daemon.log)")
    }
    return try daemon.openDatabase().read { db in
        try Row.fetchAll(db, sql: "SELECT * FROM point ORDER BY elapsed_s").map(\.description)
            + Row.fetchAll(db, sql: "SELECT offset_ns, seq, rr_1024 FROM rr_interval ORDER BY offset_ns, seq").map(
                \.description)
            + Row.fetchAll(db, sql: "SELECT offset_ns, kind, detail FROM event ORDER BY id").map(\.description)
    }
}
