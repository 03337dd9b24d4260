import Foundation
import PackControl
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 29's first hour, with the real `handoffd` and `handoff` against a real store: linking
/// ends with a home network, an explicit sync acts at once and names what failed, and the baton
/// says when a run is being recorded. Wi-Fi is wpa_supplicant simulated at its control socket
/// (this machine has none).
@Suite("The first hour's sync (real time: the CLI and handoffd as processes, a store on loopback)", .serialized)
struct FirstHourSyncTests {
    let handoff = Products.url("handoff")

    /// A pack in `directory` that reads its Wi-Fi from a simulated wpa_supplicant.
    static func configure(_ directory: TemporaryDirectory) throws {
        try """
        [gps]
        source = "none"
        [pedometer]
        sources = ["footpod"]
        [bluetooth]
        enabled = false
        [sync]
        network = "wpa_supplicant"
        wpa_supplicant_dir = "\(directory.path)"
        retry_min_s = 60
        retry_max_s = 120
        timeout_s = 5
        """.write(toFile: directory.path + "/handoff.toml", atomically: true, encoding: .utf8)
    }

    /// Runs `handoff` on a thread of its own: the in-process store the pack talks to answers on
    /// the two-thread cooperative pool, which a test waiting on a process must not hold.
    func cli(_ arguments: [String]) async throws -> ProcessResult {
        try await runProcessAsync(handoff, arguments)
    }

    static func syncStatus(_ client: ControlClient) throws -> SyncStatusReport {
        try client.send(.syncStatus, expecting: SyncStatusReport.self)
    }

    /// Runs `handoff link …` in the background, approves its code on the store, and returns it.
    func link(
        _ arguments: [String], terminal: Bool, store: LiveStore, token: String, client: ControlClient
    ) async throws -> Interactive {
        let run = try Interactive(
            handoff, ["link", "--store", store.url.absoluteString] + arguments, terminal: terminal)
        let code = try await DaemonSyncTests.until("the code") {
            try client.send(.linkStatus, expecting: LinkReport.self).userCode
        }
        try await store.approve(token, userCode: code)
        return run
    }

    @Test(
        "handoff link ends with a home network: on a terminal it offers the Wi-Fi the pack is on (kept across a restart); --home-ssid names one; a script and --no-home get no question, and sync status and doctor say runs will not upload by themselves and how to fix it"
    )
    func linkingEndsWithAHome() async throws {
        try await LiveStore.run { store in
            let token = try await store.signUp("hana")
            let directory = try TemporaryDirectory("handoff-first-hour")
            defer { directory.remove() }
            try Self.configure(directory)
            let wpa = try SimulatedWPASupplicant(directory: directory.path)
            defer { wpa.stop() }
            wpa.associate(ssid: "HomeNet")
            let socket = directory.path + "/control.sock"
            var daemon = try DaemonSyncTests.start(directory, [], log: "first.log")
            defer { if daemon.isRunning { daemon.terminate() } }
            let client = ControlClient(socketPath: socket, timeoutSeconds: 10)
            _ = try await DaemonSyncTests.until("the pack on HomeNet") {
                try Self.syncStatus(client).network.wifi == "HomeNet" ? true : nil
            }

            // Before: doctor says runs will not upload by themselves, and how to fix it.
            let doctor = try await cli(["doctor", "--json", "--socket", socket])
            let checks = try ControlJSON.decode(DoctorReport.self, from: doctor.stdout).checks
            let home = try #require(checks.first { $0.check == "network.home" })
            #expect(home.status == .problem && home.summary.contains("will not upload by themselves"))
            #expect(home.action?.contains("`handoff sync home`") == true, "\(home)")

            // On a terminal the question comes after the code is entered; Enter means yes.
            let interactive = try await link(
                ["--socket", socket], terminal: true, store: store, token: token, client: client)
            try await interactive.waitFor("[Y/n]")
            #expect(interactive.output.contains("Make \"HomeNet\", the Wi-Fi the pack is on now, a home network?"))
            interactive.type("\n")
            let linked = await interactive.finish()
            #expect(linked.status == 0, "\(linked.output)")
            #expect(linked.output.contains("\"HomeNet\" is a home network"), "\(linked.output)")
            var status = try Self.syncStatus(client)
            #expect(
                status.network.uploadsByItself && status.network.home && status.network.homeNetworks == ["HomeNet"]
                    && status.network.advice == nil)

            // Kept across a restart.
            daemon.terminate()
            daemon.waitUntilExit()
            daemon = try DaemonSyncTests.start(directory, [], log: "second.log")
            status = try await DaemonSyncTests.until("the restarted pack") { try Self.syncStatus(client) }
            #expect(status.network.homeNetworks == ["HomeNet"] && status.network.uploadsByItself)

            // Removed: sync status says what that means and what to do.
            let removed = try await cli(["sync", "home", "--remove", "HomeNet", "--socket", socket])
            #expect(removed.status == 0, "\(removed.stderr)")
            let text = try await cli(["sync", "status", "--socket", socket]).stdout
            #expect(text.contains("off: no home Wi-Fi is set"), "\(text)")
            #expect(
                text.contains("Runs will not upload by themselves") && text.contains("run `handoff sync home`"),
                "\(text)")

