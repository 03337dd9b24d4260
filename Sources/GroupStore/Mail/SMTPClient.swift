import Foundation
import NIOCore
import NIOExtras
import NIOPosix
import NIOSSL

/// Where the store sends e-mail (issue 35): an SMTP server, `--smtp smtp://user:password@host:port`.
/// STARTTLS is required unless the address says `?starttls=off` (a relay on the same machine);
/// `ca` names a PEM file of the certificates to trust instead of the system's.
public struct SMTPConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var username: String?
    public var password: String?
    public var startTLS: Bool
    public var trustedCertificates: String?
    /// The envelope and `From:` address: `handoff@club.example`.
    public var from: String

    public enum Invalid: Error, CustomStringConvertible {
        case address(String)
        public var description: String {
            switch self {
            case .address(let why):
                "--smtp: \(why) (smtp://user:password@host:587, or ?starttls=off for a relay on this machine)"
            }
        }
    }

    /// Parses `smtp://[user[:password]@]host[:port][?starttls=off]`; port 587 by default.
    public init(url text: String, from: String, trustedCertificates: String? = nil) throws(Invalid) {
        guard let url = URLComponents(string: text), url.scheme == "smtp" else {
            throw .address("'\(text)' is not an smtp:// address")
        }
        guard let host = url.host, !host.isEmpty else { throw .address("'\(text)' names no host") }
        guard from.contains("@"), !from.contains("\r"), !from.contains("\n") else {
            throw .address("the sender '\(from)' is not an e-mail address")
        }
        self.host = host
        port = url.port ?? 587
        username = url.user?.removingPercentEncoding
        password = url.password?.removingPercentEncoding
        let starttls = url.queryItems?.first { $0.name == "starttls" }?.value
        guard starttls == nil || starttls == "off" || starttls == "required" else {
            throw .address("starttls is required (the default) or off")
        }
        startTLS = starttls != "off"
        self.trustedCertificates = trustedCertificates
        self.from = from
    }
}

/// One message on its way: its envelope recipient and its whole text (headers and body).
struct OutgoingMail: Sendable, Equatable {
    var to: String
    var data: String
}

/// A small SMTP client (RFC 5321, STARTTLS from RFC 3207, AUTH PLAIN from RFC 4954): one
/// connection per message, every step under `timeout`, so a server that hangs costs the mailer
/// that long and nothing else.
struct SMTPClient: Sendable {
    let configuration: SMTPConfiguration
    var timeout: Duration = .seconds(30)

    struct Refused: Error, CustomStringConvertible {
        var step: String
        var reply: String
        var permanent: Bool
        var description: String { "the SMTP server refused \(step): \(reply)" }
    }

    func send(_ mail: OutgoingMail) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await exchange(mail) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw Refused(step: "the exchange", reply: "no answer within \(timeout)", permanent: false)
            }
            try await group.next()
            group.cancelAll()
        }
    }

    private func exchange(_ mail: OutgoingMail) async throws {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineBasedFrameDecoder()))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let configuration = self.configuration
        try await channel.executeThenClose { inbound, outbound in
            var lines = inbound.makeAsyncIterator()
            /// The server's next reply: its code and its lines' text.
            func reply() async throws -> (code: Int, text: [String]) {
                var text: [String] = []
                while let buffer = try await lines.next() {
                    let line = String(buffer: buffer).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
                    guard line.count >= 3, let code = Int(line.prefix(3)) else {
                        throw Refused(step: "the conversation", reply: String(line.prefix(200)), permanent: false)
                    }
                    text.append(String(line.dropFirst(4)))
                    if line.count == 3 || line[line.index(line.startIndex, offsetBy: 3)] == " " { return (code, text) }
                }
                throw Refused(step: "the conversation", reply: "the connection closed", permanent: false)
            }
            func expect(_ step: String, _ codes: ClosedRange<Int>) async throws -> [String] {
                let (code, text) = try await reply()
                guard codes.contains(code) else {
                    throw Refused(
                        step: step, reply: "\(code) \(text.joined(separator: " ").prefix(200))", permanent: code >= 500)
                }
                return text
            }
            func say(_ line: String) async throws { try await outbound.write(ByteBuffer(string: line + "\r\n")) }

            _ = try await expect("the connection", 220...220)
            try await say("EHLO handoff-store")
            var extensions = try await expect("EHLO", 250...250)
            if configuration.startTLS {
                guard extensions.contains(where: { $0.uppercased().hasPrefix("STARTTLS") }) else {
                    throw Refused(
                        step: "STARTTLS",
                        reply: "the server does not offer it (add ?starttls=off only for a relay on this machine)",
                        permanent: true)
                }
                try await say("STARTTLS")
                _ = try await expect("STARTTLS", 220...220)
                var tls = TLSConfiguration.makeClientConfiguration()
                if let file = configuration.trustedCertificates { tls.trustRoots = .file(file) }
                let context = try NIOSSLContext(configuration: tls)
                let host = configuration.host
                // Made and added on the channel's own event loop: the handler is not Sendable.
                try await channel.channel.eventLoop.submit {
                    try channel.channel.pipeline.syncOperations.addHandler(
                        try NIOSSLClientHandler(context: context, serverHostname: host), position: .first)
                }.get()
                try await say("EHLO handoff-store")
                extensions = try await expect("EHLO after STARTTLS", 250...250)
            }
            if let username = configuration.username {
                let plain = Data(("\0" + username + "\0" + (configuration.password ?? "")).utf8).base64EncodedString()
                try await say("AUTH PLAIN " + plain)
                _ = try await expect("the user name and password", 235...235)
            }
            try await say("MAIL FROM:<\(configuration.from)>")
            _ = try await expect("the sender", 250...250)
            try await say("RCPT TO:<\(mail.to)>")
            _ = try await expect("the recipient \(mail.to)", 250...251)
            try await say("DATA")
            _ = try await expect("DATA", 354...354)
            // Dot-stuffing (RFC 5321 §4.5.2): a line that starts with "." gets another.
            let body = mail.data.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                let line = line.hasSuffix("\r") ? line.dropLast() : line
                return line.hasPrefix(".") ? "." + line : String(line)
            }
            try await outbound.write(ByteBuffer(string: body.joined(separator: "\r\n") + "\r\n.\r\n"))
            _ = try await expect("the message", 250...250)
            try await say("QUIT")
            _ = try? await reply()
        }
    }
}
