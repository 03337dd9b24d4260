import Dispatch
import Foundation
import PackSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What `handoff demo` starts and makes, and how it ends: its children (handoffd, handoff-store)
/// and its temporary directory, gone on every way out — the demo's own end, a failure, Ctrl-C
/// (SIGINT), SIGTERM, a closed terminal (SIGHUP) or a closed standard output (EPIPE).
///
/// Children are spawned into the demo's own process group (Foundation's `Process` gives each its
/// own), so that a terminal's Ctrl-C reaches them too even when the demo itself is stuck. A demo
/// killed with SIGKILL cleans nothing; every other way out does.
final class DemoSession: Sendable {
    static let shared = DemoSession()

    private struct State {
        var children: [DemoChild] = []
        var directory: String?
        /// Cleaned up: no more children may start.
        var ended = false
        /// A signal or a closed output is ending the process: every other way out waits for it.
        var exiting = false
    }
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "handoff.demo.signals")

    /// Takes over SIGINT, SIGTERM and SIGHUP (each ends the demo cleanly, exiting 128 + the
    /// signal's number), and ignores SIGPIPE so that a write to a closed standard output fails
    /// with EPIPE, which `say` turns into the same clean end.
    func takeSignals() {
        signal(SIGPIPE, SIG_IGN)
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in
                self.end(status: 128 + number, message: "stopped by \(Self.name(number)); nothing of the demo is left")
            }
            source.resume()
            demoSignalSources.append(source)
        }
    }

    /// Removes `path` (the demo's temporary directory) at the end.
    func removeAtEnd(_ path: String) {
        state.withLock { $0.directory = path }
    }

    /// Starts a child, unless the demo is already ending (then it throws).
    func spawn(_ name: String, executable: String, arguments: [String], logPath: String) throws -> DemoChild {
        try state.withLock { state in
            guard !state.ended else { throw DemoChild.Failure(message: "the demo is ending") }
            let child = try DemoChild(name: name, executable: executable, arguments: arguments, logPath: logPath)
            state.children.append(child)
            return child
        }
    }

    /// Stops every child (SIGTERM, then SIGKILL after ten seconds) and removes the temporary
    /// directory. Idempotent; a second caller waits for the first to finish, and never returns
    /// while a signal is ending the demo (only one thread may call exit).
    func cleanUp() {
        if !perform(exiting: false) { Self.park() }
    }

    /// Cleans up, says why on standard error, and exits.
    func end(status: Int32, message: String) -> Never {
        if !perform(exiting: true) { Self.park() }
        // After a terminal's echoed ^C, on a line of its own.
        Self.write(STDERR_FILENO, (isatty(STDERR_FILENO) == 1 ? "\n" : "") + "handoff: demo \(message)\n")
        exit(status)
    }

    /// The cleanup; false when another thread is already ending the process.
    private func perform(exiting: Bool) -> Bool {
        state.withLock { state in
            guard !state.exiting else { return false }
            state.exiting = exiting
            for child in state.children.reversed() { child.stop() }
            state.children = []
            if let directory = state.directory { try? FileManager.default.removeItem(atPath: directory) }
            state.directory = nil
            state.ended = true
            return true
        }
    }

    /// Waits for the thread that is ending the process.
    private static func park() -> Never {
        while true { sleep(3600) }
    }

    /// A line on standard output; a closed output (EPIPE) ends the demo cleanly, exiting 1.
    func say(_ text: String, newline: Bool = true) {
        guard Self.write(STDOUT_FILENO, newline ? text + "\n" : text) else {
            end(status: 1, message: "stopped: standard output was closed; nothing of the demo is left")
        }
    }

    /// write(2) until all is written; false when it fails (EPIPE with SIGPIPE ignored).
    @discardableResult
    static func write(_ fd: Int32, _ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let (written, _) = retryingEINTR { bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } }
            if written < 0 { return false }
            bytes = bytes.dropFirst(written)
        }
        return true
    }

    /// Waits for a line (Enter) or the end of standard input, on a thread of its own.
    static func waitForEnter() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                var byte: UInt8 = 0
                while true {
                    let (count, _) = retryingEINTR { read(STDIN_FILENO, &byte, 1) }
                    if count == 1, byte != UInt8(ascii: "\n") { continue }
                    break
                }
                done.resume()
            }
        }
    }

    static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    private static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "Ctrl-C (SIGINT)"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP (the terminal closed)"
        default: "signal \(number)"
        }
    }
}

/// The signal sources, kept alive for the process's life; written once, by `takeSignals`, before
/// any child starts.
nonisolated(unsafe) private var demoSignalSources: [any DispatchSourceSignal] = []

/// A child process of the demo, in the demo's process group, its output appended to a log file,
/// standard input from /dev/null, and the default action for the signals the demo takes over.
final class DemoChild: Sendable {
    struct Failure: Error {
        let message: String
    }

    let name: String
    let pid: pid_t
    /// The wait status once reaped.
    private let reaped = Mutex<Int32?>(nil)

    init(name: String, executable: String, arguments: [String], logPath: String) throws {
        self.name = name
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Ignored signals stay ignored across exec: give the child the defaults back, and an
        // empty mask.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw Failure(message: "\(name) could not be started: \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    var isRunning: Bool {
        reaped.withLock { reaped in
            guard reaped == nil else { return false }
            var status: Int32 = 0
            let (result, _) = retryingEINTR { waitpid(pid, &status, WNOHANG) }
            if result == pid || result < 0 {
                reaped = result == pid ? status : -1
                return false
            }
            return true
        }
    }

    /// Sends SIGTERM (handoffd finishes its run, the store closes its database), waits up to
    /// `grace`, then SIGKILL, and reaps it.
    func stop(grace: Duration = .seconds(10)) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        guard isRunning else { return }
        kill(pid, SIGKILL)
        reaped.withLock { reaped in
            var status: Int32 = 0
            _ = retryingEINTR { waitpid(pid, &status, 0) }
            reaped = status
        }
    }
}
