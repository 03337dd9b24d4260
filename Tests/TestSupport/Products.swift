import Foundation

/// The package's built executables, found beside the test bundle (`.build/<triple>/debug/`), or
/// in `HANDOFF_BIN_DIR`.
public enum Products {
    public static var directory: URL {
        if let dir = ProcessInfo.processInfo.environment["HANDOFF_BIN_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir)
        }
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        // Inside an .xctest bundle on some platforms: walk up to the build directory.
        while dir.path.contains(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir
    }

    public static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }
}

/// A finished child process.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs an executable to completion, with its output captured.
///
/// Spawned with posix_spawn, not Foundation's `Process`: on Linux, `Process.run()` lists
/// /proc/self/fd to close every inherited descriptor, and with the store suites' 1,600 open
/// descriptors it crashed in memmove (twice on 2026-11-28, in a store pass and in CI). Here the
/// child closes them itself (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34), and the
/// pipes are close-on-exec as well.
public func runProcess(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, stdin: String? = nil,
    stdinBytes: Data? = nil, timeout: TimeInterval = 120
) throws -> ProcessResult {
    func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw SpawnError(what: "pipe", errno: errno) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }
    // A child that exits without reading all of its stdin must not end this process.
    _ = ignoreBrokenPipes
    let input = try makePipe()
    let output = try makePipe()
    let errors = try makePipe()
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, input.read, 0)
    posix_spawn_file_actions_adddup2(&actions, output.write, 1)
    posix_spawn_file_actions_adddup2(&actions, errors.write, 2)
    _ = closeFrom?(&actions, 3)
    let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
    let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for p in argv { free(p) }
        for p in env { free(p) }
    }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, env)
    for fd in [input.read, output.write, errors.write] { close(fd) }
    guard spawned == 0 else {
        for fd in [input.write, output.read, errors.read] { close(fd) }
        throw SpawnError(what: "posix_spawn \(executable.path)", errno: spawned)
    }
    // Feed stdin and read both pipes concurrently, so a chatty child cannot block on a full pipe.
    let group = DispatchGroup()
    let bytes = (stdin.map { Data($0.utf8) } ?? Data()) + (stdinBytes ?? Data())
    DispatchQueue.global().async {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(input.write, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                offset += n
            }
        }
        close(input.write)
    }
    nonisolated(unsafe) var outData = Data()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async {
        outData = drain(output.read)
        group.leave()
    }
    group.enter()
    DispatchQueue.global().async {
        errData = drain(errors.read)
        group.leave()
    }
    if group.wait(timeout: .now() + timeout) == .timedOut {
        kill(pid, SIGTERM)
        group.wait()
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // As Foundation's terminationStatus: the exit code, or the signal that ended it.
    let code = status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    return ProcessResult(
        status: code, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self)
    )
}

/// `runProcess` from async code: the wait happens on a thread of its own, never on one of the
/// cooperative pool's. That pool has one thread per core (two on CI): a test that waited on it
/// for a child (`handoff sync`, `handoff delete`: each waits for the in-process store) left the
/// store's own request handlers no thread to answer on, and the child timed out, in a pass where
/// several such tests ran at once.
public func runProcessAsync(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, stdin: String? = nil,
    stdinBytes: Data? = nil, timeout: TimeInterval = 120
) async throws -> ProcessResult {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(
                with: Result {
                    try runProcess(
                        executable, arguments, environment: environment, stdin: stdin, stdinBytes: stdinBytes,
                        timeout: timeout)
                })
        }
    }
}

/// A system call that failed while starting a child.
public struct SpawnError: Error, CustomStringConvertible {
    public var what: String
    public var errno: Int32
    public var description: String { "\(what) failed: \(String(cString: strerror(errno)))" }
}

/// Everything a descriptor gives until its end, then closed.
private func drain(_ fd: Int32) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        data.append(contentsOf: buffer[0..<n])
    }
    close(fd)
    return data
}

private let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

/// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later), which Swift's Glibc module
/// does not declare; nil on an older libc (the pipes are close-on-exec anyway).
private let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
    else { return nil }
    return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()

