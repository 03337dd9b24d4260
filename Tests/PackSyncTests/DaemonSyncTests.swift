import Foundation
import HandoffAPI
import PackControl
import TestSupport
import Testing

/// `handoffd` and `handoff` themselves, linked to a real store through the fault proxy.
@Suite("handoffd syncs (real time: handoffd as a process and a store on loopback)", .serialized)
struct DaemonSyncTests {
    static var demoCapture: String {
        Fixtures.repositoryRoot.appendingPathComponent("Sources/PackCLI/Resources/demo-run.capture.jsonl").path
    }

    /// Starts handoffd in `directory` with `arguments`; its log goes to `log`.
    static func start(_ directory: TemporaryDirectory, _ arguments: [String], log: String) throws -> Process {
        let logPath = directory.path + "/" + log
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = Process()
        process.executableURL = Products.url("handoffd")
        process.arguments =
            [
                "--config", directory.path + "/handoff.toml", "--database", directory.path + "/handoff.sqlite",
                "--socket", directory.path + "/control.sock",
            ] + arguments
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    static func until<T>(
        _ what: String, timeout: Duration = .seconds(60), _ body: () async throws -> T?
    ) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let value = try? await body() { return value }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw DaemonSyncFailure("timed out waiting for \(what)")
    }

    /// A command's `--json` output, or an error that says what the command printed and how it ended.
    static func decode<T: Decodable>(_ type: T.Type, _ result: ProcessResult) throws -> T {
        do { return try ControlJSON.decode(type, from: result.stdout) } catch {
            throw DaemonSyncFailure(
                "exit \(result.status), stdout \(result.stdout.debugDescription), stderr \(result.stderr.debugDescription): \(error)"
            )
        }
    }

    struct DaemonSyncFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("SIGKILL while the store's answer is on its way: after a restart the run is uploaded once, and marked synced")
    func killedMidUpload() async throws {
        try await LiveStore.run { store in
            let token = try await store.signUp("kilian")
            let group = try await store.createGroup(token)
            let proxy = try FaultProxy(upstreamPort: store.port, seed: 2)
            proxy.setFaults(false)
            proxy.setHold(true)
            defer { proxy.stop() }
            let directory = try TemporaryDirectory("handoff-sync-kill")
            defer { directory.remove() }
            try """
            [gps]
            source = "none"
            [pedometer]
            sources = ["footpod"]
            [bluetooth]
            enabled = false
            [sync]
            network = "always"
            retry_min_s = 0.05
            retry_max_s = 0.5
            timeout_s = 20
            # The store shares two cores with its load tests: give the baton's take its time (and
            # `handoff baton`'s two reads: at 5 s one was seen to time out in the store pass).
            baton_timeout_s = 30
            """.write(toFile: directory.path + "/handoff.toml", atomically: true, encoding: .utf8)
            let socket = directory.path + "/control.sock"
            var daemon = try Self.start(directory, ["--replay", Self.demoCapture, "--speed", "max"], log: "first.log")
            defer { if daemon.isRunning { daemon.terminate() } }
            let client = ControlClient(socketPath: socket, timeoutSeconds: 10)
            _ = try await Self.until("handoffd") {
                try client.send(.status, expecting: StatusReport.self)
            }

            // Link with the CLI, as a runner would; the person approves the code on the store.
            let link = try await runProcessAsync(
                Products.url("handoff"),
                ["link", "--store", proxy.url.absoluteString, "--no-wait", "--json", "--socket", socket])
            #expect(link.status == 0, "\(link.stderr)")
            let started = try Self.decode(LinkReport.self, link)
            try await store.approve(token, userCode: try #require(started.userCode))
            _ = try await Self.until("the link") {
                let report = try client.send(.linkStatus, expecting: LinkReport.self)
                return report.state == .linked ? report : nil
            }

            // The replayed run finishes and goes up; the store commits and answers; the proxy holds
            // the answer. Then the pack dies.
            let held = try await Self.until("the upload to reach the store") {
                proxy.held.withLock { $0.first }
            }
            // "PUT /v1/runs/UUID HTTP/1.1"
            let path = held.split(separator: " ").dropFirst().first ?? ""
            let uuid = String(path.split(separator: "/").last ?? "")
            #expect(try await store.runs(token).keys.contains(uuid))
            // On a loaded machine the pack may give up waiting for the held answer and send the
            // run again before it dies: what counts is one PUT after the restart, and one run.
            func puts() -> Int { proxy.requests.withLock { $0.filter { $0.hasPrefix("PUT /v1/runs/\(uuid)") }.count } }
            let before = puts()
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
            proxy.setHold(false)

            // Restarted (live, no replay), it finds the run unsynced and uploads it again: the store
            // recognises it (200, same bytes) and counts it once.
            daemon = try Self.start(directory, [], log: "second.log")
            let status = try await Self.until("the restarted pack to sync") {
                let status = try client.send(.syncStatus, expecting: SyncStatusReport.self)
                return status.state == .idle && status.outbox.synced == 1 ? status : nil
            }
            #expect(status.activity.alreadyStored == 1 && status.activity.uploaded == 1)
            let runs = try await store.runs(token)
            #expect(runs.count == 1 && runs[uuid] != nil)
            // The demo run (5.1 km) is from before the group existed, so it counts for its runner
            // only: the member's total is that run, once.
            let progress = try await store.progress(token, group: group.id)
            #expect(progress.group.totalM == 0)
            #expect((runs[uuid] ?? 0) > 5000 && (runs[uuid] ?? 0) < 5200)
            #expect(before >= 1 && puts() - before == 1, "PUTs before the kill \(before), after \(puts() - before)")

            // `handoff sync status` says so, for people and for scripts.
            let text = try await runProcessAsync(Products.url("handoff"), ["sync", "status", "--socket", socket])
            #expect(text.status == 0 && text.stdout.contains("every finished run is on the store"), "\(text.stdout)")
            let json = try await runProcessAsync(
                Products.url("handoff"), ["sync", "status", "--json", "--socket", socket])
            let decoded = try Self.decode(SyncStatusReport.self, json)
            #expect(decoded.outbox.synced == 1 && decoded.outbox.queued.isEmpty && decoded.link.linked)

            // `handoff start` takes the group's baton; it cannot be passed during the run.
            let start = try await runProcessAsync(Products.url("handoff"), ["start", "--json", "--socket", socket])
            let recording = try Self.decode(CommandReport.self, start)
            #expect(
                recording.state == .recording && recording.message.contains("You hold the baton"), "\(start.stdout)")
            let baton = try await runProcessAsync(Products.url("handoff"), ["baton", "--json", "--socket", socket])
            let holding = try Self.decode(BatonReport.self, baton)
            #expect(holding.youHold && holding.holder == "kilian" && holding.group == Int64(group.id))
            let pass = try await runProcessAsync(Products.url("handoff"), ["baton", "pass", "--socket", socket])
            #expect(pass.status != 0 && pass.stderr.contains("a run is being recorded"), "\(pass.stderr)")
            #expect(try await runProcessAsync(Products.url("handoff"), ["stop", "--socket", socket]).status == 0)
            daemon.terminate()
            daemon.waitUntilExit()
        }
    }
}
