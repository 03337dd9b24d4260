import Foundation
import PackControl
import PackSystem
import TestSupport
import Testing

@Suite("handoffd refuses bad input clearly and loses nothing", .serialized)
struct BadInputTests {
    @Test("A configuration with an unknown key stops handoffd with the key and file named")
    func unknownConfigurationKey() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let config = dir.path + "/handoff.toml"
        try "[recording]\nauto_lap = 1000\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try runProcess(
            Products.url("handoffd"),
            ["--config", config, "--database", dir.path + "/db.sqlite", "--socket", dir.path + "/s.sock"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("unknown key recording.auto_lap"))
        #expect(result.stderr.contains(config))
    }

    @Test("A file that is not a capture is refused with the reason")
    func notACapture() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let bogus = dir.path + "/bogus.jsonl"
        try "$GPRMC,not,a,capture\n".write(toFile: bogus, atomically: true, encoding: .utf8)
        let daemon = try Daemon(in: dir, arguments: ["--replay", bogus, "--exit-after-replay"])
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus != 0)
        #expect(daemon.log.contains("is not a Handoff capture"))
    }

    @Test("Garbage lines inside a capture are skipped and reported; the run is still recorded")
    func garbageLines() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var lines = try String(contentsOfFile: demoCapturePath, encoding: .utf8).split(separator: "\n").map(String.init)
        lines.insert("{not json", at: 50)
        lines.insert(#"{"mono_ns":"x","kind":"command","command":"start"}"#, at: 80)
        lines.insert(#"{"mono_ns":1,"sensor":"hr0","kind":"hrm","hex":"zz"}"#, at: 120)
        let path = dir.path + "/garbled.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let daemon = try Daemon(in: dir, arguments: ["--replay", path, "--speed", "max", "--exit-after-replay"])
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 0)
        #expect(daemon.log.contains("3 unreadable lines"))
        #expect(daemon.log.contains("line 51: not JSON"))
        let distance = try await daemon.openDatabase().read {
            try Double.fetchOne($0, sql: "SELECT distance_m FROM session")
        }
        #expect((distance ?? 0) > 5000)
    }

    @Test("Requests that are not the control API get an error reply, not a crash")
    func badRequests() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let daemon = try Daemon(in: dir, arguments: [])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        for (line, code) in [
            ("hello", "bad_request"), (#"{"command":"fly"}"#, "unknown_command"),
            (#"{"command":"show"}"#, "bad_request"),
        ] {
            let socket = try UnixSocket.connect(to: daemon.socket)
            try socket.writeLine(line)
            let reply = try #require(try socket.readLine())
            #expect(reply.contains(#""code":"\#(code)""#), "\(line) → \(reply)")
            socket.close()
        }
        // Still serving.
        #expect(try daemon.client.send(.status, expecting: StatusReport.self).state == .idle)
    }

    @Test("A second handoffd on the same socket refuses to start instead of stealing it")
    func secondDaemon() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let first = try Daemon(in: dir, arguments: [])
        defer { first.terminate() }
        try await first.waitUntilReady()
        let second = try Daemon(in: dir, arguments: [], logName: "second.log")
        second.process.waitUntilExit()
        #expect(second.process.terminationStatus != 0)
        #expect(second.log.contains("Another handoffd is already listening"))
        #expect(try first.client.send(.status, expecting: StatusReport.self).state == .idle)
    }
}
