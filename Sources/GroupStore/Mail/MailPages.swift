import HandoffModel
import Hummingbird

/// The e-mail choices on the notifications page: a box per topic.
struct MailForm: Sendable, Equatable {
    var action = SitePath.notificationsMail.path
    var topics: [Topic]

    struct Topic: Sendable, Equatable {
        var name: String
        var label: String
        var on: Bool
    }

    init(_ choices: [MailTopic: Bool]) {
        topics = MailTopic.allCases.map { topic in
            Topic(name: topic.rawValue, label: "When \(topic.about)", on: choices[topic] ?? topic.onByDefault)
        }
    }
}

/// A question with one button: the unsubscribe page, the forgotten-password form.
struct AskPage: PageModel {
    static let template = "ask"
    var frame: Frame
    var text: String
    var action: String
    var button: String
    /// A text field the form asks for (the forgotten-password form's login).
    var field: Field?

    struct Field: Sendable, Equatable {
        var name: String
        var label: String
        var autocomplete: String
    }
}

extension WebPages {
    func registerMailPages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.post, "/notifications/mail") { request, context, account in
            let form = try await Self.form(request, context)
            for topic in MailTopic.allCases {
                try await repository.setMailChoice(
                    account: account.id, topic: topic, mail: form[topic.rawValue] == "on")
            }
            return Self.redirect(.notifications())
        }
        // An unsubscribe link asks before it acts (a mail scanner may open links); a mail
        // program's one-click POST (RFC 8058) acts at once. No sign-in: the link is the secret.
        router.anyone(.get, "/unsubscribe/:token") { request, context in
            guard let (account, topic) = try await unsubscribing(request, context) else { return Self.unknownLink }
            return Self.render(
                AskPage(
                    frame: Frame("Stop these e-mails?", viewer: nil),
                    text:
                        "Handoff e-mails \(account.username) when \(topic.about). Stop these e-mails? The notifications stay on the site.",
                    action: SitePath.unsubscribe(token: context.parameters.get("token") ?? "", topic: topic.rawValue)
                        .path, button: "Stop these e-mails"))
        }
        router.anyone(.post, "/unsubscribe/:token") { request, context in
            guard let (account, topic) = try await unsubscribing(request, context) else { return Self.unknownLink }
            try await repository.setMailChoice(account: account.id, topic: topic, mail: false)
            return Self.render(
                MessagePage(
                    "E-mails stopped",
                    "Handoff no longer e-mails \(account.username) when \(topic.about). Signed in, the notifications page turns it back on.",
                    isError: false, link: Link(href: SitePath.notifications().path, label: "Your notifications")))
        }
        router.anyone(.get, "/forgot") { _, _ in
            guard services.configuration.mail != nil else { return Self.noMail }
            return Self.render(
                AskPage(
                    frame: Frame("Forgot your password?", viewer: nil),
                    text:
                        "Give your e-mail address or your name: a link to set a new password goes to your e-mail address.",
                    action: SitePath.forgot.path, button: "Send the link",
                    field: .init(name: "login", label: "E-mail address or name", autocomplete: "username")))
        }
        router.anyone(.post, "/forgot") { request, context in
            guard let mail = services.configuration.mail else { return Self.noMail }
            do {
                try await services.limitResetMails(address: services.clientAddress(request, context))
            } catch let error as StoreError where error.status == .tooManyRequests {
                return Self.message("Too many links asked for", error.message, status: .tooManyRequests)
            }
            let login = (try await Self.form(request, context)["login"] ?? "").trimmingCharacters(in: .whitespaces)
            if !login.isEmpty {
                try await repository.mailPasswordReset(
                    login: login, from: mail.smtp.from, origin: services.origin, now: services.now())
            }
            return Self.render(
                MessagePage(
                    "Look in your e-mail",
                    "If an account here has that address or name, a link to set a new password is on its way to its e-mail address. It works once, for an hour.",
                    isError: false, link: Link(href: SitePath.login().path, label: "Sign in")))
        }
    }

    /// The account and topic of an unsubscribe link; nil for a link the store did not make.
    private func unsubscribing(_ request: Request, _ context: StoreContext) async throws -> (Account, MailTopic)? {
        guard let token = context.parameters.get("token"), token.count == 64,
            let topic = request.uri.queryParameters["topic"].flatMap({ MailTopic(rawValue: String($0)) }),
            let account = try await services.repository.account(mailToken: token)
        else { return nil }
        return (account, topic)
    }

    static var unknownLink: Response {
        message(
            "Not a link this store made", "This unsubscribe link is not one Handoff sent, or it was cut short.",
            status: .notFound)
    }

    static var noMail: Response {
        message(
            "This store sends no e-mail",
            "Ask the store's operator for a link to set a new password (handoff-store account reset-password).",
            status: .notFound, link: Link(href: SitePath.login().path, label: "Sign in"))
    }
}

extension Services {
    /// Reset e-mails asked for from one address are limited, like device codes.
    func limitResetMails(address: String) async throws {
        if let wait = try await repository.countAttempt(
            key: "forgot:\(address)", limit: configuration.devices.codesPerAddress,
            windowSeconds: configuration.devices.windowSeconds, now: now())
        {
            throw StoreError(
                .tooManyRequests, "too_many_resets",
                "too many password links were asked for from your address: try again in \(wait / 60 + 1) minutes",
                retryAfter: Int(wait))
        }
    }
}
