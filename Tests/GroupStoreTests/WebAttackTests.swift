import Foundation
import GroupStore
import HTTPTypes
import HandoffAPI
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 27, findings 4, 6, 8 and 9 (Host): connections that never finish a request head, open
/// redirects, `Origin: null`, and a forged `Host`. Each sends the attack, expects a 4xx (or a
/// closed connection) and then a store that still answers.
@Suite("Attacks on connections and web forms (issue 27)")
struct WebAttackTests {
    /// The store answers a whole request, sent in one write as soon as its connection opens: with
    /// the header timeout a few seconds, a client of the test's own that connected and then waited
    /// for a loaded machine's event loop before writing was seen to be (rightly) closed first.
    static func alive(_ client: any TestClientProtocol) async throws {
        let port = try #require(client.port)
        let health = try await RawSocket.exchange(
            port: port, "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(health.status == 200, "the store still answers")
    }

    @Test(
        "Half-sent requests are closed after the header timeout, idle keep-alive ones after the idle timeout; others are served meanwhile",
        arguments: Backend.available)
    func slowClientsAreClosed(_ backend: Backend) async throws {
        var harness = try StoreHarness(backend, transport: .live)
        // Seconds, not less: on a loaded 2-core CI machine a client of our own (the `alive`
        // check's connection) was seen to stall past a 1 s header timeout before sending its
        // head, and the store rightly closed it; 3 s was seen too short once the store pass had
        // grown (issue 33: its own connection closed under it). The reads below wait 30 s: they
        // return as soon as the store closes, so only a failure waits that long, and a CI machine
        // was seen to take over 12 s to close an idle connection under the store pass's load.
        harness.configuration.network.headerTimeout = .seconds(5)
        harness.configuration.network.idleTimeout = .seconds(5)
        try await harness.run { client in
            let port = try #require(client.port)
            var sockets: [RawSocket] = []
            for i in 0..<50 {
                let socket = try RawSocket(port: port)
                try socket.send(i % 2 == 0 ? "GET /v1/hea" : "POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Le")
                sockets.append(socket)
            }
            // A whole request is answered while they hang.
            try await Self.alive(client)
            let results = await withTaskGroup(of: Bool.self) { group in
                for socket in sockets { group.addTask { await socket.readUntilClosed(seconds: 30).closed } }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            // Each read gives up after 30 s: closed by then means closed by the store, which has no
            // other reason to close a connection it is waiting on.
            #expect(results.allSatisfy { $0 }, "\(results.filter { !$0 }.count) of 50 still open")

            // A kept-alive connection that goes quiet after its response is closed too.
            let idle = try RawSocket(port: port)
            try idle.send("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let (reply, closed) = await idle.readUntilClosed(seconds: 30)
            #expect(closed && String(decoding: reply, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            try await Self.alive(client)
        }
    }

    /// `next` values that must never leave the site, and paths that must be kept.
    static let nastyNext = [
        "/\t/evil.example", "/\r\n/evil.example", "/\n/evil.example", "//evil.example", "///evil.example",
        "/\\evil.example", "\\\\evil.example", "https://evil.example", "http:evil.example", "javascript:alert(1)",
        "evil.example", " /evil", "/\u{0}/evil.example", "/\u{7F}", "/\u{85}/evil", "/\u{3000}/evil.example",
        "/ /evil", "",
    ]
    static let kept = ["/", "/groups/7", "/device?code=BCDF-GHJK", "/a/b/../c"]

    static func formEncoded(_ text: String) -> String {
        text.utf8.map { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }.joined()
    }

    @Test(
        "After sign-in, `next` leads only to a path of this site: tabs, line breaks, backslashes and schemes lead to /",
        arguments: Backend.available)
    func openRedirect(_ backend: Backend) async throws {
        try await StoreHarness(backend, transport: .live).run { client in
            _ = try await client.signUp("ada")
            for next in Self.nastyNext + Self.kept {
                let expected = Self.kept.contains(next) ? next : "/"
                let form = try await client.call(.get, "/login?next=" + Self.formEncoded(next))
                #expect(form.status == .ok && form.text.contains("name=\"next\" value=\"\(expected)\""), "\(next)")
                let body = "login=ada&password=correct+horse+battery&next=" + Self.formEncoded(next)
                let reply = try await client.call(
                    .post, "/login", body: Array(body.utf8), contentType: "application/x-www-form-urlencoded")
                #expect(reply.status == .seeOther && reply.headers[.location] == expected, "\(next.debugDescription)")
            }
            try await Self.alive(client)
        }
    }

    @Test("`Origin: null` is another site: forms answer 403 with a page that says why", arguments: Backend.available)
    func nullOrigin(_ backend: Backend) async throws {
        try await StoreHarness(backend, transport: .live).run { client in
            _ = try await client.signUp("ada")
            let (_, cookie) = try await client.webSignIn("ada")
            let null: HTTPFields = [.origin: "null", .cookie: cookie]
            let form = Array("login=ada&password=correct+horse+battery".utf8)
            for path in ["/login", "/logout", "/device", "/devices/1/unlink"] {
                let reply = try await client.call(
                    .post, path, body: form, contentType: "application/x-www-form-urlencoded", headers: null)
                #expect(reply.status == .forbidden, "\(path)")
                #expect(reply.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(reply.text.contains("was not acted on") && reply.headers[.setCookie] == nil, "\(path)")
            }
            let elsewhere = try await client.call(
                .post, "/login", body: form, contentType: "application/x-www-form-urlencoded",
                headers: [.origin: "https://evil.example"])
            #expect(elsewhere.status == .forbidden)
            let home = try await client.call(.get, "/", headers: [.cookie: cookie])
            #expect(home.status == .ok, "the session was not signed out by the refused form")
            try await Self.alive(client)
        }
    }

    @Test(
        "A forged Host never becomes the verification address: the pack is sent to the address the store listens on",
        arguments: Backend.available)
    func forgedHost(_ backend: Backend) async throws {
        try await StoreHarness(backend, transport: .live).run { client in
            let port = try #require(client.port)
            let json = #"{"name":"pack"}"#
            let (status, body) = try await RawSocket.exchange(
                port: port,
                "POST /v1/device/code HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n\(json)")
            #expect(status == 200, "\(body)")
            #expect(!body.contains("evil.example"))
            let reply = try JSONDecoder().decode(DeviceCode.self, from: Data(body.utf8))
            #expect(reply.verificationURI == "http://127.0.0.1:\(port)/device")
            try await Self.alive(client)
        }
    }
}
