import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP proxy on loopback between the pack and the store that breaks things on purpose.
///
/// Each connection carries one request (the proxy asks the store to close after it). Per
/// request it picks a fault at random: drop the connection part-way through the upload (the
/// store never sees it whole), delay it, answer 500 or 503 itself, reset the pack's connection
/// after the store has answered (the store committed; the pack never hears), or stall past the
/// pack's time-out after the store answered. `hold` keeps the store's answer from the pack until
/// released, for killing the pack at exactly that moment.
final class FaultProxy: @unchecked Sendable {
    enum Fault: String, CaseIterable, Sendable {
        case pass, dropMidUpload, delay, answer500, answer503, resetAfterCommit, stallAfterCommit
    }

    let upstreamPort: UInt16
    private(set) var port: UInt16 = 0
    private let listener: Int32
    private let faultsOn = Atomic<Bool>(true)
    private let holdResponses = Atomic<Bool>(false)
    private let down = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let random: Mutex<SeededRandom>
    /// What happened to each request, by fault.
    let counts = Mutex<[Fault: Int]>([:])
    /// Requests whose answer is held (`hold`), by their request line.
    let held = Mutex<[String]>([])
    /// Request lines seen, in order.
    let requests = Mutex<[String]>([])
    /// How long the stall fault waits (past the client's time-out).
    var stallSeconds = 2.5
    let weights: [(Fault, Int)]

    init(upstreamPort: UInt16, seed: UInt64, weights: [(Fault, Int)]? = nil) throws {
        self.upstreamPort = upstreamPort
        random = Mutex(SeededRandom(seed: seed))
        self.weights =
            weights ?? [
                (.pass, 40), (.dropMidUpload, 14), (.delay, 12), (.answer500, 8), (.answer503, 8),
                (.resetAfterCommit, 14), (.stallAfterCommit, 4),
            ]
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 128) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "fault-proxy"
        thread.start()
    }

    deinit { stop() }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func setFaults(_ on: Bool) { faultsOn.store(on, ordering: .releasing) }
    func setHold(_ on: Bool) { holdResponses.store(on, ordering: .releasing) }
    /// Down, the store is unreachable: every connection is closed as it comes, unanswered.
    func setDown(_ on: Bool) { down.store(on, ordering: .releasing) }
    func stop() {
        if !stopped.exchange(true, ordering: .acquiringAndReleasing) { shutdown(listener, Int32(SHUT_RDWR)) }
    }
    func count(_ fault: Fault) -> Int { counts.withLock { $0[fault] ?? 0 } }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .acquiring) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            if down.load(ordering: .acquiring) {
                reset(client)
                close(client)
                continue
            }
            Thread.detachNewThread { [self] in handle(client) }
        }
        close(listener)
    }

    private func pick() -> Fault {
        guard faultsOn.load(ordering: .acquiring) else { return .pass }
        let total = weights.reduce(0) { $0 + $1.1 }
        var roll = random.withLock { Int.random(in: 0..<total, using: &$0) }
        for (fault, weight) in weights {
            if roll < weight { return fault }
            roll -= weight
        }
        return .pass
    }

    private func handle(_ client: Int32) {
        defer { close(client) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let (requestHead, body) = readRequest(client) else { return }
        var head = requestHead
        let requestLine = head.split(separator: "\r\n").first.map(String.init) ?? ""
        requests.withLock { $0.append(requestLine) }
        let fault = pick()
        counts.withLock { $0[fault, default: 0] += 1 }
        switch fault {
        case .answer500, .answer503:
            let status = fault == .answer500 ? "500 Internal Server Error" : "503 Service Unavailable"
            let body = #"{"error":{"code":"injected","message":"the fault proxy said no"}}"#
            sendAll(
                client,
                Array(
                    "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
                        .utf8))
            return
        case .delay:
            usleep(UInt32(random.withLock { Int.random(in: 20_000...300_000, using: &$0) }))
        default: break
        }
        // Forward with "Connection: close" so the store ends the exchange, and without Expect.
        head = head.split(separator: "\r\n", omittingEmptySubsequences: false)
            .filter { line in
                let lower = line.lowercased()
                return !lower.hasPrefix("connection:") && !lower.hasPrefix("expect:") && !lower.hasPrefix("keep-alive:")
            }
            .joined(separator: "\r\n")
        while head.hasSuffix("\r\n") { head.removeLast(2) }
        let request = Array((head + "\r\nConnection: close\r\n\r\n").utf8) + body
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(upstream) }
        var address = Self.loopback(port: upstreamPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return reset(client) }
        if fault == .dropMidUpload {
            // Part of the request, then both connections torn down: the store never has it whole.
            let cut = random.withLock { Int.random(in: 1..<max(2, request.count), using: &$0) }
            sendAll(upstream, Array(request[..<cut]))
            usleep(20_000)
            reset(upstream)
            reset(client)
            return
        }
        sendAll(upstream, request)
        let response = readAll(upstream)
        switch fault {
        case .resetAfterCommit:
            // The store has answered, so it committed; the pack sees its connection reset.
            reset(client)
        case .stallAfterCommit:
            usleep(UInt32(stallSeconds * 1_000_000))
            reset(client)
        default:
            if holdResponses.load(ordering: .acquiring) && requestLine.hasPrefix("PUT ") {
                held.withLock { $0.append(requestLine) }
                while holdResponses.load(ordering: .acquiring) && !stopped.load(ordering: .acquiring) {
                    usleep(20_000)
                }
                reset(client)
                return
            }
            sendAll(client, response)
            shutdown(client, Int32(SHUT_WR))
        }
    }

    /// The request head (up to the blank line) and its Content-Length body. Answers
    /// `Expect: 100-continue` itself.
    private func readRequest(_ fd: Int32) -> (String, [UInt8])? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { return nil }
            buffer += chunk[..<n]
            if buffer.count >= 4 {
                for i in 0...(buffer.count - 4) where Array(buffer[i..<(i + 4)]) == separator {
                    headEnd = i
                    break
                }
            }
            if buffer.count > 1 << 16, headEnd == nil { return nil }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        var body = Array(buffer[(headEnd! + 4)...])
        var length = 0
        for line in head.split(separator: "\r\n") {
            let lower = line.lowercased()
            if lower.hasPrefix("content-length:") {
                length = Int(lower.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
            }
            if lower.hasPrefix("expect:"), lower.contains("100-continue") {
                sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            }
        }
        while body.count < length {
            let n = recv(fd, &chunk, min(chunk.count, length - body.count), 0)
            guard n > 0 else { return nil }
            body += chunk[..<n]
        }
        return (head, body)
    }

    private func readAll(_ fd: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            result += chunk[..<n]
        }
        return result
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Makes the coming close(2) an RST (SO_LINGER 0): the peer sees "connection reset", not a
    /// clean end.
    private func reset(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }
}