/// Closes, in a child spawned with `actions`, every descriptor from 3 up: a test process holds
/// sockets (PostgreSQL connections among them) that are not close-on-exec, and a child that
/// inherited them would keep them open after the test closed its own (a sink that outlives its
/// test held 78 of PostgreSQL's connection slots so).
public func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    _ = closeFrom?(&actions, 3)
}

/// A free TCP (or UDP) port on the loopback interface (bound, read and released: good enough for tests
/// that start a server on it right away).
public func freeLoopbackPort(udp: Bool = false) -> UInt16 {
    let fd = socket(AF_INET, Int32((udp ? SOCK_DGRAM : SOCK_STREAM).rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return UInt16(bigEndian: address.sin_port)
}

/// A TCP socket listening on 127.0.0.1 at a port the kernel picks (with SO_REUSEADDR): the
/// descriptor, which the caller closes, and the port.
public func listenOnLoopback(backlog: Int32 = 16) throws -> (fd: Int32, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound, listen(fd, backlog) == 0 else {
        let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EADDRINUSE)
        close(fd)
        throw error
    }
    return (fd, UInt16(bigEndian: address.sin_port))
}

/// The first `name` on `PATH`: the Python that `scripts/setup --test` installed the oracles' packages
/// into may be a pyenv's or a virtualenv's, not Debian's.
public func programOnPath(_ name: String) -> URL? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
        let url = URL(fileURLWithPath: String(dir)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    return nil
}

/// A program from Debian's packages, when it is installed (`scripts/setup --test` installs them).
public func systemProgram(_ name: String) -> URL? {
    for dir in ["/usr/sbin", "/usr/bin", "/sbin", "/bin"] {
        let url = URL(fileURLWithPath: dir).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    return nil
}

/// Programs from Debian's packages that tests run for real (gpsd, gpsfake).
///
/// Where `HANDOFF_REQUIRE_SYSTEM_PROGRAMS` is set (CI sets it), a test that needs a missing program
/// runs and fails with the package to install; elsewhere it is skipped.
public enum SystemPrograms {
    public static let environmentVariable = "HANDOFF_REQUIRE_SYSTEM_PROGRAMS"

    public static var required: Bool {
        guard let value = ProcessInfo.processInfo.environment[environmentVariable] else { return false }
        return !value.isEmpty && value != "0"
    }

    /// Whether a test that needs `names` should run.
    public static func runnable(_ names: String...) -> Bool {
        required || names.allSatisfy { systemProgram($0) != nil }
    }

    public struct Missing: Error, CustomStringConvertible {
        public let name: String
        public let package: String
        public var description: String {
            "\(name) is not installed: scripts/setup --test installs it (apt-get install \(package))"
        }
    }

    /// The program's path, or an error naming the Debian package to install.
    public static func require(_ name: String, package: String) throws -> URL {
        guard let url = systemProgram(name) else { throw Missing(name: name, package: package) }
        return url
    }
}

/// A background child process, killed when the test is done with it.
public final class BackgroundProcess: @unchecked Sendable {
    public let process = Process()
    /// Where its output goes: a file, so that a chatty child never blocks on a full pipe.
    public let outputPath: String

    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        outputPath = NSTemporaryDirectory() + "handoff-test-\(UUID().uuidString).out"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? output.close()
    }

    public var isRunning: Bool { process.isRunning }

    /// Stops it: SIGTERM (gpsfake then stops its gpsd), then SIGKILL after `grace` seconds.
    public func stop(grace: TimeInterval = 10) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    public func kill9() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// What it printed so far.
    public var printed: String {
        (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: outputPath)
    }
}

/// Kills (SIGKILL) every process whose command line contains all of `words`: for children that
/// a killed parent would leave behind (gpsfake's gpsd, which then runs as user `gpsd`).
public func killProcesses(commandLineContaining words: [String]) {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return }
    for entry in entries {
        guard let pid = Int32(entry), pid != getpid(),
            let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
        else { continue }
        let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        if words.allSatisfy({ arguments.contains($0) }) { kill(pid, SIGKILL) }
    }
}
