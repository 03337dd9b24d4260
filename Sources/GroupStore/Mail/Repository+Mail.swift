import Foundation
import HandoffModel

/// A message of the outbox, claimed for one try.
struct OutboxMail: Sendable {
    var id: Int64
    var to: String
    var message: String
    var attempts: Int64
}

extension StoreRepository {
    /// How long a notification may wait for the mailer and still be sent: one older (the mailer
    /// was off, or e-mail was only just set up) is passed by, not sent late.
    static let mailFreshness: Int64 = 3600 * nanosecondsPerSecond

    /// The person's choice for each topic, the default where they made none.
    func mailChoices(account: Int64) async throws -> [MailTopic: Bool] {
        try await read { db in try await Self.mailChoices(db, account: account) }
    }

    static func mailChoices(_ db: any SQLSession, account: Int64) async throws -> [MailTopic: Bool] {
        var choices = Dictionary(uniqueKeysWithValues: MailTopic.allCases.map { ($0, $0.onByDefault) })
        for row in try await db.query("SELECT topic, mail FROM mail_choice WHERE account_id = ?", account) {
            if let topic = MailTopic(rawValue: try row.text("topic")) { choices[topic] = try row.int("mail") != 0 }
        }
        return choices
    }

    func setMailChoice(account: Int64, topic: MailTopic, mail: Bool) async throws {
        try await write { db in
            try await db.query(
                """
                INSERT INTO mail_choice (account_id, topic, mail) VALUES (?, ?, ?)
                ON CONFLICT (account_id, topic) DO UPDATE SET mail = excluded.mail
                """, account, topic.rawValue, Int64(mail ? 1 : 0))
        }
    }

    /// The person's unsubscribe secret, made the first time it is needed.
    static func mailToken(_ db: any SQLSession, account: Int64) async throws -> String {
        if let token = try await db.one("SELECT mail_token FROM account WHERE id = ?", account)?.textOrNil("mail_token")
        {
            return token
        }
        let token = AccountService.randomToken()
        try await db.query("UPDATE account SET mail_token = ? WHERE id = ? AND mail_token IS NULL", token, account)
        return try await db.one("SELECT mail_token FROM account WHERE id = ?", account)?.textOrNil("mail_token")
            ?? token
    }

    /// The account an unsubscribe link is for.
    func account(mailToken token: String) async throws -> Account? {
        try await read { db in
            try await db.one("SELECT \(Self.accountColumns) FROM account WHERE mail_token = ?", token).map(Self.account)
        }
    }

    /// Turns the notifications waiting for the mailer into outbox messages (those whose topic
    /// the person has on, with an address, fresh enough), and marks each one done; returns how
    /// many it looked at (a whole batch: call again).
    func composeMail(from: String, origin: String, now: WallInstant, batch: Int = 100) async throws -> Int {
        try await write { db in
            let rows = try await db.query(
                """
                SELECT \(Self.notificationColumns), notification.account_id AS recipient, recipient.email AS email,
                recipient.username AS recipient_name, recipient.time_zone AS zone FROM notification
                JOIN account AS recipient ON recipient.id = notification.account_id
                LEFT JOIN account AS actor ON actor.id = notification.actor_id
                LEFT JOIN team ON team.id = notification.team_id LEFT JOIN run ON run.id = notification.run_id
                WHERE notification.mail_state = 0 ORDER BY notification.id LIMIT ?
                """, Int64(batch))
            for row in rows {
                let notification = try StoredNotification(row)
                let account = try row.int("recipient")
                let topic = MailTopic(notification.kind)
                let email = try row.text("email")
                let fresh = now.nanosecondsSinceEpoch - notification.created.nanosecondsSinceEpoch <= Self.mailFreshness
                let wanted = try await Self.mailChoices(db, account: account)[topic] ?? false
                guard fresh, wanted, MailMessages.deliverable(email) else {
                    try await db.query("UPDATE notification SET mail_state = 2 WHERE id = ?", notification.id)
                    continue
                }
                let (text, page) = notification.worded(zone: try row.textOrNil("zone") ?? "UTC")
                let mail = MailMessages.notification(
                    text, page: page, topic: topic, username: try row.text("recipient_name"), origin: origin,
                    token: try await Self.mailToken(db, account: account))
                try await Self.enqueueMail(
                    db, account: account, topic: topic.rawValue, to: email,
                    message: MailMessages.message(
                        from: from, to: email, subject: mail.subject, text: mail.text, unsubscribe: mail.unsubscribe,
                        now: now), now: now)
                try await db.query("UPDATE notification SET mail_state = 1 WHERE id = ?", notification.id)
            }
            return rows.count
        }
    }

