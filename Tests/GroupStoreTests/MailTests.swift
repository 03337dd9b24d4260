import Foundation
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import TestSupport
import Testing

@testable import GroupStore

/// A real SMTP server on loopback (scripts/smtp-sink: PyPI's aiosmtpd, STARTTLS required, with a
/// certificate made for the test), whose messages Python's own e-mail parser reads back.
final class SMTPSink: @unchecked Sendable {
    let directory: TemporaryDirectory
    private(set) var port = 0
    let certificate: String
    private let process: SpawnedProcess

    struct Message: Decodable {
        var mailFrom: String
        var rcptTos: [String]
        var tls: Bool
        var auth: String?
        var headers: [[String]]
        var text: String?
        var defects: [String]

        enum CodingKeys: String, CodingKey {
            case mailFrom = "mail_from"
            case rcptTos = "rcpt_tos"
            case tls, auth, headers, text, defects
        }

        func header(_ name: String) -> String? {
            headers.first { $0.first?.lowercased() == name.lowercased() }?.last
        }
    }

    /// `mode`: accept, refuse or hang; `port` 0 for any; `keys` from an earlier sink, to keep one
    /// certificate across sinks on the same port.
    private init(mode: String, port: Int, keys: TemporaryDirectory?) throws {
        directory = try keys ?? TemporaryDirectory()
        certificate = directory.file("cert.pem").path
        if keys == nil {
            let made = try runProcess(
                URL(fileURLWithPath: "/usr/bin/openssl"),
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory.file("key.pem").path, "-out",
                    certificate, "-days", "1", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1",
                ])
            #expect(made.status == 0, "\(made.stderr)")
        }
        try? FileManager.default.removeItem(at: directory.file("mail"))
        process = try SpawnedProcess(
            Fixtures.repositoryRoot.appendingPathComponent("scripts/smtp-sink").path,
            [
                directory.file("mail").path, "--cert", certificate, "--key", directory.file("key.pem").path, "--user",
                "handoff", "--password", "secret word", "--mode", mode, "--port", String(port),
            ], environment: ProcessInfo.processInfo.environment)
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Starts a sink and waits (without holding a thread of the test pool) until it listens.
    static func start(
        mode: String = "accept", port: Int = 0, keys: TemporaryDirectory? = nil
    ) async throws
        -> SMTPSink
    {
        let sink = try SMTPSink(mode: mode, port: port, keys: keys)
        for _ in 0..<1_500 {
            if let listening = sink.process.printed.split(separator: "\n").first(where: { $0.hasPrefix("port ") })
                .flatMap({ Int($0.dropFirst(5)) })
            {
                sink.port = listening
                return sink
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure(description: "scripts/smtp-sink did not start: \(sink.process.printed)")
    }

    /// aiosmtpd is there (when a test must not be skipped, it runs and fails saying so).
    static var runnable: Bool {
        let found = try? runProcess(
            (programOnPath("python3") ?? URL(fileURLWithPath: "/usr/bin/python3")), ["-c", "import aiosmtpd"])
        return found?.status == 0 || SystemPrograms.required
    }

    /// The messages kept so far, in the order they came.
    var messages: [Message] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.file("mail").path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().compactMap { name in
            (try? Data(contentsOf: directory.file("mail").appendingPathComponent(name))).flatMap {
                try? JSONDecoder().decode(Message.self, from: $0)
            }
        }
    }

    /// Waits (up to 30 s) for `count` messages.
    func waitFor(_ count: Int) async throws -> [Message] {
        for _ in 0..<600 {
            let kept = messages
            if kept.count >= count { return kept }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "\(messages.count) messages, not \(count): \(process.printed.suffix(2000))")
    }

    func stop() { process.stop() }

    /// The store's configuration for this sink.
    func mail(timeout: Duration = .seconds(20)) throws -> StoreApplication.Configuration.Mail {
        var mail = StoreApplication.Configuration.Mail(
            smtp: try SMTPConfiguration(
                url: "smtp://handoff:secret%20word@localhost:\(port)", from: "handoff@club.example",
                trustedCertificates: certificate))
        mail.interval = .milliseconds(100)
        mail.timeout = timeout
        return mail
    }
}

@Suite(
    "E-mail through a real SMTP server on loopback", .serialized,
    .enabled(if: SMTPSink.runnable, "needs aiosmtpd (scripts/setup --test)"))
struct MailTests {
    @Test(
        "a notification by e-mail over STARTTLS and AUTH: headers, words, link; one-click unsubscribe per topic; the choices page; a password reset link",
        arguments: Backend.available)
    func notificationMail(_ backend: Backend) async throws {
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        var harness = try StoreHarness(backend, transport: .live)
        harness.configuration.mail = try sink.mail()
        try await harness.run { client in
            let origin = "http://127.0.0.1:\(try #require(client.port))"
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let group = try await client.createGroup(ada, name: "Night <owls>", goal: 100_000)
            try await client.join(bob, group.invite)
            let baton = "/v1/groups/\(group.id)/baton"
            #expect(try await client.call(.post, baton + "/take", token: ada).status == .ok)
            #expect(try await client.call(.post, baton + "/pass", token: ada, send: BatonPass(to: "bob")).status == .ok)

            let first = try #require(try await sink.waitFor(1).first)
            #expect(first.tls && first.auth == "handoff", "STARTTLS, then AUTH")
            #expect(first.mailFrom == "handoff@club.example" && first.rcptTos == ["bob@example.org"])
            #expect(first.defects.isEmpty, "\(first.defects)")
            #expect(first.header("From") == "Handoff <handoff@club.example>")
            #expect(first.header("To") == "bob@example.org")
            #expect(first.header("Subject") == "ada passed you the baton in Night <owls>: it is yours.")
            #expect(first.header("Auto-Submitted") == "auto-generated")
            #expect(first.header("Message-ID")?.hasSuffix("@club.example>") == true)
            #expect(first.header("Date") != nil)
            let text = try #require(first.text)
            #expect(
                text.hasPrefix(
                    "ada passed you the baton in Night <owls>: it is yours.\n\nOpen it: \(origin)/groups/\(group.id)\n")
            )
            let unsubscribe = try #require(first.header("List-Unsubscribe"))
            #expect(first.header("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click")
            #expect(unsubscribe.hasPrefix("<\(origin)/unsubscribe/") && unsubscribe.hasSuffix("?topic=baton_passed>"))
            #expect(text.contains("Stop these e-mails: \(unsubscribe.dropFirst().dropLast())\n"))

            // The link asks first; a mail program's one-click POST (RFC 8058) stops the topic.
            let path = String(unsubscribe.dropFirst(1 + origin.count).dropLast())
            let asked = try await client.call(.get, path)
            #expect(asked.status == .ok && asked.text.contains("Handoff e-mails bob when the baton is passed to you."))
            let stopped = try await client.call(
                .post, path, body: Array("List-Unsubscribe=One-Click".utf8),
                contentType: "application/x-www-form-urlencoded")
            #expect(stopped.status == .ok && stopped.text.contains("E-mails stopped"))
            let forged = try await client.call(
                .post, path.replacingOccurrences(of: "/unsubscribe/", with: "/unsubscribe/0"))
            #expect(forged.status == .notFound)
            #expect(
                try await client.call(.get, path.replacingOccurrences(of: "baton_passed", with: "nonsense")).status
                    == .notFound)

