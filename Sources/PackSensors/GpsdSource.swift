import HandoffModel
import Logging
import PackSystem
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// gpsd as the pack's GPS: a TCP client of gpsd's JSON protocol (gpsd_json(5)).
///
/// It connects to gpsd (default 127.0.0.1:2947), sends `?WATCH={"enable":true,"json":true}`
/// and passes every report line on as a `gpsd` payload; the pipeline turns TPV and SKY reports
/// into fixes. When gpsd restarts or the connection drops, the link goes down (a gap in the
/// session) and the client reconnects with backoff until gpsd is back.
///
/// Reports are stamped, and the silence timed, by `clock` (the pack's, as the engine has it).
public struct GpsdSource: LiveSource {
    public let descriptor: SensorDescriptor
    public let host: String
    public let port: UInt16
    public let clock: PackClock
    /// No report for this long means gpsd (or its receiver) stalled: reconnect.
    public var silenceTimeout: Double = 10
    /// Waits between reconnection attempts.
    public var backoff = Backoff.reconnecting

    public init(id: SensorID = "gps0", host: String = "127.0.0.1", port: UInt16 = 2947, clock: PackClock) {
        self.host = host
        self.port = port
        self.clock = clock
        descriptor = SensorDescriptor(
            id: id, kind: .gps, name: "gpsd", address: "\(host):\(port)", transport: .gpsd)
    }

    public static let watchCommand = #"?WATCH={"enable":true,"json":true}"# + "\n"

    public func run(emit: @escaping @Sendable (CaptureEvent) -> Void, stop: StopFlag, logger: Logger) {
        var link = LinkKeeper(sensor: descriptor.id, clock: clock, backoff: backoff)
        while !stop.isSet {
            let reason: String
            do {
                let fd = try TCPConnection.connect(host: host, port: port, timeout: 2)
                defer { close(fd) }
                try TCPConnection.sendAll(fd, Array(Self.watchCommand.utf8))
                logger.info(
                    "Connected to gpsd", metadata: ["sensor.id": "\(descriptor.id)", "gpsd": "\(host):\(port)"])
                link.up(reason: "gpsd \(host):\(port)", emit: emit)
                reason = readReports(fd, emit: emit, stop: stop, logger: logger)
            } catch {
                reason = "\(error)"
            }
            if stop.isSet { break }
            link.down(reason: reason, emit: emit, stop: stop) { attempts in
                logger.warning(
                    "gpsd is not reachable; retrying",
                    metadata: [
                        "sensor.id": "\(descriptor.id)", "gpsd": "\(host):\(port)", "reason": "\(reason)",
                        "attempts": "\(attempts)",
                    ])
            }
        }
    }

    /// Reads report lines until the connection ends; returns why it ended.
    private func readReports(
        _ fd: Int32, emit: @Sendable (CaptureEvent) -> Void, stop: StopFlag, logger: Logger
    ) -> String {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        var lastData = clock.monotonic()
        while !stop.isSet {
            guard waitReadable(fd, timeout: 0.25) else {
                if clock.monotonic().seconds(since: lastData) > silenceTimeout {
                    return "gpsd sent nothing for \(Int(silenceTimeout)) s"
                }
                continue
            }
            let (n, code) = retryingEINTR { chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
            if n == 0 { return "gpsd closed the connection" }
            if n < 0 { return "reading from gpsd: \(String(cString: strerror(code)))" }
            lastData = clock.monotonic()
            buffer.append(contentsOf: chunk[..<n])
            var start = 0
            while let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                if end > start {
                    let line = String(decoding: buffer[start..<end], as: UTF8.self)
                    if line.contains(#""class":"DEVICES""#) || line.contains(#""class":"DEVICE""#) {
                        logger.info("gpsd devices", metadata: ["sensor.id": "\(descriptor.id)", "report": "\(line)"])
                    }
                    emit(clock.stamp(.payload(sensor: descriptor.id, kind: .gpsd, .text(line))))
                }
                start = newline + 1
            }
            buffer.removeFirst(start)
            if buffer.count > 1 << 20 { return "gpsd sent a line longer than 1 MiB" }
        }
        return "stopped"
    }
}

/// Blocking TCP client sockets, with timeouts.
enum TCPConnection {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to `host:port` (a name or an IPv4/IPv6 literal) within `timeout` seconds.
    static func connect(host: String, port: UInt16, timeout: Double) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address for \(host)"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var result = Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen)
            if result < 0, errno == EINPROGRESS {
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&pfd, 1, Int32(timeout * 1000)) == 1 {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    result = error == 0 ? 0 : -1
                    errno = error
                } else {
                    errno = ETIMEDOUT
                }
            }
            if result == 0 {
                _ = fcntl(fd, F_SETFL, flags)
                return fd
            }
            lastError = "connecting to \(host):\(port): \(String(cString: strerror(errno)))"
            close(fd)
        }
        throw Failure(description: lastError)
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let (n, code) = retryingEINTR {
                bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            guard n > 0 else {
                throw Failure(description: "writing to the socket: \(String(cString: strerror(code)))")
            }
            sent += n
        }
    }
}
