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
    /// Descriptors the peer passed with SCM_RIGHTS, not yet taken.
    private var received: [Int32] = []

    /// The longest line either side accepts: a request or response is far smaller.
    public static let maximumLineLength = 1 << 20

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        for fd in received { _ = Glibc.close(fd) }
        received.removeAll()
        _ = Glibc.close(self.descriptor)
    }

    /// The first descriptor the peer passed (SCM_RIGHTS), now the caller's to close.
    public func takeReceivedDescriptor() -> Int32? {
        received.isEmpty ? nil : received.removeFirst()
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

    public static func socketAddress(_ path: String) throws(SystemError) -> sockaddr_un {
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

    /// Writes one line (a newline is added), passing `descriptor` to the peer with its first
    /// bytes (SCM_RIGHTS): `handoff export` hands handoffd the file it may write, `handoff
    /// import` the file it may read, so the daemon needs no access to the runner's files.
    public func writeLine(_ text: String, passing passed: Int32? = nil) throws(SystemError) {
        var bytes = Array(text.utf8)
        bytes.append(0x0A)
        var offset = 0
        if let passed {
            offset = try sendWithDescriptor(bytes, passed)
        }
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

    /// Sizes of the control message that carries one descriptor (CMSG_SPACE and CMSG_LEN).
    private static let headerSize = (MemoryLayout<cmsghdr>.size + 7) & ~7
    private static let controlSpace = headerSize + ((MemoryLayout<Int32>.size + 7) & ~7)

    private func sendWithDescriptor(_ bytes: [UInt8], _ passed: Int32) throws(SystemError) -> Int {
        var control = [UInt8](repeating: 0, count: Self.controlSpace)
        control.withUnsafeMutableBytes { raw in
            var header = cmsghdr()
            header.cmsg_len = Int(Self.headerSize + MemoryLayout<Int32>.size)
            header.cmsg_level = SOL_SOCKET
            header.cmsg_type = Int32(SCM_RIGHTS)
            raw.storeBytes(of: header, as: cmsghdr.self)
            raw.storeBytes(of: passed, toByteOffset: Self.headerSize, as: Int32.self)
        }
        var payload = bytes
        return try syscall("sendmsg") {
            Self.withMessage(&payload, &control) { Glibc.sendmsg(descriptor, &$0, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// A `msghdr` over one data buffer and one control buffer, for sendmsg and recvmsg.
    private static func withMessage(
        _ data: inout [UInt8], _ control: inout [UInt8], _ body: (inout msghdr) -> Int
    ) -> Int {
        data.withUnsafeMutableBytes { dataBytes in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: dataBytes.baseAddress, iov_len: dataBytes.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBytes.baseAddress
                    message.msg_controllen = controlBytes.count
                    return body(&message)
                }
            }
        }
    }

    /// Receives into `chunk`, keeping any descriptors that came with the bytes.
    private func receive(into chunk: inout [UInt8]) throws(SystemError) -> Int {
        var control = [UInt8](repeating: 0, count: Self.controlSpace * 4)
        var controlLength = 0
        let count = try syscall("recvmsg") {
            Self.withMessage(&chunk, &control) { message in
                let n = Glibc.recvmsg(descriptor, &message, Int32(MSG_CMSG_CLOEXEC))
                controlLength = n >= 0 ? message.msg_controllen : 0
                return n
            }
        }
        // Walk the control messages for SCM_RIGHTS.
        control.removeSubrange(min(control.count, controlLength)...)
        var offset = 0
        while offset + Self.headerSize <= control.count {
            let header = control.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self) }
            let length = Int(header.cmsg_len)
            guard length >= Self.headerSize, offset + length <= control.count else { break }
            if header.cmsg_level == SOL_SOCKET, header.cmsg_type == Int32(SCM_RIGHTS) {
                var at = offset + Self.headerSize
                while at + MemoryLayout<Int32>.size <= offset + length {
                    received.append(control.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: Int32.self) })
                    at += MemoryLayout<Int32>.size
                }
            }
            offset += (length + 7) & ~7
        }
        return count
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
            let count = try receive(into: &chunk)
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
    ///
    /// The socket file is born with `mode`: `bind` runs under a umask that masks everything else,
    /// so there is no moment between `bind` and `chmod` in which another user could connect.
    /// (The umask is the process's; a file another thread creates in that instant gets stricter
    /// permissions, never looser ones.) `afterBind` lets a test look at the file in that moment.
    public init(
        path: String, mode: mode_t = 0o660, backlog: Int32 = 16, afterBind: ((String) -> Void)? = nil
    ) throws(SystemError) {
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
            let previousMask = umask(~mode & 0o777)
            let bound = Result { () throws(SystemError) in
                try syscall("bind", subject: path) {
                    withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                        }
                    }
                }
            }
            umask(previousMask)
            _ = try bound.get()
            afterBind?(path)
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
