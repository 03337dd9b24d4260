import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import TestSupport
import Testing

@testable import GroupStore

/// The settings' and the group forms' routes: statuses, redirects, cookies and what they change.
@Suite("Settings and group forms")
struct SettingsPageTests {
    @Test(
        "Settings: units and time zone apply to every page; username, email and password change with the password asked; the export is a zip; deleting asks",
        arguments: Backend.available)
    func settings(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            #expect(
                try await client.upload(ada, uuid: UUID().uuidString, file: RunFiles.fit(start: start)).status
                    == .created)
            _ = try await client.createGroup(ada, name: "Night owls")
            let cookie = try await client.webSignIn("ada").cookie
            #expect(try await client.call(.get, "/settings", headers: [.cookie: cookie]).status == .ok)
            #expect(try await client.call(.get, "/settings").status == .seeOther)

            let saved = try await AccountPageTests.post(
                client, "/settings/preferences", ["units": "mi", "zone": "America/New_York", "next": "/settings"],
                cookie: cookie)
            #expect(saved.status == .seeOther && saved.headers[.location] == "/settings?done=preferences")
            let runs = try await client.call(.get, "/runs", headers: [.cookie: cookie]).text
            #expect(
                runs.contains(" mi<") && ["EST<", "EDT<", "GMT-5<", "GMT-4<"].contains { runs.contains(" " + $0) },
                "miles and New York time")
            let bad = try await AccountPageTests.post(
                client, "/settings/preferences", ["units": "furlongs", "zone": "Mars/Olympus"], cookie: cookie)
            #expect(bad.status == .unprocessableContent)

            // The maximum heart rate: the zones on every run's page are shares of it.
            let run = try #require(
                try await client.call(.get, "/v1/runs", token: ada).decode(RunList.self).runs.first?.uuid)
            let before = try await client.call(.get, "/runs/\(run)", headers: [.cookie: cookie]).text
            #expect(before.contains("shares of this run&#39;s highest heart rate, 150 bpm"))
            for wrong in ["99", "231", "fast", "180.5"] {
                let refused = try await AccountPageTests.post(
                    client, "/settings/heart-rate", ["maximum": wrong], cookie: cookie)
                #expect(
                    refused.status == .unprocessableContent && refused.text.contains("value=\"\(wrong)\""), "\(wrong)")
            }
            let heart = try await AccountPageTests.post(
                client, "/settings/heart-rate", ["maximum": "190"], cookie: cookie)
            #expect(heart.status == .seeOther && heart.headers[.location] == "/settings?done=heart-rate")
            #expect(try await client.call(.get, "/settings", headers: [.cookie: cookie]).text.contains("value=\"190\""))
            let after = try await client.call(.get, "/runs/\(run)", headers: [.cookie: cookie]).text
            #expect(
                after.contains("shares of your maximum heart rate, 190 bpm") && after.contains("zone 3: 133–152 bpm"))

            let noPassword = try await AccountPageTests.post(
                client, "/settings/account", ["username": "ada", "email": "ada@new.example.org"], cookie: cookie)
            #expect(noPassword.status == .forbidden)
            let renamed = try await AccountPageTests.post(
                client, "/settings/account",
                ["username": "ada2", "email": "ada@new.example.org", "current_password": "correct horse battery"],
                cookie: cookie)
            #expect(renamed.status == .seeOther && renamed.headers[.location] == "/settings?done=account")
            let me = try await client.call(.get, "/v1/me", token: ada)
            #expect(me.json["username"] as? String == "ada2" && me.json["email"] as? String == "ada@new.example.org")

            _ = try await AccountPageTests.post(
                client, "/settings/profile", ["nickname": "Ada", "nickname_visibility": "public"], cookie: cookie)
            _ = try await client.call(.post, "/v1/runs/\(run)/comments", token: ada, json: ["text": "Felt easy"])
            _ = try await client.call(
                .post, "/v1/me/goals", token: ada, send: GoalSet(period: "day", measure: "steps", target: 9_000))
            let export = try await client.call(.get, "/settings/export", headers: [.cookie: cookie])
            #expect(export.status == .ok && export.headers[.contentType] == "application/zip")
            let names = ZipReading.names(Array(export.body))
            // Python's zipfile reads it and checks every entry's CRC-32.
            let zipped = try TemporaryDirectory()
            defer { zipped.remove() }
            try export.body.write(to: zipped.file("export.zip"))
            let checked = try await runProcessAsync(
                URL(fileURLWithPath: "/usr/bin/env"),
                ["python3", "-m", "zipfile", "-t", zipped.file("export.zip").path])
            #expect(
                checked.status == 0 && checked.stdout.contains("Done testing"), "\(checked.stdout)\(checked.stderr)")
            #expect(names.contains("account.json") && names.contains("groups.json"))
            #expect(names.filter { $0.hasPrefix("runs/") && $0.hasSuffix(".fit") }.count == 1)
            #expect(names.filter { $0.hasPrefix("runs/") && $0.hasSuffix(".gpx") }.count == 1)
            let account = try await runProcessAsync(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "python3", "-c",
                    "import json, sys, zipfile; a = json.load(zipfile.ZipFile(sys.argv[1]).open('account.json')); print(a['max_heart_rate_bpm'], a['new_runs_visibility'], a['runs'][0]['visibility'], len(a['friends']), a['profile']['nickname']['visibility'], a['comments'][0]['text'], *[g[k] for g in a['goals'] for k in ('period', 'measure', 'sport')], float(a['goals'][0]['target']))",
                    zipped.file("export.zip").path,
                ])
            #expect(
                account.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    == "190 groups groups 0 public Felt easy day steps all 9000.0",
                "\(account.stderr)")
            // Cleared: each run's own highest again.
            _ = try await AccountPageTests.post(client, "/settings/heart-rate", ["maximum": ""], cookie: cookie)
            #expect(
                try await client.call(.get, "/runs/\(run)", headers: [.cookie: cookie]).text.contains(
                    "this run&#39;s highest"))

            let changed = try await AccountPageTests.post(
                client, "/settings/password",
                ["current_password": "correct horse battery", "password": "another long password"],
                cookie: cookie)
            #expect(changed.status == .seeOther)
            #expect(try await client.call(.get, "/v1/me", token: ada).status == .unauthorized, "other sessions ended")
            #expect(try await client.call(.get, "/settings", headers: [.cookie: cookie]).status == .ok, "this one kept")

            let unconfirmed = try await AccountPageTests.post(
                client, "/settings/delete", ["password": "another long password"], cookie: cookie)
            #expect(unconfirmed.status == .unprocessableContent)
            let wrong = try await AccountPageTests.post(
                client, "/settings/delete", ["password": "not the password", "confirm": "1"], cookie: cookie)
            #expect(wrong.status == .forbidden)
            let deleted = try await AccountPageTests.post(
                client, "/settings/delete", ["password": "another long password", "confirm": "1"], cookie: cookie)
            #expect(deleted.status == .ok && deleted.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await client.call(.get, "/settings", headers: [.cookie: cookie]).status == .seeOther)
        }
    }

    @Test(
        "Groups from forms: create in the person's units, the owner edits and removes, a member leaves",
        arguments: Backend.available)
    func groupForms(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let adaCookie = try await client.webSignIn("ada").cookie
            let bobCookie = try await client.webSignIn("bob").cookie
            #expect(try await client.call(.get, "/groups/new", headers: [.cookie: adaCookie]).status == .ok)
            let made = try await AccountPageTests.post(
                client, "/groups/new", ["name": "Night owls", "goal": "100", "lease": "6", "deadline": "2099-12-31"],
                cookie: adaCookie)
            #expect(made.status == .seeOther)
            let id = try #require(made.headers[.location].flatMap { Int($0.split(separator: "/").last ?? "") })
            let group = try await client.call(.get, "/v1/groups/\(id)", token: ada)
            #expect(group.json["goal_m"] as? Double == 100_000)
            let invalid = try await AccountPageTests.post(
                client, "/groups/new", ["name": "x", "goal": "-1", "lease": "6"], cookie: adaCookie)
            #expect(invalid.status == .unprocessableContent && invalid.text.contains("value=\"-1\""))

            let invite = try #require(group.json["invite_code"] as? String)
            try await client.join(bob, invite)
            let edited = try await AccountPageTests.post(
                client, "/groups/\(id)/edit", ["name": "Early birds", "goal": "50", "lease": "2", "auto_pass": "1"],
                cookie: adaCookie)
            #expect(edited.status == .seeOther && edited.headers[.location] == "/groups/\(id)")
            let after = try await client.call(.get, "/v1/groups/\(id)", token: ada)
            #expect(after.json["name"] as? String == "Early birds" && after.json["goal_m"] as? Double == 50_000)
            // In miles the form shows 50 km as 31.07: saved unchanged, the goal stays 50 km exactly,
            // and a deadline that has passed since does not stop a rename.
            let deadline = iso(harness.clock.now.advanced(byNanoseconds: 3_600 * nanosecondsPerSecond))
            #expect(
                try await client.call(.patch, "/v1/groups/\(id)", token: ada, json: ["deadline": deadline]).status
                    == .ok)
            harness.clock.advance(seconds: 2 * 3_600)
            _ = try await AccountPageTests.post(
                client, "/settings/preferences", ["units": "mi", "zone": "Europe/Vienna"], cookie: adaCookie)
            let form = try await client.call(.get, "/groups/\(id)", headers: [.cookie: adaCookie]).text
            let shownDeadline = GroupForm.localDate(try #require(WallInstant(iso8601: deadline)), zone: "Europe/Vienna")
            #expect(form.contains("value=\"31.07\"") && form.contains("value=\"\(shownDeadline)\""))
            let renamed = try await AccountPageTests.post(
                client, "/groups/\(id)/edit",
                ["name": "Night owls", "goal": "31.07", "lease": "2", "deadline": shownDeadline, "auto_pass": "1"],
                cookie: adaCookie)
            #expect(renamed.status == .seeOther, "\(renamed.text)")
            let kept = try await client.call(.get, "/v1/groups/\(id)", token: ada)
            #expect(kept.json["name"] as? String == "Night owls" && kept.json["goal_m"] as? Double == 50_000)
            #expect(kept.json["deadline"] as? String == deadline)
            let pastDeadline = try await AccountPageTests.post(
                client, "/groups/\(id)/edit",
                ["name": "Night owls", "goal": "31.07", "lease": "2", "deadline": "2020-01-01"],
                cookie: adaCookie)
            #expect(
                pastDeadline.status == .unprocessableContent && pastDeadline.text.contains("has passed"),
                "a new deadline is checked")
            _ = try await AccountPageTests.post(
                client, "/settings/preferences", ["units": "km", "zone": "UTC"], cookie: adaCookie)
            let notOwner = try await AccountPageTests.post(
                client, "/groups/\(id)/edit", ["name": "Mine", "goal": "1", "lease": "1"], cookie: bobCookie)
            #expect(notOwner.status == .forbidden || notOwner.status == .notFound)

            let bobID = try #require(try await client.call(.get, "/v1/me", token: bob).json["id"] as? Int)
            // The rotation: ada then bob, by joining; the owner moves bob earlier, then later again.
            func rotation() async throws -> [String] {
                try await client.call(.get, "/v1/groups/\(id)/members?order=rotation", token: ada).decode(
                    MemberPage.self
                )
                .members.map(\.username)
            }
            #expect(try await rotation() == ["ada", "bob"])
            let moved = try await client.call(
                .post, "/groups/\(id)/rotation/\(bobID)/earlier", headers: [.cookie: adaCookie])
            #expect(moved.status == .seeOther && moved.headers[.location] == "/groups/\(id)")
            #expect(try await rotation() == ["bob", "ada"])
            #expect(
                try await client.call(.post, "/groups/\(id)/rotation/\(bobID)/earlier", headers: [.cookie: adaCookie])
                    .status == .seeOther, "already first: nothing changes")
            #expect(try await rotation() == ["bob", "ada"])
            #expect(
                try await client.call(.post, "/groups/\(id)/rotation/\(bobID)/later", headers: [.cookie: bobCookie])
                    .status == .forbidden, "only the owner")
            #expect(
                try await client.call(.post, "/groups/\(id)/rotation/\(bobID)/later", headers: [.cookie: adaCookie])
                    .status == .seeOther)
            #expect(try await rotation() == ["ada", "bob"])
            let removed = try await client.call(
                .post, "/groups/\(id)/members/\(bobID)/remove", headers: [.cookie: adaCookie])
            #expect(removed.status == .seeOther && removed.headers[.location] == "/groups/\(id)")
            #expect(try await client.call(.get, "/v1/groups/\(id)", token: bob).status == .notFound)
            // The removed runner's invite link no longer works: the group has a new one.
            #expect(
                try await client.call(.post, "/v1/groups/join", token: bob, json: ["invite_code": invite]).status
                    == .notFound)
            #expect(try await client.call(.get, "/join/\(invite)", headers: [.cookie: bobCookie]).status == .notFound)
            let renewed = try #require(
                try await client.call(.get, "/v1/groups/\(id)", token: ada).json["invite_code"] as? String)
            #expect(renewed != invite)
            // The owner asks for a new link: the old one stops; a member may not.
            let page = try await client.call(.get, "/groups/\(id)", headers: [.cookie: adaCookie]).text
            #expect(page.contains("/join/\(renewed)") && page.contains("action=\"/groups/\(id)/invite\""))
            let fresh = try await client.call(.post, "/groups/\(id)/invite", headers: [.cookie: adaCookie])
            #expect(fresh.status == .seeOther && fresh.headers[.location] == "/groups/\(id)")
            let newest = try #require(
                try await client.call(.get, "/v1/groups/\(id)", token: ada).json["invite_code"] as? String)
            #expect(newest != renewed)
            #expect(try await client.call(.get, "/join/\(renewed)", headers: [.cookie: bobCookie]).status == .notFound)
            try await client.join(bob, newest)
            #expect(
                try await client.call(.post, "/groups/\(id)/invite", headers: [.cookie: bobCookie]).status == .forbidden
            )
            let memberPage = try await client.call(.get, "/groups/\(id)", headers: [.cookie: bobCookie]).text
            #expect(memberPage.contains("/join/\(newest)") && !memberPage.contains("/groups/\(id)/invite"))
            let left = try await client.call(.post, "/groups/\(id)/leave", headers: [.cookie: bobCookie])
            #expect(left.status == .seeOther && left.headers[.location] == "/")
            #expect(try await client.call(.get, "/v1/groups/\(id)", token: bob).status == .notFound)
            #expect(
                try await client.call(.post, "/groups/\(id)/leave", headers: [.cookie: bobCookie]).status == .notFound)
            #expect(
                try await client.call(
                    .post, "/groups/\(id)/leave", headers: [.cookie: adaCookie, .origin: "https://evil.example"]
                ).status == .forbidden)
        }
    }

    @Test(
        "Members with equal turns (never set apart): moving one swaps it with its neighbour, nobody else moves",
        arguments: Backend.available)
    func equalTurns(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let group = try await client.call(
                .post, "/v1/groups", token: ada, json: ["name": "Owls", "goal_m": 100_000, "lease_hours": 6])
            let id = try #require(group.json["id"] as? Int)
            let invite = try #require(group.json["invite_code"] as? String)
            var ids: [String: Int] = [:]
            for name in ["bob", "cleo", "dan"] {
                let token = try await client.signUp(name)
                try await client.join(token, invite)
                ids[name] = try await client.call(.get, "/v1/me", token: token).json["id"] as? Int
            }
            _ = try await repository.write { db in
                try await db.query("UPDATE member SET turn = 0 WHERE team_id = ?", Int64(id))
            }
            func rotation() async throws -> [String] {
                try await client.call(.get, "/v1/groups/\(id)/members?order=rotation", token: ada)
                    .decode(MemberPage.self).members.map(\.username)
            }
            #expect(try await rotation() == ["ada", "bob", "cleo", "dan"])
            let cookie = try await client.webSignIn("ada").cookie
            let cleo = try #require(ids["cleo"])
            #expect(
                try await client.call(.post, "/groups/\(id)/rotation/\(cleo)/earlier", headers: [.cookie: cookie])
                    .status == .seeOther)
            #expect(try await rotation() == ["ada", "cleo", "bob", "dan"])
            #expect(
                try await client.call(.post, "/groups/\(id)/rotation/\(cleo)/later", headers: [.cookie: cookie])
                    .status == .seeOther)
            #expect(try await rotation() == ["ada", "bob", "cleo", "dan"])
        }
    }
}

