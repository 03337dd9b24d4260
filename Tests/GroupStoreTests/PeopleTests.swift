import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import TestSupport
import Testing

@testable import GroupStore

/// Profiles: the settings' form, each field seen only by whom its owner chose, a person's page
/// with totals over the runs the viewer may see, and the energy estimate on the runner's own page.
@Suite("Profiles and people's pages")
struct PeopleTests {
    /// The fields each viewer sees of bob's, written out by hand: nickname public, height
    /// friends, weight groups, gender private, birth year groups.
    static let seen: [String: [String]] = [
        "bob": ["Height", "Weight", "Gender", "Birth year"],
        "ada": ["Height", "Weight", "Birth year"],
        "cleo": ["Weight", "Birth year"],
        "dan": [],
    ]

    @Test(
        "Each viewer sees the profile fields and runs bob lets them, totals over those runs only; blocked is the 404 of nobody",
        arguments: Backend.available)
    func pages(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            var tokens: [String: String] = [:]
            for name in ["ada", "bob", "cleo", "dan", "eve"] { tokens[name] = try await client.signUp(name) }
            let bob = tokens["bob"]!
            _ = try await client.call(.post, "/v1/friends", token: bob, json: ["username": "ada"])
            _ = try await client.call(.post, "/v1/friends/bob/accept", token: tokens["ada"]!)
            let (_, invite) = try await client.createGroup(bob)
            try await client.join(tokens["cleo"]!, invite)
            _ = try await client.call(.post, "/v1/blocks", token: bob, json: ["username": "eve"])
            var cookies: [String: String] = [:]
            for name in tokens.keys { cookies[name] = try await client.webSignIn(name).cookie }

            // The form: each refusal says why and keeps what was typed.
            let good: [String: String] = [
                "nickname": "Bobby <B>", "nickname_visibility": "public", "height_cm": "181",
                "height_cm_visibility": "friends", "weight_kg": "80,0", "weight_kg_visibility": "groups",
                "gender": "man", "gender_visibility": "private", "birth_year": "1990",
                "birth_year_visibility": "groups",
            ]
            for (field, bad, words) in [
                ("height_cm", "99", "from 100 to 250"), ("weight_kg", "heavy", "kilograms from 30"),
                ("gender", "robot", "woman, man, nonbinary"), ("birth_year", "1899", "from 1900"),
                ("nickname", String(repeating: "b", count: 41), "at most 40"),
                ("nickname_visibility", "everyone", "private, friends, groups or public"),
            ] {
                var form = good
                form[field] = bad
                let refused = try await AccountPageTests.post(
                    client, "/settings/profile", form, cookie: cookies["bob"]!)
                #expect(refused.status == .unprocessableContent && refused.text.contains(words), "\(field)")
                #expect(
                    ["everyone", "robot"].contains(bad) || refused.text.contains("value=\"\(bad)\""), "\(field) kept")
            }
            let saved = try await AccountPageTests.post(client, "/settings/profile", good, cookie: cookies["bob"]!)
            #expect(saved.status == .seeOther && saved.headers[.location] == "/settings?done=profile")
            let settings = try await client.call(.get, "/settings", headers: [.cookie: cookies["bob"]!]).text
            #expect(settings.contains("value=\"80\"") && settings.contains("value=\"Bobby &lt;B&gt;\""))

            // bob's runs: one public, one for friends, one his alone.
            var uuids: [String: String] = [:]
            for (index, level) in ["public", "friends", "private"].enumerated() {
                let uuid = UUID().uuidString.lowercased()
                let start = harness.clock.now.advanced(
                    byNanoseconds: Int64(index * 1_000 - 7_200) * nanosecondsPerSecond)
                #expect(try await client.upload(bob, uuid: uuid, file: RunFiles.fit(start: start)).status == .created)
                _ = try await client.call(.patch, "/v1/runs/\(uuid)", token: bob, json: ["visibility": level])
                uuids[level] = uuid
            }
            let runsSeen: [String: [String]] = [
                "bob": ["public", "friends", "private"], "ada": ["public", "friends"], "cleo": ["public"],
                "dan": ["public"],
            ]
            for (viewer, fields) in Self.seen {
                let reply = try await client.call(.get, "/people/bob", headers: [.cookie: cookies[viewer]!])
                #expect(reply.status == .ok, "\(viewer)")
                let page = reply.text
                #expect(page.contains("<h1>Bobby &lt;B&gt;</h1>"), "\(viewer): the nickname is public")
                for field in ["Height", "Weight", "Gender", "Birth year"] {
                    #expect(
                        page.contains("<span class=\"k\">\(field)</span>") == fields.contains(field),
                        "\(viewer): \(field)")
                }
                let runs = runsSeen[viewer]!
                #expect(
                    page.contains("<span class=\"k\">Runs</span> <span class=\"v\">\(runs.count)</span>"), "\(viewer)")
                for (level, uuid) in uuids {
                    #expect(page.contains("/runs/\(uuid)") == runs.contains(level), "\(viewer): the \(level) run")
                }
            }
            let nobody = try await client.call(.get, "/people/nobody", headers: [.cookie: cookies["eve"]!])
            let blocked = try await client.call(.get, "/people/bob", headers: [.cookie: cookies["eve"]!])
            #expect(nobody.status == .notFound && blocked.status == .notFound)
            #expect(blocked.text == nobody.text.replacingOccurrences(of: "nobody", with: "bob"))
            #expect(try await client.call(.get, "/people/bob").status == .seeOther, "signed out: to sign in")
            let asks = try await client.call(.get, "/people/bob", headers: [.cookie: cookies["dan"]!]).text
            #expect(asks.contains("Ask bob to be friends"))

            // The energy estimate on bob's own page only: Keytel et al. (2005) for a man.
            let own = try await client.call(.get, "/runs/\(uuids["public"]!)", headers: [.cookie: cookies["bob"]!]).text
            let year = CivilTime(harness.clock.now).year
            let age = Double(year - 1990)
            let minutes = 10.0
            let kcal = (-55.0969 + 0.6309 * 150 + 0.1988 * 80 + 0.2017 * age) / 4.184 * minutes
            #expect(own.contains("Energy (estimate)</span> <span class=\"v\">\(Int(kcal.rounded())) kcal"), "\(kcal)")
            let theirs = try await client.call(.get, "/runs/\(uuids["public"]!)", headers: [.cookie: cookies["ada"]!])
            #expect(theirs.status == .ok && !theirs.text.contains("Energy"))
        }
    }
}

