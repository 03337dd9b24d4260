import Foundation
import HandoffModel
import Hummingbird

/// The reminder's form on the goals page: a box per weekday, the time, e-mail (when the store
/// sends it), and, once set, the calendar feed's address and a button that removes it.
struct ReminderForm: Sendable, Equatable {
    var action = SitePath.reminder.path
    var days: [Day]
    var time: String
    /// nil when the store sends no e-mail.
    var mail: MailBox?
    /// The private calendar feed, once a reminder is set.
    var calendar: String?
    var delete: String?

    struct MailBox: Sendable, Equatable {
        var on: Bool
    }

    struct Day: Sendable, Equatable {
        var name: String
        var label: String
        var on: Bool
    }

    init(_ reminder: Reminder?, mailing: Bool, origin: String) {
        days = Reminder.dayNames.enumerated().map { index, label in
            Day(name: "d\(index + 1)", label: label, on: reminder?.days.contains(index + 1) ?? false)
        }
        time = reminder?.time ?? "07:00"
        mail = mailing ? MailBox(on: reminder?.mail ?? true) : nil
        calendar = reminder.map { origin + SitePath.calendar(key: $0.calendarKey).path }
        delete = reminder == nil ? nil : SitePath.reminderDelete.path
    }

    /// The days and minute a posted form asks for.
    static func parse(_ form: [String: String]) throws(StoreError) -> (days: Set<Int>, minute: Int) {
        let days = Set((1...7).filter { form["d\($0)"] == "on" })
        guard !days.isEmpty else {
            throw StoreError(.unprocessableContent, "invalid_reminder", "choose at least one day to be reminded on")
        }
        let parts = (form["time"] ?? "").split(separator: ":").map { Int($0) }
        guard parts.count == 2, let hour = parts[0], let minute = parts[1], (0..<24).contains(hour),
            (0..<60).contains(minute)
        else {
            throw StoreError(.unprocessableContent, "invalid_reminder", "the time is hours and minutes, such as 07:30")
        }
        return (days, hour * 60 + minute)
    }
}

extension WebPages {
    func registerReminderPages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.post, "/me/reminder", next: { _ in SitePath.goals.path }) { request, context, account in
            let form = try await Self.form(request, context)
            let parsed: (days: Set<Int>, minute: Int)
            do throws(StoreError) {
                parsed = try ReminderForm.parse(form)
            } catch {
                return Self.message(
                    "Not a reminder", error.message, status: .unprocessableContent, account: account,
                    link: Link(href: SitePath.goals.path, label: "Back to your goals"))
            }
            let mail = services.configuration.mail != nil && form["mail"] == "on"
            let reminder = Reminder(days: parsed.days, minute: parsed.minute, mail: mail, calendarKey: "")
            try await repository.setReminder(
                account: account.id, days: parsed.days, minute: parsed.minute, mail: mail,
                next: mail ? reminder.next(after: services.now(), zone: account.timeZone) : nil)
            return Self.redirect(.goals)
        }
        router.signedIn(.post, "/me/reminder/delete", next: { _ in SitePath.goals.path }) { _, _, account in
            try await repository.deleteReminder(account: account.id)
            return Self.redirect(.goals)
        }
        // The calendar feed: its key (a phone's calendar has no cookie), else the session's.
        router.anyone(.get, "/me/calendar.ics") { request, _ in
            var found: (Account, Reminder)?
            if let key = request.uri.queryParameters["key"].map(String.init) {
                found = key.count == 64 ? try await repository.reminder(calendarKey: key) : nil
            } else if let account = try await signedIn(request),
                let reminder = try await repository.reminder(account: account.id)
            {
                found = (account, reminder)
            }
            guard let (account, reminder) = found else {
                return Self.message(
                    "No such calendar",
                    "This calendar address is not one this store made, or its reminder was removed: the goals page shows the address of yours.",
                    status: .notFound)
            }
            let feed = CalendarFeed.ics(
                reminder: reminder, account: account, progress: try await services.goalLines(account),
                origin: services.origin, now: services.now())
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/calendar; charset=utf-8", .cacheControl: "private, max-age=3600",
                    .contentDisposition: "inline; filename=\"handoff.ics\"",
                ], body: .init(byteBuffer: ByteBuffer(string: feed)))
        }
    }
}

extension Services {
    /// Each of the person's goals in a line: "Weekly distance: 12.4 of 20.0 km".
    func goalLines(_ account: Account) async throws -> [String] {
        try await goalProgress(account, viewer: account.id, now: now()).map { progress in
            let card = GoalCard(progress, units: Reader(account).units, owner: nil)
            return "\(card.title): \(card.amount)"
        }
    }
}
