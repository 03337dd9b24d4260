import Foundation
import HandoffAPI
import PackControl

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The demo's own group store: `handoff-store` with SQLite in the demo's directory, on a free
/// loopback port, with an account and a group made through its API as a person would.
struct DemoStore {
    let process: DemoChild
    let url: URL
    let logPath: String

    static func start(executable: String, directory: String) async throws -> DemoStore {
        let port = freePort()
        let logPath = directory + "/handoff-store.log"
        let process: DemoChild
        do {
            process = try DemoSession.shared.spawn(
                "handoff-store", executable: executable,
                arguments: ["--host", "127.0.0.1", "--port", String(port), "--data", directory + "/store"],
                logPath: logPath)
        } catch let failure as DemoChild.Failure {
            throw ControlError(code: "store_failed", message: failure.message)
        }
        let store = DemoStore(process: process, url: URL(string: "http://127.0.0.1:\(port)")!, logPath: logPath)
        let started = ContinuousClock.now
        while true {
            if let reply = try? await store.call("GET", "/v1/health"), reply.status == 200 { return store }
            guard process.isRunning, ContinuousClock.now - started < .seconds(30) else {
                store.stop()
                throw ControlError(
                    code: "store_failed",
                    message: "handoff-store did not start; its log says:\n" + DemoFiles.tail(logPath))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    func stop() { process.stop() }

    struct Reply: Sendable {
        let status: Int
        let body: Data

        func decode<T: Decodable>(_ type: T.Type) -> T? { try? JSONDecoder().decode(type, from: body) }
    }

    func call(
        _ method: String, _ path: String, token: String? = nil, json: (any Encodable)? = nil
    ) async throws
        -> Reply
    {
        var request = URLRequest(url: url.appendingPathComponent(String(path.dropFirst())))
        request.httpMethod = method
        request.timeoutInterval = 10
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpBody = try JSONEncoder().encode(json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return Reply(status: status, body: data)
    }

    /// Calls and insists on `expected` and a `T` in reply, saying what failed otherwise.
    func expect<T: Decodable>(
        _ expected: Int, _ method: String, _ path: String, token: String? = nil, json: (any Encodable)? = nil,
        reply type: T.Type
    ) async throws -> T {
        let reply = try await call(method, path, token: token, json: json)
        guard reply.status == expected else {
            let message = reply.decode(ErrorEnvelope.self)?.error.message ?? "status \(reply.status)"
            throw ControlError(code: "store_failed", message: "the demo store refused \(method) \(path): \(message)")
        }
        guard let value = reply.decode(type) else {
            throw ControlError(
                code: "store_failed", message: "the demo store's answer to \(method) \(path) is not the API's \(type)")
        }
        return value
    }

    static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(fd, $0, length)
                _ = getsockname(fd, $0, &length)
            }
        }
        return UInt16(bigEndian: address.sin_port)
    }
}
