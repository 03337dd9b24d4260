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

/// Runs a system call, retrying while a signal interrupts it (`EINTR`): the pack's one loop
/// for that. Returns the call's result and, when it failed, its `errno` (0 when it did not), so
/// that callers can map each errno to what it means for them.
@inline(__always)
public func retryingEINTR<T: FixedWidthInteger>(_ body: () -> T) -> (T, Int32) {
    while true {
        let result = body()
        if result >= 0 { return (result, 0) }
        let code = errno
        if code != EINTR { return (result, code) }
    }
}

/// Runs a system call, retrying `EINTR`, and throws an error naming the call when it fails.
@discardableResult
public func syscall<T: FixedWidthInteger>(
    _ name: String, subject: String? = nil, _ body: () -> T
) throws(SystemError) -> T {
    let (result, code) = retryingEINTR(body)
    if code != 0 { throw SystemError(call: name, errno: code, subject: subject) }
    return result
}

/// `poll(2)` on one descriptor, where a signal's interruption counts as nothing ready (0): the
/// callers wait in loops bounded by their own deadlines, so a signal ends one wait early and the
/// loop goes on. Returns how many are ready and, when `poll` failed otherwise, its errno (else 0).
public func pollOnce(_ descriptor: inout pollfd, timeoutMilliseconds: Int32) -> (ready: Int32, errno: Int32) {
    let ready = poll(&descriptor, 1, timeoutMilliseconds)
    if ready >= 0 { return (ready, 0) }
    let code = errno
    return code == EINTR ? (0, 0) : (ready, code)
}
