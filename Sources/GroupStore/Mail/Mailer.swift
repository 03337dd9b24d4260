import HandoffModel
import Logging
import ServiceLifecycle

/// Sends the store's e-mail while it runs (issue 35), apart from every request: a request only
/// writes a notification or an outbox row in its own transaction, and this service, every
/// `interval`, turns waiting notifications into messages and hands the due ones to the SMTP
/// server, one connection each. A server that is down, refuses or hangs (each try is bounded by
/// the client's timeout) delays only the mail: a message is tried again after 1, 5, 30 and 120
/// minutes and then given up, its reason kept in the outbox for the operator. Every instance
/// runs one; on PostgreSQL each claims its messages (`FOR UPDATE SKIP LOCKED`).
struct Mailer: Service {
    let repository: StoreRepository
    let configuration: StoreApplication.Configuration.Mail
    /// The store's address, for the links in messages (known once the server listens).
    let origin: @Sendable () -> String
    let now: @Sendable () -> WallInstant
    /// A person's goals, a line each, for their reminder e-mails.
    let goals: @Sendable (Account) async throws -> [String]
    let logger: Logger
    /// Yields once the schema is up to date (nil: it already is).
    let ready: AsyncStream<Void>?

    /// The pauses before each try again, in minutes; after the last, the message is given up.
    static let retries: [Int64] = [1, 5, 30, 120]

    func run() async throws {
        await cancelWhenGracefulShutdown { await self.loop() }
    }

    private func loop() async {
        if let ready {
            var started = ready.makeAsyncIterator()
            guard await started.next() != nil else { return }
        }
        let client = SMTPClient(configuration: configuration.smtp, timeout: configuration.timeout)
        var failing = false
        var rounds = 0
        while !Task.isCancelled {
            do {
                while try await repository.composeMail(from: configuration.smtp.from, origin: origin(), now: now()) > 0,
                    !Task.isCancelled
                {}
                for (account, _) in try await repository.dueReminders(now: now()) {
                    try await remind(account)
                }
                for mail in try await repository.claimMail(now: now(), hold: configuration.timeout * 2) {
                    await send(mail, client)
                }
                if rounds % 3600 == 0 { try await repository.forgetOldMail(now: now()) }
                rounds += 1
                if failing {
                    logger.info("The mailer reads its outbox again")
                    failing = false
                }
            } catch {
                if !Task.isCancelled && !failing {
                    logger.warning(
                        "The mailer cannot read its outbox: e-mail waits, nothing is lost; trying again",
                        metadata: ["error": "\(error)"])
                    failing = true
                }
            }
            try? await Task.sleep(for: configuration.interval)
        }
    }

    /// A reminder's e-mail: the day's and the week's goals as they stand, into the outbox.
    private func remind(_ account: Account) async throws {
        guard MailMessages.deliverable(account.email) else { return }
        let lines = try await goals(account)
        let origin = self.origin()
        let text = """
            Time to run, \(account.username)!

            \((lines.isEmpty ? ["You have no goals set: set one at \(origin + SitePath.goals.path)"] : lines).joined(separator: "\n"))

            --
            You asked Handoff to remind you. Change or remove the reminder: \(origin + SitePath.goals.path)
            """
        try await repository.write { db in
            try await StoreRepository.enqueueMail(
                db, account: account.id, topic: "reminder", to: account.email,
                message: MailMessages.message(
                    from: configuration.smtp.from, to: account.email, subject: "Time to run", text: text,
                    unsubscribe: nil, now: now()), now: now())
        }
    }

    private func send(_ mail: OutboxMail, _ client: SMTPClient) async {
        do {
            try await client.send(OutgoingMail(to: mail.to, data: mail.message))
            try await repository.mailSent(mail.id, now: now())
        } catch {
            let permanent = (error as? SMTPClient.Refused)?.permanent ?? false
            let index = Int(mail.attempts) - 1
            let next: WallInstant? =
                permanent || index >= Self.retries.count
                ? nil : now().advanced(byNanoseconds: Self.retries[index] * 60 * nanosecondsPerSecond)
            logger.warning(
                "An e-mail was not sent: \(next == nil ? "given up" : "it is tried again")",
                metadata: ["mail": "\(mail.id)", "attempt": "\(mail.attempts)", "error": "\(error)"])
            try? await repository.mailFailed(mail.id, next: next, failure: "\(error)")
        }
    }
}
