import Foundation
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import TestSupport
import Testing

@testable import GroupStore

/// A person's reminder to run (issue 35): their calendar feed, read back by PyPI's icalendar (an
/// independent reader, scripts/oracles/ics_oracle.py), and the reminder e-mail.
@Suite("Reminders and the calendar feed")
struct ReminderTests {
    /// What icalendar reads in the feed.
    struct Read: Decodable {
        struct Event: Decodable {
            var uid: String
            var summary: String
            var description: String
            var start: String
            var tzid: String?
            var weekday: Int
            var freq: [String]?
            var byday: [String]?
            var durationS: Double?
            var alarms: [Alarm]
            var tzAgrees: Bool?
            enum CodingKeys: String, CodingKey {
                case uid, summary, description, start, tzid, weekday, freq, byday, alarms
                case durationS = "duration_s"
                case tzAgrees = "tz_agrees"
            }
        }
        struct Alarm: Decodable, Equatable {
            var action: String
            var triggerS: Double
            enum CodingKeys: String, CodingKey {
                case action
                case triggerS = "trigger_s"
            }
        }
        var name: String
        var version: String
        var events: [Event]
        var missingTzids: [String]
        var longLines: [Int]
        var bareNewlines: Int
        enum CodingKeys: String, CodingKey {
            case name, version, events
            case missingTzids = "missing_tzids"
            case longLines = "long_lines"
            case bareNewlines = "bare_newlines"
        }
    }

    static func read(_ ics: String) async throws -> Read {
        let result = try await runProcessAsync(
            (programOnPath("python3") ?? URL(fileURLWithPath: "/usr/bin/python3")),
            [Fixtures.repositoryRoot.appendingPathComponent("scripts/oracles/ics_oracle.py").path], stdin: ics)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode(Read.self, from: Data(result.stdout.utf8))
    }

    static var runnable: Bool {
        let found = try? runProcess(
            (programOnPath("python3") ?? URL(fileURLWithPath: "/usr/bin/python3")), ["-c", "import icalendar"])
        return found?.status == 0 || SystemPrograms.required
    }

    @Test(
        "the feed, by its key: a weekly event on the chosen days at the local time (its VTIMEZONE agreeing with zoneinfo), an alarm, the goals; 404 for another key and once removed",
        .enabled(if: ReminderTests.runnable, "needs icalendar (scripts/setup --test)"), arguments: Backend.available)
    func calendar(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            _ = try await client.signUp("bob")
            let cookie = try await client.webSignIn("ada").cookie
            let bobCookie = try await client.webSignIn("bob").cookie
            _ = try await AccountPageTests.post(
                client, "/settings/preferences", ["units": "km", "zone": "Europe/Paris"], cookie: cookie)
            let goal = try await client.call(
                .post, "/v1/me/goals", token: ada,
                send: GoalSet(period: "week", measure: "distance", sport: nil, target: 20_000))
            #expect(goal.status == .created || goal.status == .ok, "\(goal.text)")
            #expect(try await client.call(.get, "/me/calendar.ics", headers: [.cookie: cookie]).status == .notFound)

            let none = try await AccountPageTests.post(client, "/me/reminder", ["time": "07:30"], cookie: cookie)
            #expect(none.status == .unprocessableContent && none.text.contains("choose at least one day"))
            let late = try await AccountPageTests.post(
                client, "/me/reminder", ["d1": "on", "time": "25:00"], cookie: cookie)
            #expect(late.status == .unprocessableContent)
            let set = try await AccountPageTests.post(
                client, "/me/reminder", ["d1": "on", "d3": "on", "d5": "on", "time": "07:30"], cookie: cookie)
            #expect(set.status == .seeOther && set.headers[.location] == "/me/goals")
            let page = try await client.call(.get, "/me/goals", headers: [.cookie: cookie]).text
            #expect(
                page.contains(#"name="d3" checked"#) && page.contains(#"name="d2">"#)
                    && page.contains(#"value="07:30""#))
            let address = try #require(
                page.range(of: #"/me/calendar.ics?key="#).map { range in
                    String(page[range.lowerBound...].prefix { $0 != "\"" })
                })
            let feed = try await client.call(.get, address)
            #expect(feed.status == .ok && feed.headers[.contentType] == "text/calendar; charset=utf-8")
            let read = try await Self.read(feed.text)
            #expect(read.version == "2.0" && read.name == "Handoff: time to run")
            #expect(read.missingTzids.isEmpty && read.longLines.isEmpty && read.bareNewlines == 0)
            let event = try #require(read.events.first)
            #expect(read.events.count == 1)
            #expect(event.tzid == "Europe/Paris" && event.tzAgrees == true, "\(event)")
            #expect(event.freq == ["WEEKLY"] && event.byday == ["MO", "WE", "FR"])
            #expect([1, 3, 5].contains(event.weekday) && event.start.contains("T07:30:00+0"), "\(event.start)")
            #expect(event.durationS == 3600 && event.alarms == [Read.Alarm(action: "DISPLAY", triggerS: -900)])
            #expect(event.description.hasPrefix("Weekly distance: 0.0 km of 20.0 km"), "\(event.description)")
            #expect(event.summary == "Run (Handoff)")

            // Signed in, without the key; another key, bob's cookie, a removed reminder: 404.
            #expect(try await client.call(.get, "/me/calendar.ics", headers: [.cookie: cookie]).status == .ok)
            #expect(try await client.call(.get, "/me/calendar.ics", headers: [.cookie: bobCookie]).status == .notFound)
            let forged = address.dropLast(4) + "0000"
            #expect(try await client.call(.get, String(forged)).status == .notFound)
            // Changing the reminder keeps the address; removing it ends it.
            _ = try await AccountPageTests.post(client, "/me/reminder", ["d7": "on", "time": "18:05"], cookie: cookie)
            let changed = try await Self.read(try await client.call(.get, address).text)
            #expect(changed.events.first?.byday == ["SU"] && changed.events.first?.start.contains("T18:05:00") == true)
            let removed = try await AccountPageTests.post(client, "/me/reminder/delete", [:], cookie: cookie)
            #expect(removed.status == .seeOther)
            #expect(try await client.call(.get, address).status == .notFound)
        }
    }