/// The energy estimate from a file's values, absurd ones included: never a trap, never an absurd number.
@Suite("The energy estimate")
struct EnergyTests {
    @Test("Keytel for a man, weight and distance without a heart rate, nothing from infinities, NaN or absurd values")
    func estimate() throws {
        var profile = Profile()
        profile.values = [.weight: "80", .birthYear: "1990", .gender: "man"]
        let at = WallInstant(nanosecondsSinceEpoch: 1_790_000_000 * nanosecondsPerSecond)  // 2026
        let keytel = (-55.0969 + 0.6309 * 150 + 0.1988 * 80 + 0.2017 * 36) / 4.184 * 60
        let hour = Energy.kilocalories(
            sport: "run", meters: 10_000, minutes: 60, averageHeartRate: 150, profile: profile, at: at)
        #expect(try abs(#require(hour) - keytel) < 1e-9)
        #expect(
            Energy.kilocalories(
                sport: "run", meters: 10_000, minutes: 60, averageHeartRate: nil, profile: profile, at: at) == 800)
        for (heartRate, minutes, meters) in [
            (1e300, 60.0, 10_000.0), (Double.nan, 60, 10_000), (150, Double.infinity, 10_000),
            (150, -.infinity, 10_000), (150, Double.nan, Double.nan), (-1e300, 1e300, 1e300),
        ] {
            let kcal = Energy.kilocalories(
                sport: "run", meters: meters, minutes: minutes, averageHeartRate: heartRate, profile: profile,
                at: at)
            #expect(kcal.map { $0.isFinite && $0 >= 0 && $0 <= 100_000 } ?? true, "\(heartRate) \(minutes) \(meters)")
        }
        profile.values[.birthYear] = "-9223372036854775808"
        #expect(profile.age(at: at) == nil)
        profile.values[.weight] = "nan"
        #expect(
            Energy.kilocalories(
                sport: "run", meters: 10_000, minutes: 60, averageHeartRate: 150, profile: profile, at: at) == nil)
    }
}

/// `/compare/{username}`: the other person's runs counted only where the viewer may see them.
@Suite("Comparing with someone")
struct CompareTests {
    /// The cells of one row of a period's table: (the viewer's, the other's).
    static func cells(_ page: String, period: String, row: String) -> (String, String)? {
        guard let table = page.range(of: "<caption>\(period)</caption>") else { return nil }
        let rest = page[table.upperBound...]
        guard let line = rest.range(of: "<th scope=\"row\">\(row)</th><td class=\"n\">") else { return nil }
        let cells = rest[line.upperBound...].prefix { $0 != "\n" }
            .replacingOccurrences(of: "</td><td class=\"n\">", with: "|").replacingOccurrences(
                of: "</td></tr>", with: ""
            )
            .split(separator: "|").map(String.init)
        return cells.count == 2 ? (cells[0], cells[1]) : nil
    }

