import Foundation

/// A TCP connection to the store on loopback that sends exactly the bytes a test gives, for what
/// an HTTP client would never send: half a request line, a forged `Host`. Blocking calls run on
/// a dispatch queue, off the cooperative pool.
final class RawSocket: @unchecked Sendable {
    let fd: Int32

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
            guard n > 0 else { throw Failure(description: "write: errno \(errno)") }
            sent += n
        }
    }

    /// Reads until the server closes the connection or `seconds` pass; returns what was read and
    /// whether it was closed.
    func readUntilClosed(seconds: Double) async -> (bytes: [UInt8], closed: Bool) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var received: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65536)
                let deadline = Date().addingTimeInterval(seconds)
                while true {
                    let left = deadline.timeIntervalSinceNow
                    guard left > 0 else { return continuation.resume(returning: (received, false)) }
                    var wait = pollfd(fd: self.fd, events: Int16(POLLIN), revents: 0)
                    let ready = poll(&wait, 1, Int32(left * 1000) + 1)
                    if ready < 0 && errno == EINTR { continue }
                    guard ready > 0 else { continue }
                    let n = read(self.fd, &chunk, chunk.count)
                    if n <= 0 { return continuation.resume(returning: (received, true)) }
                    received += chunk[0..<n]
                }
            }
        }
    }

    /// Reads until what came holds `text` (or the connection closes, or `seconds` pass); returns
    /// what came up to and including it, leaving nothing unread but what followed in the same read.
    func readText(until text: String, seconds: Double) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var received: [UInt8] = []
                var byte: UInt8 = 0
                let deadline = Date().addingTimeInterval(seconds)
                let wanted = Array(text.utf8)
                while received.count < wanted.count || Array(received.suffix(wanted.count)) != wanted {
                    let left = deadline.timeIntervalSinceNow
                    guard left > 0 else { break }
                    var wait = pollfd(fd: self.fd, events: Int16(POLLIN), revents: 0)
                    let ready = poll(&wait, 1, Int32(left * 1000) + 1)
                    if ready < 0 && errno == EINTR { continue }
                    guard ready > 0 else { continue }
                    guard read(self.fd, &byte, 1) == 1 else { break }
                    received.append(byte)
                }
                continuation.resume(returning: String(decoding: received, as: UTF8.self))
            }
        }
    }

    /// Sends a whole request with `Connection: close` and returns the reply's status and body.
    static func exchange(port: Int, _ request: String) async throws -> (status: Int, body: String) {
        let socket = try RawSocket(port: port)
        try socket.send(request)
        let (bytes, _) = await socket.readUntilClosed(seconds: 30)
        let text = String(decoding: bytes, as: UTF8.self)
        let status = Int(text.split(separator: " ", maxSplits: 2).dropFirst().first ?? "") ?? 0
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, body)
    }
}