            // bob passes to ada (mailed), ada back to bob (not mailed: stopped), bob to ada (mailed).
            for (from, to) in [(bob, "ada"), (ada, "bob"), (bob, "ada")] {
                #expect(
                    try await client.call(.post, baton + "/pass", token: from, send: BatonPass(to: to)).status == .ok)
            }
            let three = try await sink.waitFor(3)
            #expect(three.map(\.rcptTos) == [["bob@example.org"], ["ada@example.org"], ["ada@example.org"]])
            #expect(
                try await NotificationTests.list(client, bob).notifications.map(\.kind) == [
                    "baton_passed", "baton_passed",
                ])

            // The choices on the notifications page: off as the link left it; on again.
            let cookie = try await client.webSignIn("bob").cookie
            let page = try await client.call(.get, "/notifications", headers: [.cookie: cookie]).text
            #expect(page.contains(#"<input type="checkbox" name="baton_passed"> When the baton is passed to you"#))
            #expect(page.contains(#"<input type="checkbox" name="comment" checked> When someone comments on your run"#))
            let saved = try await AccountPageTests.post(
                client, "/notifications/mail", ["baton_passed": "on", "comment": "on"], cookie: cookie)
            #expect(saved.status == .seeOther)
            let choices = try await client.call(.get, "/notifications", headers: [.cookie: cookie]).text
            #expect(choices.contains(#"name="baton_passed" checked"#) && choices.contains(#"name="goal_reached">"#))

            // A reset link by e-mail; the same answer for a name nobody has, and no e-mail.
            #expect(
                try await client.call(.get, "/login").text.contains(#"<a href="/forgot">Forgot your password?</a>"#))
            for login in ["nobody", "BOB@example.org"] {
                let answer = try await AccountPageTests.post(client, "/forgot", ["login": login], cookie: nil)
                #expect(answer.status == .ok && answer.text.contains("If an account here has that address or name"))
            }
            // nobody's ask came first: had it made a message, the fourth would be that one.
            let reset = try #require(try await sink.waitFor(4).last)
            #expect(reset.rcptTos == ["bob@example.org"] && reset.header("Subject") == "Your Handoff password")
            #expect(reset.header("List-Unsubscribe") == nil)
            let link = try #require(
                reset.text?.split(separator: "\n").first { $0.hasPrefix(origin + "/reset/") }.map(String.init))
            #expect(try await client.call(.get, String(link.dropFirst(origin.count))).status == .ok)
        }
    }

    @Test(
        "a hanging SMTP server, then one that refuses, delay no request; the message waits in the outbox and goes once the server takes it"
    )
    func failingServer() async throws {
        let hanging = try await SMTPSink.start(mode: "hang")
        var live = try StoreHarness(.sqlite, transport: .live)
        live.configuration.mail = try hanging.mail(timeout: .seconds(60))
        let harness = live
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let group = try await client.createGroup(ada, goal: 100_000)
            try await client.join(bob, group.invite)
            let baton = "/v1/groups/\(group.id)/baton"
            let started = ContinuousClock.now
            #expect(try await client.call(.post, baton + "/take", token: ada).status == .ok)
            #expect(try await client.call(.post, baton + "/pass", token: ada, send: BatonPass(to: "bob")).status == .ok)
            // The mailer is now stuck on the hanging server (for up to a minute); requests are not.
            try await Task.sleep(for: .milliseconds(500))
            for _ in 0..<5 { #expect(try await client.call(.get, "/v1/notifications", token: bob).status == .ok) }
            // The acceptance's "delays nothing else": a request that waited on the mail would take
            // the minute the hung exchange is allowed; a third of it is a loaded machine's margin.
            let took = ContinuousClock.now - started
            #expect(took < .seconds(20), "the requests took \(took) beside a hung SMTP exchange of a minute")
            func outbox() async throws -> [(attempts: Int64, sent: Bool, failure: String?)] {
                try await repository.read { db in
                    try await db.query("SELECT attempts, sent_ns, failure FROM mail_outbox ORDER BY id").map {
                        (try $0.int("attempts"), try $0.intOrNil("sent_ns") != nil, try $0.textOrNil("failure"))
                    }
                }
            }
            #expect(try await outbox().map(\.attempts) == [1])

            // The server goes away mid-exchange: the try fails, and waits a minute to be tried again.
            hanging.stop()
            try await Self.waitUntil { try await outbox().first?.failure != nil }
            #expect(try await outbox().first?.sent == false)
            // Back, but refusing (451): tried again after the minute, it fails again.
            let refusing = try await SMTPSink.start(mode: "refuse", port: hanging.port, keys: hanging.directory)
            harness.clock.advance(seconds: 61)
            try await Self.waitUntil {
                let row = try await outbox().first
                return row?.attempts == 2 && row?.failure?.contains("451") == true
            }
            refusing.stop()
            // Then accepting: after five more minutes it goes, once.
            let accepting = try await SMTPSink.start(port: hanging.port, keys: hanging.directory)
            defer { accepting.stop() }
            harness.clock.advance(seconds: 301)
            let sent = try await accepting.waitFor(1)
            #expect(sent.map(\.rcptTos) == [["bob@example.org"]])
            try await Self.waitUntil { try await outbox().first?.sent == true }
            #expect(try await outbox().map(\.attempts) == [3])
        }
    }

    static func waitUntil(_ condition: () async throws -> Bool) async throws {
        for _ in 0..<600 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(Bool(false), "not within 30 s")
    }

    @Test("--smtp addresses: the default port and STARTTLS, off only when asked; nonsense refused in words")
    func addresses() throws {
        let plain = try SMTPConfiguration(url: "smtp://mail.example", from: "handoff@club.example")
        #expect(plain.port == 587 && plain.startTLS && plain.username == nil)
        let relay = try SMTPConfiguration(url: "smtp://u:p%40ss@127.0.0.1:25?starttls=off", from: "a@b.c")
        #expect(relay.port == 25 && !relay.startTLS && relay.password == "p@ss")
        for (url, from) in [
            ("http://mail.example", "a@b.c"), ("smtp://", "a@b.c"), ("smtp://mail.example?starttls=maybe", "a@b.c"),
            ("smtp://mail.example", "nobody"),
        ] {
            #expect(throws: SMTPConfiguration.Invalid.self, "\(url) from \(from)") {
                try SMTPConfiguration(url: url, from: from)
            }
        }
        #expect(MailMessages.encoded("Ça passe") == "=?UTF-8?B?w4dhIHBhc3Nl?=")
        #expect(MailMessages.encoded("a\r\nBcc: x@y.z") == "a  Bcc: x@y.z", "no header of its own")
        #expect(!MailMessages.deliverable("a@b.c>\r\nRCPT TO:<x@y.z") && MailMessages.deliverable("ada@example.org"))
    }
}