    @Test(
        "Each viewer's comparison counts the other's runs they may see, and their own; oneself, nobody and a block are 404",
        arguments: Backend.available)
    func compare(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            var tokens: [String: String] = [:]
            for name in ["ada", "bob", "dan", "eve"] { tokens[name] = try await client.signUp(name) }
            _ = try await client.call(.post, "/v1/friends", token: tokens["ada"]!, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: tokens["bob"]!)
            _ = try await client.call(.post, "/v1/blocks", token: tokens["bob"]!, json: ["username": "eve"])
            // bob: 1.8 km public, 3.6 km for friends, 5.4 km his alone; ada: 1.8 km.
            for (index, (runner, level, speed)) in [
                ("bob", "public", 3.0), ("bob", "friends", 6.0), ("bob", "private", 9.0), ("ada", "private", 3.0),
            ].enumerated() {
                let uuid = UUID().uuidString.lowercased()
                let start = harness.clock.now.advanced(byNanoseconds: Int64(index * 700 - 3_600) * nanosecondsPerSecond)
                let file = RunFiles.fit(start: start, seconds: 600, speed: speed)
                #expect(try await client.upload(tokens[runner]!, uuid: uuid, file: file).status == .created)
                _ = try await client.call(
                    .patch, "/v1/runs/\(uuid)", token: tokens[runner]!, json: ["visibility": level])
            }
            var cookies: [String: String] = [:]
            for name in tokens.keys { cookies[name] = try await client.webSignIn(name).cookie }
            let ada = try await client.call(.get, "/compare/bob", headers: [.cookie: cookies["ada"]!])
            #expect(ada.status == .ok)
            #expect(Self.cells(ada.text, period: "All time", row: "Runs").map { [$0.0, $0.1] } == ["1", "2"])
            #expect(
                Self.cells(ada.text, period: "All time", row: "Distance").map { [$0.0, $0.1] } == ["1.8 km", "5.4 km"])
            #expect(Self.cells(ada.text, period: "All time", row: "Longest run")?.1 == "3.6 km")
            #expect(ada.text.contains("Only the runs bob lets you see are counted."))
            let dan = try await client.call(.get, "/compare/bob", headers: [.cookie: cookies["dan"]!]).text
            #expect(Self.cells(dan, period: "All time", row: "Runs").map { [$0.0, $0.1] } == ["0", "1"])
            #expect(
                Self.cells(dan, period: "All time", row: "Average pace").map { [$0.0, $0.1] } == ["–", "5:33 /km"])
            let bob = try await client.call(.get, "/compare/ada", headers: [.cookie: cookies["bob"]!]).text
            #expect(
                Self.cells(bob, period: "All time", row: "Runs").map { [$0.0, $0.1] } == ["3", "0"], "ada's is private")
            for (viewer, other) in [("ada", "ada"), ("ada", "nobody"), ("eve", "bob")] {
                let reply = try await client.call(.get, "/compare/\(other)", headers: [.cookie: cookies[viewer]!])
                #expect(reply.status == .notFound, "\(viewer) → \(other)")
            }
            #expect(
                try await client.call(.get, "/people/bob", headers: [.cookie: cookies["ada"]!]).text.contains(
                    "href=\"/compare/bob\""))
        }
    }
}

/// A person's public runs as an Atom feed, read by Python's XML parser.
@Suite("A person's Atom feed")
struct AtomFeedTests {
    @Test(
        "Signed out, the feed holds the public runs only, with the public nickname escaped; it parses as Atom with its required elements",
        arguments: Backend.available)
    func atom(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let bob = try await client.signUp("bob")
            let cookie = try await client.webSignIn("bob").cookie
            _ = try await AccountPageTests.post(
                client, "/settings/profile", ["nickname": "Bobby <B> & co", "nickname_visibility": "public"],
                cookie: cookie)
            var uuids: [String: String] = [:]
            for (index, level) in ["public", "friends", "groups"].enumerated() {
                let uuid = UUID().uuidString.lowercased()
                let start = harness.clock.now.advanced(byNanoseconds: Int64(index * 700 - 3_600) * nanosecondsPerSecond)
                #expect(try await client.upload(bob, uuid: uuid, file: RunFiles.fit(start: start)).status == .created)
                _ = try await client.call(.patch, "/v1/runs/\(uuid)", token: bob, json: ["visibility": level])
                uuids[level] = uuid
            }
            let reply = try await client.call(.get, "/people/bob/feed.atom")
            #expect(reply.status == .ok && reply.headers[.contentType] == "application/atom+xml; charset=utf-8")
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            try reply.body.write(to: directory.file("feed.atom"))
            let checked = try await runProcessAsync(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "python3", "-c",
                    """
                    import sys, xml.etree.ElementTree as E
                    a = '{http://www.w3.org/2005/Atom}'
                    f = E.parse(sys.argv[1]).getroot()
                    assert f.tag == a + 'feed'
                    for n in ('id', 'title', 'updated'): assert f.find(a + n).text, n
                    assert f.find(a + 'author/' + a + 'name').text
                    for e in f.findall(a + 'entry'):
                        for n in ('id', 'title', 'updated'): assert e.find(a + n).text, n
                        assert e.find(a + 'link').get('href').startswith('http')
                    print(f.find(a + 'title').text)
                    print(' '.join(e.find(a + 'id').text for e in f.findall(a + 'entry')))
                    """,
                    directory.file("feed.atom").path,
                ])
            #expect(checked.status == 0, "\(checked.stderr)")
            let lines = checked.stdout.split(separator: "\n").map(String.init)
            #expect(lines == ["Bobby <B> & co's public runs", "urn:uuid:\(uuids["public"]!)"], "\(checked.stdout)")
            #expect(try await client.call(.get, "/people/nobody/feed.atom").status == .notFound)
        }
    }
}
