import Foundation
import HandoffModel

/// What a person may get e-mail about, each turned on or off by itself (an unsubscribe link in
/// every message turns off its own): the notification kinds, the baton's "free" ones as one.
enum MailTopic: String, Sendable, CaseIterable {
    case batonPassed = "baton_passed"
    case batonFree = "baton_free"
    case friendRequest = "friend_request"
    case kudos
    case comment
    case goalReached = "goal_reached"

    init(_ kind: NotificationKind) {
        self =
            switch kind {
            case .batonPassed: .batonPassed
            case .batonReleased, .batonExpired: .batonFree
            case .friendRequest: .friendRequest
            case .kudos: .kudos
            case .comment: .comment
            case .goalReached: .goalReached
            }
    }

    /// What the topic is, in a sentence's middle: "e-mail when {about}".
    var about: String {
        switch self {
        case .batonPassed: "the baton is passed to you"
        case .batonFree: "the baton is free in your group"
        case .friendRequest: "someone asks to be your friend"
        case .kudos: "someone gives kudos to your run"
        case .comment: "someone comments on your run"
        case .goalReached: "your group reaches its goal"
        }
    }

    /// On until the person turns it off; kudos are many and small, so they start off.
    var onByDefault: Bool { self != .kudos }
}

/// The text of the store's e-mails (RFC 5322, one text/plain part in UTF-8 and base64, so any
/// name or comment passes any server unchanged).
enum MailMessages {
    /// The whole message: headers and body. `unsubscribe`: the one-click address (RFC 8058) of
    /// the message's topic, when it has one.
    static func message(
        from: String, to: String, subject: String, text: String, unsubscribe: String?, now: WallInstant
    ) -> String {
        let date = Date(timeIntervalSince1970: Double(now.nanosecondsSinceEpoch) / 1e9)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let domain = from.split(separator: "@").last.map(String.init) ?? "handoff.invalid"
        var headers = [
            "From: Handoff <\(from)>",
            "To: <\(to)>",
            "Subject: \(encoded(subject))",
            "Date: \(formatter.string(from: date))",
            "Message-ID: <\(UUID().uuidString.lowercased())@\(domain)>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: base64",
            "Auto-Submitted: auto-generated",
        ]
        if let unsubscribe {
            headers += ["List-Unsubscribe: <\(unsubscribe)>", "List-Unsubscribe-Post: List-Unsubscribe=One-Click"]
        }
        let body = Data(text.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
        return headers.joined(separator: "\n") + "\n\n" + body + "\n"
    }

    /// A header's words: as they are in ASCII, else as an RFC 2047 encoded word.
    static func encoded(_ words: String) -> String {
        let flat = words.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        guard flat.unicodeScalars.contains(where: { !$0.isASCII }) else { return flat }
        return "=?UTF-8?B?" + Data(flat.utf8).base64EncodedString() + "?="
    }

    /// An address the store may write to: one @, nothing that could end a header or command.
    static func deliverable(_ address: String) -> Bool {
        address.filter { $0 == "@" }.count == 1 && !address.contains { "\r\n<> \t,;\"".contains($0) }
            && address.count <= 254
    }

    /// A notification's e-mail: its words, the page, and how to stop this topic.
    static func notification(
        _ text: String, page: String, topic: MailTopic, username: String, origin: String, token: String
    ) -> (subject: String, text: String, unsubscribe: String) {
        let unsubscribe = origin + SitePath.unsubscribe(token: token, topic: topic.rawValue).path
        let body = """
            \(text)

            Open it: \(origin + page)

            --
            Handoff sends \(username) this because e-mail when \(topic.about) is on.
            Stop these e-mails: \(unsubscribe)
            Choose which e-mails come: \(origin + SitePath.notifications().path)
            """
        return (text.count <= 120 ? text : String(text.prefix(119)) + "…", body, unsubscribe)
    }

    /// The password-reset e-mail: the one-time link, and what to do if the person did not ask.
    static func reset(username: String, link: String, hours: Int) -> (subject: String, text: String) {
        (
            "Your Handoff password",
            """
            Someone, probably you, asked to set a new password for \(username) on Handoff.

            Set it here (the link works once, for \(hours) hour\(hours == 1 ? "" : "s")):
            \(link)

            If it was not you, do nothing: your password stays as it is.
            """
        )
    }
}
