import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `scripts/demo` as a person runs it: the real script, the real `handoff demo`, `handoffd` and
/// `handoff-store`. The built binaries are given with HANDOFF_DEMO_BIN (a test inside `swift
/// test` cannot build the same .build directory); the setup-and-build path runs with a stand-in
/// for `swift` that makes the noise of a build and names the real binaries.
@Suite(
    "scripts/demo: a few lines of its own, the store kept to sign in to, nothing left behind (real time: the demo's processes)"
)
struct DemoScriptTests {
    static let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/demo").path

    @Test(
        "At the end the store keeps running with the printed account, which signs in; Enter stops it and nothing is left"
    )
    func waitsWithAnAccount() async throws {
        let demo = try DemoRun(["--speed", "max", "--wait"])
        defer { demo.abandon() }
        let line = try demo.readLine(containing: "press Enter to stop")
        // "… open http://127.0.0.1:PORT — user demo, password abcd-efgh-jkmn; press Enter to stop."
        let address = try #require(line.firstMatch(of: /open (http:\/\/127\.0\.0\.1:(\d+))/))
        let password = try #require(line.firstMatch(of: /user demo, password ([a-z0-9-]+);/)).1
        let port = try #require(UInt16(address.2))
        let signIn = try await Self.http("POST", port, "/v1/sessions", #"{"login":"demo","password":"\#(password)"}"#)
        #expect(signIn.status == 200 && signIn.body.contains("\"token\""), "the printed account signs in: \(signIn)")
        let page = try await Self.http("GET", port, "/login")
        #expect(page.status == 200 && page.body.contains("action=\"/login\""))
        try demo.write("\n")
        let status = try demo.waitForExit()
        #expect(status == .exited(0), "\(demo.errors)")
        #expect(demo.remainingOutput().contains("The store has stopped"))
        try demo.expectNothingLeft()
    }

    @Test(
        "Ctrl-C (SIGINT to the process group, as a terminal sends it) while the store waits leaves no process and no temporary directory"
    )
    func controlC() throws {
        let demo = try DemoRun(["--speed", "max", "--wait"])
        defer { demo.abandon() }
        _ = try demo.readLine(containing: "press Enter to stop")
        try demo.expectRunning(["handoff-store"])
        #expect(kill(-demo.pid, SIGINT) == 0)
        let status = try demo.waitForExit()
        #expect(status == .exited(130), "\(demo.errors)")
        try demo.expectNothingLeft()
    }

    @Test("SIGTERM to the script while handoffd records leaves no process and no temporary directory")
    func terminate() throws {
        // At 10x the 29-minute run takes three minutes: the signal lands mid-recording.
        let demo = try DemoRun(["--speed", "10", "--wait"])
        defer { demo.abandon() }
        _ = try demo.readLine(containing: "Linking the pack")
        try demo.expectRunning(["handoffd", "handoff-store"])
        #expect(kill(demo.pid, SIGTERM) == 0)
        let status = try demo.waitForExit()
        #expect(status == .exited(143), "\(demo.errors)")
        try demo.expectNothingLeft()
    }

    @Test("A closed standard output (the reader goes away: the next write gets EPIPE) ends the demo with nothing left")
    func closedPipe() throws {
        let demo = try DemoRun(["--speed", "10", "--wait"])
        defer { demo.abandon() }
        // The script's own line; the demo's next line ("Replaying …") then meets a closed pipe.
        _ = try demo.readLine(containing: "demo: using the built handoff")
        demo.closeOutput()
        let status = try demo.waitForExit()
        #expect(status == .exited(1), "\(demo.errors)")
        #expect(demo.errors.contains("standard output was closed"))
        try demo.expectNothingLeft()
    }

    @Test(
        "Setting up and building prints a few lines and the log's path, under 40 lines before the run starts (a stand-in swift makes the build's noise)"
    )
    func quietSetup() throws {
        let scratch = try TemporaryDirectory("handoff-demo-setup")
        defer { scratch.remove() }
        let swift = try Self.standInSwift(in: scratch, buildStatus: 0)
        let log = scratch.file("setup.log").path
        let demo = try DemoRun(
            ["--speed", "max", "--no-wait"], binaries: nil,
            environment: ["HANDOFF_DEMO_SWIFT": swift, "HANDOFF_DEMO_LOG": log])
        defer { demo.abandon() }
        var before: [String] = []
        while true {
            let line = try demo.readLine(containing: nil, deadline: .seconds(300))
            before.append(line)
            if line.hasPrefix("Replaying ") { break }
        }
        #expect(before.count < 40, "\(before.joined(separator: "\n"))")
        #expect(before.contains { $0.contains(log) }, "the log's path is printed")
        #expect(!before.contains { $0.contains("Compiling noise") }, "the build's output is in the log only")
        let status = try demo.waitForExit(deadline: .seconds(300))
        #expect(status == .exited(0), "\(demo.errors)")
        let logged = try String(contentsOfFile: log, encoding: .utf8)
        #expect(logged.contains("Compiling noise 300 of 300"))
        try demo.expectNothingLeft()
    }

    @Test("A failed build prints the log's last lines and exits with its status (a stand-in swift fails)")
    func failedBuild() throws {
        let scratch = try TemporaryDirectory("handoff-demo-setup")
        defer { scratch.remove() }
        let swift = try Self.standInSwift(in: scratch, buildStatus: 3)
        let log = scratch.file("setup.log").path
        let demo = try DemoRun(
            ["--no-wait"], binaries: nil, environment: ["HANDOFF_DEMO_SWIFT": swift, "HANDOFF_DEMO_LOG": log])
        defer { demo.abandon() }
        let status = try demo.waitForExit(deadline: .seconds(300))
        #expect(status == .exited(3))
        let output = demo.remainingOutput()
        #expect(output.split(separator: "\n").count < 10, "\(output)")
        #expect(demo.errors.contains("the end of \(log)"))
        #expect(demo.errors.contains("error: noise 300 failed"), "the log's tail")
        #expect(!demo.errors.contains("Compiling noise 1 of 300\n"), "only the tail")
    }

    @Test("SIGTERM while it builds stops the build and what the build started (a stand-in swift that never finishes)")
    func terminateWhileBuilding() throws {
        let scratch = try TemporaryDirectory("handoff-demo-setup")
        defer { scratch.remove() }
        // The stand-in's build runs `tail -f MARKER` under its shell: a grandchild of the script.
        let marker = scratch.file("building").path
        _ = FileManager.default.createFile(atPath: marker, contents: nil)
        let swift = scratch.file("swift").path
        try """
        #!/bin/sh
        case "$*" in
            *--show-bin-path*) echo '\(Products.directory.path)'; exit 0 ;;
        esac
        echo "Compiling forever"
        tail -f '\(marker)'
        """.write(toFile: swift + ".txt", atomically: true, encoding: .utf8)
        try Self.install(swift + ".txt", as: swift)
        let demo = try DemoRun(
            ["--no-wait"], binaries: nil,
            environment: ["HANDOFF_DEMO_SWIFT": swift, "HANDOFF_DEMO_LOG": scratch.file("setup.log").path])
        defer {
            demo.abandon()
            killProcesses(commandLineContaining: [marker])
        }
        _ = try demo.readLine(containing: "demo: building handoffd")
        try DemoRun.waitUntil("the stand-in build runs") { !DemoRun.processes(naming: marker).isEmpty }
        #expect(kill(demo.pid, SIGTERM) == 0)
        #expect(try demo.waitForExit() == .exited(143), "\(demo.errors)")
        // The script waited for the build's shell; its tail had SIGTERM too and goes at once.
        try DemoRun.waitUntil("the build's processes are gone") { DemoRun.processes(naming: scratch.path).isEmpty }
    }

    @Test(
        "scripts/setup installs what building and running needs; test tools only with --test, which scripts/test and CI use"
    )
    func setupSplit() throws {
        let setup = Fixtures.repositoryRoot.appendingPathComponent("scripts/setup")
        let plain = try runProcess(setup, ["--list"])
        #expect(plain.status == 0)
        #expect(plain.stdout == "apt libsqlite3-dev\napt libbluetooth-dev\napt libcurl4\napt libcurl4-openssl-dev\n")
        let test = try runProcess(setup, ["--list", "--test"])
        for tool in ["qemu-system-x86", "chromium", "debootstrap", "shellcheck", "postgresql", "gpsd"] {
            #expect(test.stdout.contains("apt \(tool)\n"), "\(tool) is a test tool")
        }
        for package in ["bumble", "garmin-fit-sdk", "fitdecode", "gpxpy", "schemathesis"] {
            #expect(test.stdout.contains("pip \(package)=="), "\(package) is a test tool")
        }
        let root = Fixtures.repositoryRoot
        let demo = try String(contentsOf: root.appendingPathComponent("scripts/demo"), encoding: .utf8)
        #expect(demo.contains("scripts/setup\n") && !demo.contains("setup --test"))
        let tests = try String(contentsOf: root.appendingPathComponent("scripts/test"), encoding: .utf8)
        #expect(tests.contains("scripts/setup --test\n"))
        let ci = try String(contentsOf: root.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(ci.contains("scripts/setup --test\n") && ci.contains("scripts/demo --speed max --no-wait\n"))
    }

    static func http(
        _ method: String, _ port: UInt16, _ path: String, _ json: String? = nil
    ) async throws -> (
        status: Int, body: String
    ) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let json {
            request.httpBody = Data(json.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// A stand-in for `swift`: `build --show-bin-path` names the real binaries; `build` prints
    /// 300 lines of noise and exits `buildStatus`.
    static func standInSwift(in scratch: TemporaryDirectory, buildStatus: Int) throws -> String {
        let path = scratch.file("swift").path
        try """
        #!/bin/sh
        case "$*" in
            *--show-bin-path*) echo '\(Products.directory.path)'; exit 0 ;;
        esac
        for i in $(seq 1 300); do echo "Compiling noise $i of 300"; done
        [ \(buildStatus) -eq 0 ] || { echo "error: noise 300 failed" >&2; exit \(buildStatus); }
        """.write(toFile: path + ".txt", atomically: true, encoding: .utf8)
        try install(path + ".txt", as: path)
        return path
    }

    /// Copies a script into place as an executable, by a child process: a file this process
    /// opened for writing could be inherited by a child another test forks meanwhile, and its
    /// exec would then fail with ETXTBSY ("Text file busy").
    static func install(_ source: String, as target: String) throws {
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/install"), ["-m", "755", source, target])
        guard result.status == 0 else { throw DemoRun.Failure(description: "install failed: \(result.stderr)") }
    }
}

/// One run of scripts/demo in a process group of its own (as a terminal's foreground job), with
/// its temporary directory under a TMPDIR of the test's: standard input and output are pipes.
final class DemoRun: @unchecked Sendable {
    let pid: pid_t
    let tmp: TemporaryDirectory
    let exportDir: TemporaryDirectory
    private var output: Int32
    private var input: Int32
    private var buffer = [UInt8]()
    private let errorsPath: String
    private var exited: WaitStatus?

    enum WaitStatus: Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(_ arguments: [String], binaries: URL? = Products.directory, environment extra: [String: String] = [:]) throws {
        tmp = try TemporaryDirectory("handoff-demo-test")
        exportDir = try TemporaryDirectory("handoff-demo-export")
        errorsPath = exportDir.file("stderr").path
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = tmp.path
        environment["HANDOFF_DEMO_CAPTURE"] = demoCapturePath
        environment["HANDOFF_DEMO_BIN"] = binaries?.path
        environment.merge(extra) { $1 }
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw Failure(description: "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errorsPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        for fd in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] =
            ([DemoScriptTests.script] + arguments + ["--export-dir", exportDir.path]).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, DemoScriptTests.script, &actions, &attributes, argv, envp)
        close(toChild[0])
        close(fromChild[1])
        guard result == 0 else {
            throw Failure(description: "spawning scripts/demo: \(String(cString: strerror(result)))")
        }
        self.pid = pid
        output = fromChild[0]
        input = toChild[1]
        // The test writes Enter into a pipe the demo may have stopped reading: EPIPE, not a signal.
        signal(SIGPIPE, SIG_IGN)
    }

    /// What the demo wrote on standard error so far.
    var errors: String { (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? "" }

    /// The next line of standard output (containing `text`, when given; earlier lines are
    /// skipped), waiting up to `deadline` for it.
    func readLine(containing text: String?, deadline: Duration = .seconds(240)) throws -> String {
        let end = ContinuousClock.now + deadline
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if text.map({ line.contains($0) }) ?? true { return line }
                continue
            }
            let left = end - ContinuousClock.now
            guard left > .zero, output >= 0 else {
                throw Failure(
                    description: "no line containing \(text ?? "anything") in time; stderr: \(errors.suffix(2000))")
            }
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.components.seconds * 1000 + 1, 1000))
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(output, &chunk, chunk.count)
            if count <= 0 {
                throw Failure(
                    description:
                        "standard output ended before a line containing \(text ?? "anything"); stderr: \(errors.suffix(2000))"
                )
            }
            buffer += chunk[..<count]
        }
    }

    /// The rest of standard output, to its end (call after the demo exited).
    func remainingOutput() -> String {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while output >= 0 {
            let count = read(output, &chunk, chunk.count)
            if count <= 0 { break }
            buffer += chunk[..<count]
        }
        return String(decoding: buffer, as: UTF8.self)
    }

    func write(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.write(input, bytes, bytes.count) == bytes.count else {
            throw Failure(
                description: "writing to the demo's standard input failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Closes the read end of standard output: the demo's next write fails with EPIPE.
    func closeOutput() {
        close(output)
        output = -1
    }

    /// Waits for the script (by then `handoff demo`) to exit.
    func waitForExit(deadline: Duration = .seconds(120)) throws -> WaitStatus {
        if let exited { return exited }
        let end = ContinuousClock.now + deadline
        var status: Int32 = 0
        while ContinuousClock.now < end {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signal = status & 0x7f
                let value: WaitStatus = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
                exited = value
                return value
            }
            usleep(20_000)
        }
        throw Failure(description: "scripts/demo did not exit within \(deadline); stderr: \(errors.suffix(2000))")
    }

    /// The processes of this demo: in its process group, or naming its temporary directory.
    func processes() -> [(pid: pid_t, commandLine: String)] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry in
            guard let pid = pid_t(entry), pid != getpid(),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { return nil }
            let commandLine = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.joined(
                separator: " ")
            // A zombie the demo left unreaped still counts: it has a group and a state.
            guard getpgid(pid) == self.pid || commandLine.contains(tmp.path) else { return nil }
            return (pid, commandLine)
        }
    }

    /// Processes whose command line names `text`.
    static func processes(naming text: String) -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry in
            guard pid_t(entry) != nil, let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else {
                return nil
            }
            let commandLine = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.joined(
                separator: " ")
            return commandLine.contains(text) ? commandLine : nil
        }
    }

    /// Polls `condition` until it holds, failing after `deadline`.
    static func waitUntil(_ what: String, deadline: Duration = .seconds(60), _ condition: () -> Bool) throws {
        let end = ContinuousClock.now + deadline
        while !condition() {
            guard ContinuousClock.now < end else { throw Failure(description: "not in time: \(what)") }
            usleep(20_000)
        }
    }

    /// The named children run (they are in the demo's group, their arguments name its directory).
    func expectRunning(_ names: [String]) throws {
        let running = processes().map(\.commandLine)
        for name in names {
            #expect(running.contains { $0.contains("/\(name) ") }, "\(name) runs: \(running)")
        }
    }

    /// After the exit: no process of the demo remains and its temporary directory is gone.
    func expectNothingLeft() throws {
        // The demo waited for its children before it exited: nothing may be left, at once.
        let left = processes()
        #expect(left.isEmpty, "left behind: \(left.map(\.commandLine))")
        let inTmp = (try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? []
        #expect(inTmp.isEmpty, "left in TMPDIR: \(inTmp)")
    }

    /// Whatever happened, nothing of this run outlives the test.
    func abandon() {
        if exited == nil {
            kill(-pid, SIGKILL)
            _ = try? waitForExit(deadline: .seconds(10))
        }
        for (pid, _) in processes() { kill(pid, SIGKILL) }
        if output >= 0 { close(output) }
        close(input)
        tmp.remove()
        exportDir.remove()
    }
}
