import Foundation
import HandoffModel

/// A person's reminder to run (issue 35): the days of the week and the local time, whether it
/// comes by e-mail too, and the secret of their calendar feed (`/me/calendar.ics?key=`).
struct Reminder: Sendable, Equatable {
    /// ISO weekdays, 1 Monday to 7 Sunday.
    var days: Set<Int>
    /// Minutes after local midnight.
    var minute: Int
    var mail: Bool
    var calendarKey: String

    static let dayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// "07:30".
    var time: String { String(format: "%02d:%02d", minute / 60, minute % 60) }

    /// The first instant after `after` that is one of `days` at `minute`, in `zone` (an IANA
    /// name; UTC when Foundation does not know it). A time a clock change skips is taken as
    /// Foundation's calendar takes it (the next valid instant).
    func next(after: WallInstant, zone: String) -> WallInstant? {
        guard !days.isEmpty else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone) ?? TimeZone(identifier: "UTC")!
        let from = Date(timeIntervalSince1970: Double(after.nanosecondsSinceEpoch) / 1e9)
        let today = calendar.startOfDay(for: from)
        for offset in 0...7 {
            guard let day = calendar.date(byAdding: .day, value: offset, to: today),
                days.contains(Self.isoWeekday(calendar.component(.weekday, from: day))),
                let at = calendar.date(bySettingHour: minute / 60, minute: minute % 60, second: 0, of: day),
                at > from
            else { continue }
            return WallInstant(secondsSinceEpoch: at.timeIntervalSince1970)
        }
        return nil
    }

    /// Foundation's weekday (1 Sunday) as ISO's (1 Monday).
    static func isoWeekday(_ weekday: Int) -> Int { (weekday + 5) % 7 + 1 }
}

extension StoreRepository {
    func reminder(account: Int64) async throws -> Reminder? {
        try await read { db in
            try await db.one("SELECT * FROM reminder WHERE account_id = ?", account).map(Self.reminder)
        }
    }

    static func reminder(_ row: SQLRow) throws -> Reminder {
        Reminder(
            days: Set(try row.text("days").split(separator: ",").compactMap { Int($0) }),
            minute: Int(try row.int("minute")), mail: try row.int("mail") != 0,
            calendarKey: try row.text("calendar_key"))
    }

    /// Sets the person's reminder (its calendar key kept when there was one); `next` is when its
    /// next e-mail is due (nil: none).
    func setReminder(account: Int64, days: Set<Int>, minute: Int, mail: Bool, next: WallInstant?) async throws {
        try await write { db in
            try await db.query(
                """
                INSERT INTO reminder (account_id, days, minute, mail, next_ns, calendar_key) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (account_id) DO UPDATE SET days = excluded.days, minute = excluded.minute,
                mail = excluded.mail, next_ns = excluded.next_ns
                """, account, days.sorted().map(String.init).joined(separator: ","), Int64(minute), Int64(mail ? 1 : 0),
                next?.nanosecondsSinceEpoch, AccountService.randomToken())
        }
    }

    func deleteReminder(account: Int64) async throws {
        try await write { db in try await db.query("DELETE FROM reminder WHERE account_id = ?", account) }
    }

    /// The account a calendar feed's key is for, with its reminder.
    func reminder(calendarKey key: String) async throws -> (Account, Reminder)? {
        try await read { db in
            guard let row = try await db.one("SELECT * FROM reminder WHERE calendar_key = ?", key),
                let account = try await db.one(
                    "SELECT \(Self.accountColumns) FROM account WHERE id = ?", try row.int("account_id")
                ).map(Self.account)
            else { return nil }
            return (account, try Self.reminder(row))
        }
    }

    /// The reminders whose e-mail is due, with their people; each is moved on to its next time
    /// in the same transaction, so it is sent once however many instances look.
    func dueReminders(now: WallInstant, batch: Int = 50) async throws -> [(Account, Reminder)] {
        try await write { db in
            var due: [(Account, Reminder)] = []
            let lock = db is PostgresSession ? "FOR UPDATE SKIP LOCKED" : ""
            for row in try await db.query(
                "SELECT * FROM reminder WHERE next_ns <= ? ORDER BY next_ns LIMIT ? \(lock)", now.nanosecondsSinceEpoch,
                Int64(batch))
            {
                let reminder = try Self.reminder(row)
                guard
                    let account = try await db.one(
                        "SELECT \(Self.accountColumns) FROM account WHERE id = ?", try row.int("account_id")
                    ).map(Self.account)
                else { continue }
                let next = reminder.mail ? reminder.next(after: now, zone: account.timeZone) : nil
                try await db.query(
                    "UPDATE reminder SET next_ns = ? WHERE account_id = ?", next?.nanosecondsSinceEpoch, account.id)
                due.append((account, reminder))
            }
            return due
        }
    }
}
