import ActivityFormats
import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import TestSupport
import Testing

@testable import GroupStore

/// Share cards and pages: a run's card (SVG, parsed by Python's XML parser) for whoever may see
/// the run, with the route only where the map may be seen and never its ends; the week's card
/// with the goal's ring; a public run's share page for anyone; the weekly goal's form.
@Suite("Share cards and the share page")
struct ShareTests {
    /// Python's XML parser on an SVG: every text, and the points of every polyline.
    static func parse(_ svg: String) async throws -> (texts: [String], lines: [String], size: [String]) {
        let result = try await runProcessAsync(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", "-c",
                """
                import json, sys, xml.etree.ElementTree as ET
                root = ET.fromstring(sys.stdin.read())
                ns = '{http://www.w3.org/2000/svg}'
                print(json.dumps({"texts": [t.text for t in root.iter(ns + 'text')],
                    "lines": [p.get('points') for p in root.iter(ns + 'polyline')],
                    "size": [root.get('width'), root.get('height')]}))
                """,
            ], stdin: svg)
        guard result.status == 0 else { throw PhotoOracle.Failed(description: "not XML: \(result.stderr)") }
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        return (json["texts"] as? [String] ?? [], json["lines"] as? [String] ?? [], json["size"] as? [String] ?? [])
    }

    @Test(
        "A run's card for whoever may see the run, its route without the ends only with the map; the week's card; the share page only of a public run",
        arguments: Backend.available)
    func cards(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            _ = try await client.signUp("dan")
            _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: bob)
            let uuid = UUID().uuidString.lowercased()
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            let file = RunFiles.fit(start: start, seconds: 1_800, speed: 3.2)
            _ = try await client.upload(ada, uuid: uuid, file: file)
            _ = try await client.call(
                .patch, "/v1/runs/\(uuid)", token: ada,
                json: ["title": "Hills & <b>\"heat\"</b>", "visibility": "friends", "map_visibility": "private"])
            var cookies: [String: String] = [:]
            for name in ["ada", "bob", "dan"] { cookies[name] = try await client.webSignIn(name).cookie }

            let own = try await client.call(.get, "/runs/\(uuid)/card.svg", headers: [.cookie: cookies["ada"]!])
            #expect(own.status == .ok && own.headers[.contentType]?.hasPrefix("image/svg+xml") == true)
            #expect(own.headers[.contentDisposition]?.hasPrefix("attachment") == true)
            #expect(own.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            let card = try await Self.parse(own.text)
            #expect(card.size == ["1200", "630"])
            #expect(card.texts.contains("Hills & <b>\"heat\"</b>"), "the title, escaped and read back as written")
            #expect(
                card.texts.contains("5.76 km")
                    && card.texts.contains { $0.hasPrefix("30:00 · 5:1") && $0.hasSuffix(" /km") })
            // The route: the facts' lines without their ends, exactly.
            let facts = RunFacts(try ActivityFormat.fit.read(file))
            let expected = try #require(facts.routeLines(side: 480, margin: 40, points: 600))
            #expect(card.lines == expected && !card.lines.isEmpty)
            #expect(
                facts.withoutEnds().track?.segments.first?.first != facts.track?.segments.first?.first,
                "the ends are cut")
            // bob sees the run but not its map: a card without a route; dan and nobody: 404.
            let friend = try await Self.parse(
                try await client.call(.get, "/runs/\(uuid)/card.svg", headers: [.cookie: cookies["bob"]!]).text)
            #expect(friend.lines.isEmpty && friend.texts.contains("No map to show"))
            #expect(
                try await client.call(.get, "/runs/\(uuid)/card.svg", headers: [.cookie: cookies["dan"]!]).status
                    == .notFound)
            #expect(try await client.call(.get, "/runs/\(uuid)/card.svg").status == .notFound)

            // The share page: only once the run is public, then for anyone.
            #expect(try await client.call(.get, "/runs/\(uuid)/share").status == .notFound)
            #expect(
                try await client.call(.get, "/runs/\(uuid)/share", headers: [.cookie: cookies["bob"]!]).status
                    == .notFound)
            let runPage = try await client.call(.get, "/runs/\(uuid)", headers: [.cookie: cookies["ada"]!]).text
            #expect(runPage.contains("href=\"/runs/\(uuid)/card.svg\"") && !runPage.contains("/share\""))
            _ = try await client.call(.patch, "/v1/runs/\(uuid)", token: ada, json: ["visibility": "public"])
            let share = try await client.call(.get, "/runs/\(uuid)/share")
            #expect(share.status == .ok && share.text.contains("src=\"/runs/\(uuid)/card.svg\""))
            #expect(share.text.contains("Hills &amp; &lt;b&gt;&quot;heat&quot;&lt;/b&gt;"))
            #expect(
                try await client.call(.get, "/runs/\(uuid)/card.svg").status == .ok, "a public run's card for anyone")
            #expect(
                try await client.call(.get, "/runs/\(uuid)", headers: [.cookie: cookies["ada"]!]).text.contains(
                    "/runs/\(uuid)/share"))

            // The weekly goal, and the week's card with its ring.
            let bad = try await AccountPageTests.post(
                client, "/settings/week-goal", ["goal": "lots"], cookie: cookies["ada"]!)
            #expect(bad.status == .unprocessableContent && bad.text.contains("A weekly goal is a distance in km"))
            let week = try await Self.parse(
                try await client.call(.get, "/me/week/card.svg", headers: [.cookie: cookies["ada"]!]).text)
            #expect(week.texts.contains("1") && week.texts.contains("5.76 km"), "without a goal: the runs")
            let set = try await AccountPageTests.post(
                client, "/settings/week-goal", ["goal": "11,52"], cookie: cookies["ada"]!)
            #expect(set.status == .seeOther)
            #expect(
                try await client.call(.get, "/settings", headers: [.cookie: cookies["ada"]!]).text.contains(
                    "value=\"11.52\""))
            let goal = try await Self.parse(
                try await client.call(.get, "/me/week/card.svg", headers: [.cookie: cookies["ada"]!]).text)
            #expect(goal.texts.contains("50 %") && goal.lines.count == 1, "\(goal.texts)")
            let home = try await client.call(.get, "/", headers: [.cookie: cookies["ada"]!]).text
            #expect(home.contains("of your weekly distance goal of 11.5 km: 50 %"))
            #expect(try await client.call(.get, "/me/week/card.svg").status == .seeOther, "signed out: to sign in")
        }
    }
}