    static func enqueueMail(
        _ db: any SQLSession, account: Int64?, topic: String, to: String, message: String, now: WallInstant
    ) async throws {
        try await db.query(
            """
            INSERT INTO mail_outbox (account_id, topic, to_address, message, created_ns, next_ns)
            VALUES (?, ?, ?, ?, ?, ?)
            """, account, topic, to, message, now.nanosecondsSinceEpoch, now.nanosecondsSinceEpoch)
    }

    /// Claims up to `batch` messages that are due: each is put off by `hold` first, so another
    /// instance (or this one, should it stop mid-send) tries it again only after that.
    func claimMail(now: WallInstant, hold: Duration, batch: Int = 10) async throws -> [OutboxMail] {
        let held = now.advanced(byNanoseconds: min(hold.components.seconds, 86_400) * nanosecondsPerSecond)
        return try await write { db in
            let lock = db is PostgresSession ? "FOR UPDATE SKIP LOCKED" : ""
            return try await db.query(
                """
                UPDATE mail_outbox SET next_ns = ?, attempts = attempts + 1 WHERE id IN (
                    SELECT id FROM mail_outbox WHERE sent_ns IS NULL AND next_ns <= ? ORDER BY next_ns, id LIMIT ? \(lock))
                RETURNING id, to_address, message, attempts
                """, held.nanosecondsSinceEpoch, now.nanosecondsSinceEpoch, Int64(batch)
            ).map {
                OutboxMail(
                    id: try $0.int("id"), to: try $0.text("to_address"), message: try $0.text("message"),
                    attempts: try $0.int("attempts"))
            }
        }
    }

    func mailSent(_ id: Int64, now: WallInstant) async throws {
        try await write { db in
            try await db.query(
                "UPDATE mail_outbox SET sent_ns = ?, failure = NULL WHERE id = ?", now.nanosecondsSinceEpoch, id)
        }
    }

    /// A try failed: again at `next`, or never (nil), with why.
    func mailFailed(_ id: Int64, next: WallInstant?, failure: String) async throws {
        try await write { db in
            try await db.query(
                "UPDATE mail_outbox SET next_ns = ?, failure = ? WHERE id = ?",
                next?.nanosecondsSinceEpoch ?? Int64.max, String(failure.prefix(500)), id)
        }
    }

    /// Sent messages are kept a week (what was sent, for the operator), then deleted; so are the
    /// ones given up on.
    func forgetOldMail(now: WallInstant) async throws {
        let week = now.advanced(byNanoseconds: -7 * 86_400 * nanosecondsPerSecond).nanosecondsSinceEpoch
        try await write { db in
            try await db.query(
                "DELETE FROM mail_outbox WHERE (sent_ns IS NOT NULL OR next_ns = ?) AND created_ns < ?", Int64.max,
                week)
        }
    }
}

extension StoreRepository {
    /// Reset e-mails an account may be sent an hour: asking again and again mails no one more.
    static let resetMailsPerHour: Int64 = 3

    /// "Forgot your password": when `login` (an e-mail address or a name) is an account's, and it
    /// has had fewer than `resetMailsPerHour` reset e-mails in the last hour, a one-time link
    /// valid for an hour goes into the outbox to its address. Whatever the case, the caller
    /// learns nothing of it: the answer is the same.
    func mailPasswordReset(login: String, from: String, origin: String, now: WallInstant) async throws {
        guard let account = try await account(login: login), MailMessages.deliverable(account.email) else { return }
        let hourAgo = now.advanced(byNanoseconds: -3600 * nanosecondsPerSecond).nanosecondsSinceEpoch
        let recent = try await read { db in
            try await db.one(
                """
                SELECT count(*) AS n FROM mail_outbox WHERE account_id = ? AND topic = 'password_reset' AND created_ns > ?
                """, account.id, hourAgo)?.int("n") ?? 0
        }
        guard recent < Self.resetMailsPerHour else { return }
        let token = try await issuePasswordReset(username: account.username, now: now, lifetimeSeconds: 3600)
        let mail = MailMessages.reset(
            username: account.username, link: origin + SitePath.reset(token).path, hours: 1)
        try await write { db in
            try await Self.enqueueMail(
                db, account: account.id, topic: "password_reset", to: account.email,
                message: MailMessages.message(
                    from: from, to: account.email, subject: mail.subject, text: mail.text, unsubscribe: nil, now: now),
                now: now)
        }
    }
}