            // A script (standard input not a terminal) is asked nothing and told the same.
            #expect(try await cli(["unlink", "--socket", socket]).status == 0)
            let script = try await link(
                ["--socket", socket], terminal: false, store: store, token: token, client: client)
            let scripted = await script.finish()
            #expect(scripted.status == 0 && !scripted.output.contains("[Y/n]"), "\(scripted.output)")
            #expect(scripted.output.contains("Runs will not upload by themselves"), "\(scripted.output)")
            #expect(try Self.syncStatus(client).network.homeNetworks.isEmpty)

            // --no-home on a terminal: no question either.
            #expect(try await cli(["unlink", "--socket", socket]).status == 0)
            let declined = try await link(
                ["--no-home", "--socket", socket], terminal: true, store: store, token: token, client: client
            ).finish()
            #expect(declined.status == 0 && !declined.output.contains("[Y/n]"), "\(declined.output)")

            // --home-ssid names the network, wherever the pack is.
            #expect(try await cli(["unlink", "--socket", socket]).status == 0)
            let named = try await link(
                ["--home-ssid", "GymWifi", "--socket", socket], terminal: false, store: store, token: token,
                client: client
            ).finish()
            #expect(named.status == 0 && named.output.contains("\"GymWifi\" is a home network"), "\(named.output)")
            status = try Self.syncStatus(client)
            #expect(
                status.network.homeNetworks == ["GymWifi"] && status.network.uploadsByItself && !status.network.home)
        }
    }

    @Test("handoff link with the store unreachable exits non-zero, says what to check, and leaves the pack unlinked")
    func linkUnreachable() async throws {
        let directory = try TemporaryDirectory("handoff-link-down")
        defer { directory.remove() }
        try Self.configure(directory)
        let socket = directory.path + "/control.sock"
        let daemon = try DaemonSyncTests.start(directory, [], log: "handoffd.log")
        defer { daemon.terminate() }
        let client = ControlClient(socketPath: socket, timeoutSeconds: 10)
        _ = try await DaemonSyncTests.until("handoffd") { try Self.syncStatus(client) }
        let port = freeLoopbackPort()
        let result = try await cli(["link", "--store", "http://127.0.0.1:\(port)", "--socket", socket])
        #expect(result.status != 0)
        #expect(
            result.stderr.contains("could not link to http://127.0.0.1:\(port): nothing answers at 127.0.0.1"),
            "\(result.stderr)")
        #expect(
            result.stderr.contains("Check the address given to --store, that the store is running"), "\(result.stderr)")
        #expect(result.stderr.contains("the pack is not linked") && !result.stderr.contains("trying again later"))
        let state = try client.send(.linkStatus, expecting: LinkReport.self).state
        #expect(state == .unlinked)
    }

    @Test(
        "An explicit handoff sync uploads at once away from home; the store down, a 5xx and a refused file each give their own sentence naming the run and a non-zero exit; sync status keeps the last error per run; the baton says a run is being recorded, with whole-number counts"
    )
    func explicitSync() async throws {
        try await LiveStore.run { store in
            let token = try await store.signUp("sami")
            _ = try await store.createGroup(token)
            let directory = try TemporaryDirectory("handoff-explicit-sync")
            defer { directory.remove() }
            try Self.configure(directory)
            let wpa = try SimulatedWPASupplicant(directory: directory.path)
            defer { wpa.stop() }
            wpa.associate(ssid: "CafeWifi")
            let socket = directory.path + "/control.sock"
            var daemon = try DaemonSyncTests.start(
                directory, ["--replay", DaemonSyncTests.demoCapture, "--speed", "max"], log: "replay.log")
            defer { if daemon.isRunning { daemon.terminate() } }
            let client = ControlClient(socketPath: socket, timeoutSeconds: 10)
            _ = try await DaemonSyncTests.until("handoffd") { try Self.syncStatus(client) }
            let linking = try await link(
                ["--no-home", "--socket", socket], terminal: false, store: store, token: token, client: client)
            #expect(await linking.finish().status == 0)
            let away = try await DaemonSyncTests.until("the replayed run to wait away from home") {
                let status = try Self.syncStatus(client)
                return status.outbox.queued.count == 1 && status.state == .away ? status : nil
            }
            #expect(!away.network.home)

            // Away from home, asked: it goes now.
            var sync = try await cli(["sync", "--socket", socket])
            let uploaded1 = "Run 1 uploaded: counted in no group; not in Relay club: it started before you joined."
            #expect(sync.status == 0 && sync.stdout.contains(uploaded1), "\(sync.stdout)\(sync.stderr)")
            #expect(sync.stdout.contains("Note: runs will not upload by themselves"), "\(sync.stdout)")
            #expect(try await store.runs(token).count == 1)
            sync = try await cli(["sync", "--socket", socket])
            #expect(
                sync.status == 0
                    && sync.stdout.contains("Nothing to upload: every finished run is on the store (1 run synced)."),
                "\(sync.stdout)")

            // A second run, then the store three ways broken: the link file is pointed elsewhere.
            let gpx = directory.path + "/morning.gpx"
            try Self.gpx(start: "2026-11-01T07:00:00Z").write(toFile: gpx, atomically: true, encoding: .utf8)
            #expect(try await cli(["import", gpx, "--socket", socket]).status == 0)
            func repoint(_ url: String) async throws {
                daemon.terminate()
                daemon.waitUntilExit()
                let path = directory.path + "/store-link.json"
                var link =
                    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                    as! [String: Any]
                link["store"] = url
                try JSONSerialization.data(withJSONObject: link).write(to: URL(fileURLWithPath: path))
                daemon = try DaemonSyncTests.start(directory, [], log: "restart.log")
                _ = try await DaemonSyncTests.until("handoffd") { try Self.syncStatus(client) }
            }

            let closed = freeLoopbackPort()
            try await repoint("http://127.0.0.1:\(closed)")
            sync = try await cli(["sync", "--socket", socket])
            #expect(sync.status == 1)
            #expect(
                sync.stderr.contains(
                    "run 2 was not uploaded: the store at http://127.0.0.1:\(closed) did not answer (nothing answers at 127.0.0.1"
                ), "\(sync.stderr)")
            #expect(sync.stderr.contains("Check that it is running and that this pack is online"), "\(sync.stderr)")
            var queued = try #require(try Self.syncStatus(client).outbox.queued.first)
            #expect(queued.run == 2 && queued.lastError?.contains("nothing answers at 127.0.0.1") == true)

            let failing = try FixedReplyServer(
                status: 500, body: #"{"error":{"code":"internal","message":"the database is locked"}}"#)
            defer { failing.stop() }
            try await repoint(failing.url)
            sync = try await cli(["sync", "--socket", socket])
            #expect(sync.status == 1)
            #expect(
                sync.stderr.contains("run 2 was not uploaded: the store failed (")
                    && sync.stderr.contains("(500): the database is locked"), "\(sync.stderr)")
            #expect(sync.stderr.contains("tell its operator"), "\(sync.stderr)")

            let refusing = try FixedReplyServer(
                status: 413, body: #"{"error":{"code":"too_large","message":"the file is over 64 MB"}}"#)
            defer { refusing.stop() }
            try await repoint(refusing.url)
            sync = try await cli(["sync", "--socket", socket])
            #expect(sync.status == 1)
            #expect(
                sync.stderr.contains("run 2 was not uploaded: the store refused its file (")
                    && sync.stderr.contains("(413): the file is over 64 MB"), "\(sync.stderr)")
            queued = try #require(try Self.syncStatus(client).outbox.queued.first)
            #expect(queued.held && queued.lastError?.contains("413") == true)
            let table = try await cli(["sync", "status", "--socket", socket]).stdout
            #expect(table.contains("LAST ERROR") && table.contains("(413): the file is over 64 MB"), "\(table)")

            // The store back: the refused run is tried again because a person asked.
            try await repoint(store.url.absoluteString)
            sync = try await cli(["sync", "--socket", socket])
            let uploaded2 = "Run 2 uploaded: counted in no group; not in Relay club: it started before you joined."
            #expect(sync.status == 0 && sync.stdout.contains(uploaded2), "\(sync.stdout)\(sync.stderr)")

            // The baton while a run records: solo with the baton free, then as the relay leg.
            let solo = try await cli(["start", "--solo", "--json", "--socket", socket])
            let soloRun = try #require(try ControlJSON.decode(CommandReport.self, from: solo.stdout).runId)
            var baton = try await cli(["baton", "--socket", socket])
            #expect(
                baton.stdout.contains("The baton is free; run \(soloRun) is being recorded without it (solo)"),
                "\(baton.stdout)")
            #expect(!baton.stdout.contains("`handoff start` takes it"))
            #expect(try await cli(["stop", "--socket", socket]).status == 0)
            let relay = try await cli(["start", "--json", "--socket", socket])
            let relayRun = try #require(try ControlJSON.decode(CommandReport.self, from: relay.stdout).runId)
            baton = try await cli(["baton", "--socket", socket])
            #expect(
                baton.stdout.contains("You hold the baton: run \(relayRun), being recorded, is your relay leg."),
                "\(baton.stdout)")
            let json = try ControlJSON.decode(
                BatonReport.self, from: try await cli(["baton", "--json", "--socket", socket]).stdout)
            #expect(json.legs.first?["runs"] == "0", "\(json.legs)")
            #expect(try await cli(["stop", "--socket", socket]).status == 0)
        }
    }

    /// A short GPX track: 120 points a second apart, running north.
    static func gpx(start: String) -> String {
        let formatter = ISO8601DateFormatter()
        let t0 = formatter.date(from: start)!
        var points = ""
        for i in 0..<120 {
            let time = formatter.string(from: t0.addingTimeInterval(Double(i)))
            points += "<trkpt lat=\"\(48.1 + Double(i) * 0.00003)\" lon=\"11.58\"><time>\(time)</time></trkpt>\n"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            \(points)</trkseg></trk></gpx>
            """
    }
}

/// A program run with its standard input on a pseudo-terminal (as a person types) or on a pipe
/// (as a script), its output read as it comes. The terminal is util-linux's `script`, which runs
/// the program on a pseudo-terminal of its own and relays our pipe to it: no descriptor of the
/// test process is handed to the child or closed by hand.
final class Interactive: @unchecked Sendable {
    let process = Process()
    private final class Text: Sendable { let value = Mutex("") }
    private let text = Text()
    private let input = Pipe()
    private let reader: Thread

    init(_ executable: URL, _ arguments: [String], terminal: Bool) throws {
        if terminal {
            let quoted = ([executable.path] + arguments).map {
                "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
            }
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qfec", quoted.joined(separator: " "), "/dev/null"]
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = input
        let handle = output.fileHandleForReading
        let text = self.text
        reader = Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                text.value.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
        try process.run()
        reader.start()
    }

    var output: String { text.value.withLock { $0 } }

    func type(_ typed: String) {
        input.fileHandleForWriting.write(Data(typed.utf8))
    }

    func waitFor(_ needle: String, timeout: Duration = .seconds(60)) async throws {
        _ = try await DaemonSyncTests.until("\"\(needle)\" in the output", timeout: timeout) {
            self.output.contains(needle) ? true : nil
        }
    }

    /// Waits for the program to end (at most two minutes) and returns its status and output;
    /// it sleeps between looks, so the cooperative pool stays free for the store.
    func finish() async -> (status: Int32, output: String) {
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { process.terminate() }
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        try? input.fileHandleForWriting.close()
        // The output pipe ends when the program's last descriptor on it closes.
        while !reader.isFinished && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        return (process.terminationStatus, output)
    }
}

/// An HTTP server on loopback that answers the health check as a store does and every other
/// request with one fixed status and body: a store that fails (5xx) or refuses (4xx) uploads.
final class FixedReplyServer: @unchecked Sendable {
    private let descriptor: Int32
    let port: UInt16
    private final class Flag: Sendable { let value = Atomic<Bool>(false) }
    private let stopped = Flag()

    var url: String { "http://127.0.0.1:\(port)" }

    init(status: Int, body: String) throws {
        let (fd, port) = try listenOnLoopback()
        descriptor = fd
        self.port = port
        let stopped = self.stopped
        Thread.detachNewThread {
            // The thread owns the descriptor: closed here, once accept fails after `stop()`'s
            // shutdown, so that its number cannot be reused by another socket while it still runs.
            defer { close(fd) }
            while !stopped.value.load(ordering: .acquiring) {
                let client = accept(fd, nil, nil)
                guard client >= 0 else {
                    if errno == EINTR { continue }
                    return
                }
                Self.answer(client, status: status, body: body)
                close(client)
            }
        }
    }

    func stop() {
        stopped.value.store(true, ordering: .releasing)
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Reads the request (head and Content-Length body, answering Expect: 100-continue), then answers.
    private static func answer(_ fd: Int32, status: Int, body: String) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var head = ""
        var continued = false
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { return }
            buffer += chunk[..<n]
            guard let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) else { continue }
            head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
            let lines = head.lowercased().split(separator: "\r\n")
            let length =
                lines.first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
            if !continued, lines.contains(where: { $0.hasPrefix("expect: 100-continue") }) {
                continued = true
                _ = "HTTP/1.1 100 Continue\r\n\r\n".withCString { write(fd, $0, strlen($0)) }
            }
            if buffer.count - end.upperBound >= length { break }
        }
        let health = head.hasPrefix("GET /v1/health")
        let code = health ? 200 : status
        let text = health ? #"{"status":"ok","version":"test"}"# : body
        let reply =
            "HTTP/1.1 \(code) Status\r\nContent-Type: application/json\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n\(text)"
        _ = reply.withCString { write(fd, $0, strlen($0)) }
    }
}
