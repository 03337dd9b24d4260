import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real browser for the store's pages: Debian's Chromium, headless, driven through Debian's
/// chromedriver over the W3C WebDriver protocol (JSON over HTTP on loopback). Only what the page
/// tests need: navigate, find, type, click, read, run a script, the performance log (every
/// request the page made) and the console, and a screenshot.
///
/// The browser is started so that it cannot reach anything but loopback: every other address goes
/// to a proxy on a closed loopback port, so a page that asks for something from elsewhere fails
/// to load it here, and the request still shows in the performance log, where the tests look.
final class Browser: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// An element of the current page, by its WebDriver reference.
    struct Element: Sendable {
        let id: String
    }

    private let driver: BackgroundProcess
    private let session: String
    private let http: LoopbackHTTP

    /// Starts chromedriver and a browser whose window is `width`×`height` CSS pixels (a phone's
    /// by default). Throws `SystemPrograms.Missing` when Chromium or chromedriver is not
    /// installed.
    init(width: Int = 390, height: Int = 844) async throws {
        let chromium = try SystemPrograms.require("chromium", package: "chromium")
        let chromedriver = try SystemPrograms.require("chromedriver", package: "chromium-driver")
        let port = freeLoopbackPort()
        driver = try BackgroundProcess(chromedriver, ["--port=\(port)", "--allowed-ips=127.0.0.1"])
        http = LoopbackHTTP(port: port)

        // chromedriver answers /status once it listens.
        let started = Date()
        var last = "no answer"
        while true {
            do {
                let status = try await Self.request(http, "GET", "/status", nil)
                if (status["value"] as? [String: Any])?["ready"] as? Bool == true { break }
                last = "\(status)"
            } catch {
                last = "\(error)"
            }
            if Date().timeIntervalSince(started) > 60 || !driver.isRunning {
                let output = (try? String(contentsOfFile: driver.outputPath, encoding: .utf8)) ?? ""
                driver.stop()
                throw Failure(
                    description: "chromedriver did not start within 60 s (\(last)): \(output.suffix(500))")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--window-size=\(width),\(height)", "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", "--metrics-recording-only",
            "--proxy-server=http://127.0.0.1:9",
        ]
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": ["binary": chromium.path, "args": arguments],
                    "goog:loggingPrefs": ["performance": "ALL", "browser": "ALL"],
                ] as [String: Any]
            ]
        ]
        do {
            let reply = try await Self.request(http, "POST", "/session", capabilities)
            guard let value = reply["value"] as? [String: Any], let id = value["sessionId"] as? String else {
                throw Failure(description: "chromedriver gave no session: \(reply)")
            }
            session = id
            // Finding an element waits up to 15 s for it to appear (CI's store pass shares two cores
            // with a thousand uploads).
            _ = try await command("POST", "timeouts", ["implicit": 15000])
        } catch {
            driver.stop()
            throw error
        }
    }

    /// Ends the browser and chromedriver.
    func close() async {
        _ = try? await Self.request(http, "DELETE", "/session/\(session)", nil)
        driver.stop(grace: 5)
    }

    // MARK: Navigation and the page

    /// Waits for the browser to be at a page whose address `matches`, fully loaded (a click on a
    /// form's button returns before the answer to the post has loaded); returns the address.
    @discardableResult
    func waitFor(_ what: String, timeout: TimeInterval = 30, _ matches: (String) -> Bool) async throws -> String {
        let started = Date()
        while true {
            let current = try await url
            if matches(current), try await script("return document.readyState") as? String == "complete" {
                return current
            }
            if Date().timeIntervalSince(started) > timeout {
                throw Failure(description: "waited \(Int(timeout)) s for \(what); the browser is at \(current)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Waits until `condition` holds on the page, for a form that posts back to the page's own
    /// address: the address cannot tell the answer's page from the page the button was on.
    func waitUntil(_ what: String, timeout: TimeInterval = 30, _ condition: () async throws -> Bool) async throws {
        let started = Date()
        while true {
            if try await script("return document.readyState") as? String == "complete", try await condition() {
                return
            }
            if Date().timeIntervalSince(started) > timeout {
                throw Failure(description: "waited \(Int(timeout)) s for \(what); the browser is at \(try await url)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func open(_ url: String) async throws { _ = try await command("POST", "url", ["url": url]) }

    var url: String {
        get async throws { try await command("GET", "url") as? String ?? "" }
    }

    var title: String {
        get async throws { try await command("GET", "title") as? String ?? "" }
    }

    /// The first element matching a CSS selector; fails naming the selector and the page.
    func find(_ selector: String) async throws -> Element {
        let found = try await command("POST", "elements", ["using": "css selector", "value": selector])
        guard let first = (found as? [[String: Any]])?.first, let id = first.values.first as? String else {
            throw Failure(description: "no element matches \(selector) on \(try await url)")
        }
        return Element(id: id)
    }

    func all(_ selector: String) async throws -> [Element] {
        let found = try await command("POST", "elements", ["using": "css selector", "value": selector])
        return (found as? [[String: Any]] ?? []).compactMap { ($0.values.first as? String).map(Element.init) }
    }

    /// How many elements match now, without the implicit wait `all` spends when none do.
    func count(_ selector: String) async throws -> Int {
        try await script("return document.querySelectorAll(arguments[0]).length", [selector]) as? Int ?? -1
    }

    /// The element's rendered text, as a person sees it (entities decoded, whitespace collapsed).
    func text(_ element: Element) async throws -> String {
        try await command("GET", "element/\(element.id)/text") as? String ?? ""
    }

    func text(_ selector: String) async throws -> String { try await text(try await find(selector)) }

    func attribute(_ element: Element, _ name: String) async throws -> String? {
        try await command("GET", "element/\(element.id)/attribute/\(name)") as? String
    }

    func type(_ text: String, into selector: String) async throws {
        let element = try await find(selector)
        _ = try await command("POST", "element/\(element.id)/clear", [String: Any]())
        _ = try await command("POST", "element/\(element.id)/value", ["text": text])
    }

    /// Clicks and waits for the navigation it starts (WebDriver's click returns once the new page
    /// has loaded).
    func click(_ selector: String) async throws {
        _ = try await command("POST", "element/\(try await find(selector).id)/click", [String: Any]())
    }

    /// Runs a script in the page and returns its JSON-able result.
    func script(_ source: String, _ arguments: [Any] = []) async throws -> Any? {
        try await command("POST", "execute/sync", ["script": source, "args": arguments])
    }

    /// Runs a script that calls its last argument, the callback, with a JSON-able result.
    func asyncScript(_ source: String, _ arguments: [Any] = []) async throws -> Any? {
        try await command("POST", "execute/async", ["script": source, "args": arguments])
    }

    /// The browser's cookie for this site as a `Cookie` header's value (WebDriver sees HttpOnly ones).
    func cookieHeader() async throws -> String {
        let cookies = try await command("GET", "cookie") as? [[String: Any]] ?? []
        return cookies.compactMap { cookie in
            (cookie["name"] as? String).flatMap { name in (cookie["value"] as? String).map { "\(name)=\($0)" } }
        }.joined(separator: "; ")
    }

    /// Sets the window's size in CSS pixels.
    func resize(width: Int, height: Int) async throws {
        _ = try await command("POST", "window/rect", ["width": width, "height": height])
    }

    /// A PNG of the whole page at `width` CSS pixels: the window is made as tall as the page.
    func pageScreenshot(width: Int) async throws -> Data {
        try await resize(width: width, height: 900)
        let height = try await script("return document.documentElement.scrollHeight") as? Int ?? 900
        try await resize(width: width, height: min(max(height + 120, 600), 8000))
        return try await screenshot()
    }

    /// A PNG of the viewport.
    func screenshot() async throws -> Data {
        guard let base64 = try await command("GET", "screenshot") as? String, let png = Data(base64Encoded: base64)
        else { throw Failure(description: "the screenshot was not base64") }
        return png
    }

    /// Every URL the browser asked for since the last call (from the DevTools performance log).
    func requestedURLs() async throws -> [String] {
        let entries = try await command("POST", "se/log", ["type": "performance"]) as? [[String: Any]] ?? []
        return entries.compactMap { entry in
            guard let text = entry["message"] as? String,
                let message = (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["message"]
                    as? [String: Any], message["method"] as? String == "Network.requestWillBeSent",
                let request = (message["params"] as? [String: Any])?["request"] as? [String: Any]
            else { return nil }
            return request["url"] as? String
        }
    }

    /// The console's messages since the last call: level and text (CSP violations show here).
    func consoleMessages() async throws -> [(level: String, message: String)] {
        let entries = try await command("POST", "se/log", ["type": "browser"]) as? [[String: Any]] ?? []
        return entries.map { ($0["level"] as? String ?? "", $0["message"] as? String ?? "") }
    }

    // MARK: The protocol

    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        let reply = try await Self.request(http, method, "/session/\(session)/\(path)", body)
        if let value = reply["value"] as? [String: Any], let error = value["error"] as? String {
            throw Failure(description: "WebDriver \(method) \(path): \(error): \(value["message"] ?? "")")
        }
        return reply["value"]
    }

    private static func request(
        _ http: LoopbackHTTP, _ method: String, _ path: String, _ body: [String: Any]?
    )
        async throws -> [String: Any]
    {
        let json = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let data = try await http.send(method, path, json)
        return (try JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}

/// HTTP/1.1 to a server on loopback, a connection per request. chromedriver writes its header
/// fields without a space after the colon (`Content-Length:249`), which Foundation's libcurl-based
/// URLSession refuses ("Failed writing header"); this reads them as RFC 9112 allows.
struct LoopbackHTTP: Sendable {
    let port: UInt16

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func send(_ method: String, _ path: String, _ body: Data?) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try exchange(method, path, body) })
            }
        }
    }

    private func exchange(_ method: String, _ path: String, _ body: Data?) throws -> Data {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)") }
        var request = Data("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n".utf8)
        if let body {
            request += Data("Content-Type: application/json\r\nContent-Length: \(body.count)\r\n".utf8)
        } else if method != "GET" && method != "DELETE" {
            request += Data("Content-Length: 0\r\n".utf8)
        }
        request += Data("\r\n".utf8) + (body ?? Data())
        try request.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let n = write(fd, bytes.baseAddress! + sent, bytes.count - sent)
                guard n > 0 else { throw Failure(description: "write: errno \(errno)") }
                sent += n
            }
        }
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        let separator = Data("\r\n\r\n".utf8)
        var expected: Int?
        var headerEnd: Int?
        while true {
            if let end = headerEnd, let expected, received.count - end >= expected { break }
            let n = read(fd, &chunk, chunk.count)
            if n < 0 { throw Failure(description: "read from 127.0.0.1:\(port): errno \(errno)") }
            if n == 0 { break }
            received.append(contentsOf: chunk[0..<n])
            if headerEnd == nil, let range = received.range(of: separator) {
                headerEnd = range.upperBound
                let head = String(decoding: received[..<range.lowerBound], as: UTF8.self)
                for line in head.split(separator: "\r\n").dropFirst() {
                    let field = line.split(separator: ":", maxSplits: 1)
                    if field.count == 2, field[0].lowercased() == "content-length" {
                        expected = Int(field[1].trimmingCharacters(in: .whitespaces))
                    }
                }
            }
        }
        guard let end = headerEnd else { throw Failure(description: "no HTTP header from 127.0.0.1:\(port)") }
        return Data(received[end...].prefix(expected ?? Int.max))
    }
}
