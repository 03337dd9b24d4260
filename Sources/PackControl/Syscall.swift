#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call: which one, on what, and errno's own words.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Int32
    public var subject: String?

    public init(call: String, errno: Int32, subject: String? = nil) {
        self.call = call
        self.errno = errno
        self.subject = subject
    }

    public var description: String {
        let reason = String(cString: strerror(errno))
        if let subject { return "\(call)(\(subject)): \(reason)" }
        return "\(call): \(reason)"
    }
}

/// Runs a system call, retrying when a signal interrupted it (`EINTR`), and throws an error
/// naming the call when it fails.
@discardableResult
public func syscall<T: FixedWidthInteger>(
    _ name: String, subject: String? = nil, _ body: () -> T
) throws(SystemError) -> T {
    while true {
        let result = body()
        if result >= 0 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SystemError(call: name, errno: code, subject: subject)
    }
}