    @Test("in UTC, the event is in UTC with no time zone of its own")
    func utc() async throws {
        let account = Account(
            id: 9, email: "a@example.org", username: "ada", passwordHash: "x",
            created: WallInstant(nanosecondsSinceEpoch: 0))
        let reminder = Reminder(days: [2, 6], minute: 6 * 60 + 5, mail: false, calendarKey: "k")
        let now = WallInstant(secondsSinceEpoch: 1_795_621_752)
        let ics = CalendarFeed.ics(reminder: reminder, account: account, progress: [], origin: "http://s", now: now)
        #expect(!ics.contains("VTIMEZONE"))
        let read = try await Self.read(ics)
        #expect(
            read.events.first?.start.hasSuffix("T06:05:00+00:00") == true && read.events.first?.byday == ["TU", "SA"])
        #expect(CalendarFeed.text("a,b;c\\d\ne") == "a\\,b\\;c\\\\d\\ne")
        let long = CalendarFeed.fold(String(repeating: "é", count: 100))
        #expect(long.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 75 })
    }

    @Test(
        "the reminder's e-mail comes at its time, with the goals as they stand, once", .enabled(if: SMTPSink.runnable))
    func reminderMail() async throws {
        let sink = try await SMTPSink.start()
        defer { sink.stop() }
        var live = try StoreHarness(.sqlite, transport: .live)
        live.configuration.mail = try sink.mail()
        let harness = live
        harness.clock.freeze(at: WallInstant(secondsSinceEpoch: 1_795_600_000))
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let cleo = try await client.signUp("cleo")
            let cookie = try await client.webSignIn("ada").cookie
            _ = try await client.call(
                .post, "/v1/me/goals", token: ada,
                send: GoalSet(period: "week", measure: "distance", sport: nil, target: 20_000))
            // Every day, two minutes from now (UTC).
            let civil = CivilTime(harness.clock.now)
            let minute = (civil.hour * 60 + civil.minute + 2) % 1440
            var fields = Dictionary(uniqueKeysWithValues: (1...7).map { ("d\($0)", "on") })
            fields["time"] = String(format: "%02d:%02d", minute / 60, minute % 60)
            fields["mail"] = "on"
            #expect(try await AccountPageTests.post(client, "/me/reminder", fields, cookie: cookie).status == .seeOther)
            // A probe: bob's ask is mailed by a later round of the mailer, which found no reminder due.
            #expect(
                try await client.call(.post, "/v1/friends", token: bob, send: FriendAsk(username: "ada")).status == .ok)
            #expect(try await sink.waitFor(1).map { $0.header("Subject") } == ["bob asks to be your friend."])
            harness.clock.freeze(at: harness.clock.now.advanced(byNanoseconds: 180 * nanosecondsPerSecond))
            let mail = try #require(try await sink.waitFor(2).last)
            #expect(mail.header("Subject") == "Time to run" && mail.rcptTos == ["ada@example.org"])
            #expect(mail.text?.contains("Weekly distance: 0.0 km of 20.0 km") == true, "\(mail.text ?? "")")
            // Once: the next is tomorrow. cleo's ask, mailed after, is the next message.
            #expect(
                try await client.call(.post, "/v1/friends", token: cleo, send: FriendAsk(username: "ada")).status == .ok
            )
            #expect(try await sink.waitFor(3).map { $0.header("Subject") ?? "" }.last == "cleo asks to be your friend.")
            #expect(sink.messages.count == 3)
        }
    }
}
