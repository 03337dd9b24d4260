#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connected Unix stream socket carrying newline-delimited messages. Blocking: use it from a
/// thread of its own, never from the cooperative pool.
public final class UnixSocket: @unchecked Sendable {
    public let descriptor: Int32
    private var buffer: [UInt8] = []
    private var closed = false

    /// The longest line either side accepts: a request or response is far smaller.
    public static let maximumLineLength = 1 << 20

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        _ = Glibc.close(self.descriptor)
    }

    /// Connects to the socket at `path`.
    public static func connect(to path: String) throws(SystemError) -> UnixSocket {
        let fd = try syscall("socket") {
            Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        let socket = UnixSocket(descriptor: fd)
        var address = try socketAddress(path)
        try syscall("connect", subject: path) {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        return socket
    }

    static func socketAddress(_ path: String) throws(SystemError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw SystemError(call: "bind", errno: ENAMETOOLONG, subject: path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
            raw[bytes.count] = 0
        }
        return address
    }

    /// Gives up on a read or write that waits longer than `seconds`.
    public func setTimeout(seconds: Int) throws(SystemError) {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            try syscall("setsockopt") {
                setsockopt(descriptor, SOL_SOCKET, option, &tv, socklen_t(MemoryLayout<timeval>.size))
            }
        }
    }

    /// Writes one line (a newline is added).
    public func writeLine(_ text: String) throws(SystemError) {
        var bytes = Array(text.utf8)
        bytes.append(0x0A)
        var offset = 0
        while offset < bytes.count {
            let start = offset
            let written = try syscall("send") {
                bytes.withUnsafeBytes { raw in
                    Glibc.send(descriptor, raw.baseAddress! + start, raw.count - start, Int32(MSG_NOSIGNAL))
                }
            }
            offset += written
        }
    }

    /// Reads one line without its newline; `nil` at the end of the stream.
    public func readLine() throws(SystemError) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard buffer.count <= Self.maximumLineLength else {
                throw SystemError(
                    call: "read", errno: EMSGSIZE, subject: "line longer than \(Self.maximumLineLength) bytes")
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = try syscall("recv") {
                chunk.withUnsafeMutableBytes { raw in Glibc.recv(descriptor, raw.baseAddress!, raw.count, 0) }
            }
            if count == 0 {
                if buffer.isEmpty { return nil }
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                return line
            }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}

/// A listening Unix stream socket.
public final class UnixListener: @unchecked Sendable {
    public let descriptor: Int32
    public let path: String

    /// Binds `path` with permissions `mode` (0660: the owner and its group may connect), replacing
    /// a stale socket file left by a crash. Refuses to replace anything that is not a socket.
    public init(path: String, mode: mode_t = 0o660, backlog: Int32 = 16) throws(SystemError) {
        self.path = path
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw SystemError(call: "bind", errno: EEXIST, subject: path)
            }
            // A live daemon answers; a stale file from a crash does not.
            if (try? UnixSocket.connect(to: path)) != nil {
                throw SystemError(call: "bind", errno: EADDRINUSE, subject: path)
            }
            unlink(path)
        }
        descriptor = try syscall("socket") {
            Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do {
            var address = try UnixSocket.socketAddress(path)
            let fd = descriptor
            try syscall("bind", subject: path) {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
            try syscall("chmod", subject: path) { chmod(path, mode) }
            try syscall("listen", subject: path) { listen(fd, backlog) }
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    /// Waits up to `timeoutMilliseconds` for a connection; `nil` when none came.
    public func accept(timeoutMilliseconds: Int32) throws(SystemError) -> UnixSocket? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = try syscall("poll") { poll(&poller, 1, timeoutMilliseconds) }
        guard ready > 0 else { return nil }
        let fd = try syscall("accept", subject: path) { Glibc.accept(descriptor, nil, nil) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return UnixSocket(descriptor: fd)
    }

    /// Stops listening and removes the socket file.
    public func close() {
        Glibc.close(descriptor)
        unlink(path)
    }
}
