import PackSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Talks to `handoffd` over its control socket: one request, one response per connection.
public struct ControlClient: Sendable {
    public let socketPath: String
    public let timeoutSeconds: Int

    public init(socketPath: String = ControlPaths.defaultSocket, timeoutSeconds: Int = 10) {
        self.socketPath = socketPath
        self.timeoutSeconds = timeoutSeconds
    }

    /// Sends `request` and decodes the result as `Result`. A failure the daemon reports is
    /// thrown as its `ControlError`; not reaching the daemon as a `ControlError` that says how
    /// to start it.
    /// `passing` hands handoffd an open file (SCM_RIGHTS) for `export` and `import`.
    public func send<Result: Codable & Sendable>(
        _ request: ControlRequest, expecting: Result.Type, passing descriptor: Int32? = nil, timeoutSeconds: Int? = nil
    ) throws(ControlError) -> Result {
        let line: String
        do {
            let socket = try UnixSocket.connect(to: socketPath)
            defer { socket.close() }
            try socket.setTimeout(seconds: timeoutSeconds ?? self.timeoutSeconds)
            try socket.writeLine(try ControlJSON.encode(request), passing: descriptor)
            guard let reply = try socket.readLine() else {
                throw ControlError(
                    code: "no_reply", message: "handoffd closed the connection without replying; see its log")
            }
            line = reply
        } catch let error as ControlError {
            throw error
        } catch let error as SystemError {
            throw Self.explain(error, socketPath: socketPath)
        } catch {
            throw ControlError(code: "internal", message: "\(error)")
        }
        let response: ControlResponse<Result>
        do { response = try ControlJSON.decode(ControlResponse<Result>.self, from: line) } catch {
            throw ControlError(
                code: "bad_reply",
                message: "handoffd sent a reply this handoff cannot read (\(error)); are both the same version?")
        }
        if let error = response.error { throw error }
        guard let result = response.result else {
            throw ControlError(code: "bad_reply", message: "handoffd's reply had no result")
        }
        return result
    }

    static func explain(_ error: SystemError, socketPath: String) -> ControlError {
        switch error.errno {
        case ENOENT, ECONNREFUSED:
            ControlError(
                code: "not_running",
                message: """
                    handoffd is not running (nothing answers on \(socketPath)).
                    Start it with `sudo systemctl start handoffd`, or run `handoffd` in another terminal.
                    A handoffd with another socket: add `--socket PATH` after the command, or set HANDOFF_SOCKET.
                    """)
        case EACCES, EPERM:
            ControlError(
                code: "permission_denied",
                message:
                    "you may not use \(socketPath): add yourself to its group (`sudo usermod -aG handoff $USER`, then log in again) or use sudo"
            )
        case EAGAIN, ETIMEDOUT:
            ControlError(
                code: "timeout",
                message: "handoffd did not answer within the timeout; see its log (`journalctl -u handoffd`)")
        default:
            ControlError(code: "socket_error", message: "could not talk to handoffd: \(error)")
        }
    }
}
