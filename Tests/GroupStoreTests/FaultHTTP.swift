import Foundation
import HandoffAPI
import HandoffModel
import Synchronization
import TestSupport

/// One HTTP/1.1 exchange with a store on loopback (a connection each, `Connection: close`), timed,
/// for the fault tests that run `handoff-store` as a process. Blocking socket calls run on a
/// dispatch queue, off the cooperative pool.
struct FaultHTTP: Sendable {
    let port: UInt16

    struct Answer: Sendable {
        let status: Int
        /// Header names lower-cased.
        let headers: [String: String]
        let body: Data
        let seconds: Double

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func send(
        _ method: String, _ path: String, token: String? = nil, cookie: String? = nil, body: [UInt8]? = nil,
        contentType: String = "application/json"
    ) async throws -> Answer {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if let cookie { head += "Cookie: \(cookie)\r\n" }
        if let body { head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + (body ?? [])
        let port = port
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try Self.exchange(port, request) })
            }
        }
    }

    /// Encodes `value` as the API's JSON.
    func send(
        _ method: String, _ path: String, token: String? = nil, json value: some Encodable
    ) async throws
        -> Answer
    {
        try await send(method, path, token: token, body: Array(try JSONEncoder().encode(value)))
    }

    func upload(_ token: String, uuid: String, file: [UInt8]) async throws -> Answer {
        let (body, contentType) = FaultCalls.multipart(file)
        return try await send("PUT", "/v1/runs/\(uuid)", token: token, body: body, contentType: contentType)
    }

    private static func exchange(_ port: UInt16, _ request: [UInt8]) throws -> Answer {
        let began = Date()
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)") }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
            guard n > 0 else { throw Failure(description: "write: errno \(errno)") }
            sent += n
        }
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n < 0 { throw Failure(description: "read from 127.0.0.1:\(port): errno \(errno)") }
            if n == 0 { break }
            received.append(contentsOf: chunk[0..<n])
        }
        guard let end = received.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(
                description: "no HTTP header from 127.0.0.1:\(port) after \(Date().timeIntervalSince(began)) s")
        }
        let lines = String(decoding: received[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            let field = line.split(separator: ":", maxSplits: 1)
            if field.count == 2 { headers[field[0].lowercased()] = field[1].trimmingCharacters(in: .whitespaces) }
        }
        var body = Data(received[end.upperBound...])
        if let length = headers["content-length"].flatMap(Int.init) { body = body.prefix(length) }
        return Answer(status: status, headers: headers, body: body, seconds: Date().timeIntervalSince(began))
    }
}

/// What a load of uploads and reads saw: each answer, and the uuids that were not stored.
final class FaultLoad: Sendable {
    struct Seen: Sendable {
        let what: String
        let status: Int
        let retryAfter: String?
        let seconds: Double
        let at: Date
    }

    private let state = Mutex<(seen: [Seen], stored: Set<String>, tried: [String: [UInt8]], stop: Bool, next: Int)>(
        ([], [], [:], false, 0))

    var seen: [Seen] { state.withLock { $0.seen } }
    var stored: Set<String> { state.withLock { $0.stored } }
    /// Every uuid tried, with its file.
    var tried: [String: [UInt8]] { state.withLock { $0.tried } }
    func stop() { state.withLock { $0.stop = true } }
    private var stopped: Bool { state.withLock { $0.stop } }

    /// `uploaders` tasks upload new runs and `readers` read, until `stop()`. A failed exchange
    /// (no answer) is recorded as status 0.
    func run(_ http: FaultHTTP, token: String, group: Int, start: WallInstant, uploaders: Int, readers: Int) async {
        await withTaskGroup(of: Void.self) { tasks in
            for _ in 0..<uploaders {
                tasks.addTask {
                    while !self.stopped {
                        let index = self.state.withLock {
                            $0.next += 1
                            return $0.next
                        }
                        let uuid = UUID().uuidString.lowercased()
                        // Starts within 5 minutes of `start` (the store takes runs up to 10
                        // minutes ahead of its clock); each upload its own uuid.
                        let file = FaultCalls.run(start, index % 300, minutes: 2)
                        self.state.withLock { $0.tried[uuid] = file }
                        let answer = await Self.attempt { try await http.upload(token, uuid: uuid, file: file) }
                        self.record("PUT /v1/runs/\(uuid)", answer)
                        if case .success(let answer) = answer, answer.status == 201 {
                            self.state.withLock { _ = $0.stored.insert(uuid) }
                        }
                        try? await Task.sleep(for: .milliseconds(150))
                    }
                }
            }
            for reader in 0..<readers {
                tasks.addTask {
                    let path = reader % 2 == 0 ? "/v1/groups/\(group)/progress" : "/v1/runs?limit=20"
                    while !self.stopped {
                        self.record(
                            "GET \(path)", await Self.attempt { try await http.send("GET", path, token: token) })
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                }
            }
        }
    }

    static func attempt(_ body: () async throws -> FaultHTTP.Answer) async -> Result<FaultHTTP.Answer, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    private func record(_ what: String, _ result: Result<FaultHTTP.Answer, any Error>) {
        let seen: Seen
        switch result {
        case .success(let answer):
            seen = Seen(
                what: what, status: answer.status, retryAfter: answer.headers["retry-after"], seconds: answer.seconds,
                at: Date())
        case .failure(let error):
            seen = Seen(what: "\(what): \(error)", status: 0, retryAfter: nil, seconds: 99, at: Date())
        }
        state.withLock { $0.seen.append(seen) }
    }
}

/// A child process started with posix_spawn and reaped with waitpid, for the fault tests: in
/// their test process, Foundation's `Process` was seen not to notice a child's exit (a zombie
/// left unreaped, `waitUntilExit` never returning), and these tests time exits.
final class SpawnedProcess: @unchecked Sendable {
    let pid: pid_t
    let outputPath: String
    private var status: Int32?

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        outputPath = NSTemporaryDirectory() + "handoff-fault-\(UUID().uuidString).out"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        closeInheritedDescriptors(&actions)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else { throw FaultHTTP.Failure(description: "cannot start \(executable): errno \(result)") }
        self.pid = pid
    }

    /// Its exit status once it has exited (nil while it runs; a signal's number plus 128).
    var exitStatus: Int32? {
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        let code = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        status = code
        return code
    }

    var isRunning: Bool { exitStatus == nil }

    var printed: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, then SIGKILL after `grace` seconds.
    func stop(grace: Double = 10) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(grace)
        while isRunning, Date() < deadline { usleep(20_000) }
        if isRunning {
            kill(pid, SIGKILL)
            while isRunning { usleep(20_000) }
        }
    }

    deinit {
        stop(grace: 2)
        try? FileManager.default.removeItem(atPath: outputPath)
    }
}