@Suite("Zip archives and dates in forms")
struct ZipAndDateTests {
    @Test("A zip refuses the 65,000th entry rather than trap on a 16-bit count")
    func tooManyEntries() throws {
        var zip = ZipArchive(year: 2026, month: 11, day: 26, hour: 12, minute: 0, second: 0)
        for index in 0..<65_000 { _ = try zip.add("\(index)", []) }
        #expect(throws: ZipArchive.TooLarge.self) { _ = try zip.add("one more", []) }
    }

    @Test("A deadline is the end of its day in the person's zone, and the form shows that day again")
    func deadlineDay() throws {
        let reader = Reader(units: .km, zone: "America/New_York")
        let now = WallInstant(iso8601: "2026-11-26T12:00:00Z")!
        let fields = try GroupForm.read(
            ["name": "x", "goal": "10", "lease": "6", "deadline": "2027-03-30"], reader: reader, now: now)
        // 30 March 2027 is in daylight time in New York (UTC−4): its last second is 03:59:59 UTC the next day.
        #expect(fields.deadline == WallInstant(iso8601: "2027-03-31T03:59:59Z"))
        #expect(GroupForm.localDate(try #require(fields.deadline), zone: "America/New_York") == "2027-03-30")
        let winter = try GroupForm.read(
            ["name": "x", "goal": "10", "lease": "6", "deadline": "2027-01-15"], reader: reader, now: now)
        #expect(winter.deadline == WallInstant(iso8601: "2027-01-16T04:59:59Z"), "UTC−5 in January")
    }
}

/// The names in a zip's central directory, read independently of the writer.
enum ZipReading {
    static func names(_ bytes: [UInt8]) -> [String] {
        func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
        guard bytes.count >= 22, u32(bytes.count - 22) == 0x0605_4B50 else { return [] }
        var at = u32(bytes.count - 22 + 16)
        var names: [String] = []
        for _ in 0..<u16(bytes.count - 22 + 10) {
            guard at + 46 <= bytes.count, u32(at) == 0x0201_4B50 else { break }
            let length = u16(at + 28)
            names.append(String(decoding: bytes[(at + 46)..<(at + 46 + length)], as: UTF8.self))
            at += 46 + length + u16(at + 30) + u16(at + 32)
        }
        return names
    }
}
