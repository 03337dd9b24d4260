import Foundation
import SensorCodecs
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The far end of a `socketpair(AF_UNIX, SOCK_SEQPACKET)`, playing an ATT server from a script
/// of PDUs, in the manner of BlueZ's `unit/test-gatt.c`: each step either expects the exact PDU
/// the client must send next, or sends one. Runs on a thread of its own; `finish()` reports
/// every step that did not go as scripted.
public final class ScriptedATTServer: Sendable {
    public enum Step: Sendable {
        /// The client must send exactly these bytes next (hex).
        case expect(String)
        /// Send these bytes (hex).
        case send(String)
        /// Say nothing for this long.
        case pause(Double)
    }

    /// The client's end: hand it to the bearer under test, which then owns it.
    public let clientFD: Int32
    private let serverFD: Int32
    private let failures = Mutex<[String]>([])
    private let done = DispatchSemaphore(value: 0)

    public init(_ steps: [Step]) {
        var fds: [Int32] = [0, 0]
        let result = socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds)
        precondition(result == 0, "socketpair: \(String(cString: strerror(errno)))")
        clientFD = fds[0]
        serverFD = fds[1]
        let thread = Thread { [self] in
            play(steps)
            done.signal()
        }
        thread.start()
    }

    private func play(_ steps: [Step]) {
        var buffer = [UInt8](repeating: 0, count: 1024)
        for (index, step) in steps.enumerated() {
            switch step {
            case .expect(let hex):
                var pfd = pollfd(fd: serverFD, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, 5000) > 0 else {
                    failures.withLock { $0.append("step \(index): expected \(hex), the client sent nothing") }
                    return
                }
                let count = recv(serverFD, &buffer, buffer.count, 0)
                let got = count > 0 ? Hex.encode(Array(buffer[0..<count])) : "(closed)"
                let want = Hex.encode(try! Hex.decode(hex))
                if got != want {
                    failures.withLock { $0.append("step \(index): expected \(want), got \(got)") }
                    return
                }
            case .send(let hex):
                let bytes = try! Hex.decode(hex)
                _ = bytes.withUnsafeBytes { send(serverFD, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            case .pause(let seconds):
                usleep(UInt32(seconds * 1_000_000))
            }
        }
    }

    /// Waits for the script to end, closes the server's end, and returns what went wrong.
    public func finish() -> [String] {
        if done.wait(timeout: .now() + 10) == .timedOut {
            failures.withLock { $0.append("the script did not finish within 10 s") }
        }
        close(serverFD)
        return failures.withLock { $0 }
    }

    /// Closes the server's end early (the link dropping).
    public func hangUp() { shutdown(serverFD, Int32(SHUT_RDWR)) }
}
