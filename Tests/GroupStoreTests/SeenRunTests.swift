import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Testing

@testable import ActivityFormats
@testable import GroupStore

/// A run's page as each kind of viewer sees it: its owner, a friend, a group-mate, a stranger, a
/// blocked group-mate and nobody signed in, at every pair of levels for the run and its map.
@Suite("A run's page, as each kind of viewer sees it")
struct SeenRunTests {
    /// The levels at which each viewer sees one of ada's runs, written out by hand (the rule's own
    /// table is in VisibilityTests).
    static let seesAt: [String: Set<String>] = [
        "ada": ["private", "friends", "groups", "public"],
        "bob": ["friends", "groups", "public"],
        "cleo": ["groups", "public"],
        "dan": ["public"],
        "eve": [],
        "nobody": ["public"],
    ]

    @Test(
        "Each viewer gets the page, its map, or the same 404 as for no run, as the levels say; others never see the route's ends",
        arguments: Backend.available)
    func pages(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            var tokens: [String: String] = [:]
            for name in ["ada", "bob", "cleo", "dan", "eve"] { tokens[name] = try await client.signUp(name) }
            let ada = tokens["ada"]!
            _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: tokens["bob"]!)
            let (_, invite) = try await client.createGroup(ada, name: "Night owls")
            try await client.join(tokens["cleo"]!, invite)
            try await client.join(tokens["eve"]!, invite)
            #expect(
                try await client.call(.post, "/v1/blocks", token: ada, json: ["username": "eve"]).status == .noContent)
            harness.clock.advance(seconds: 7_200)
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            let uuid = UUID().uuidString.lowercased()
            // 600 s at 3 m/s due north: 1,800 m in a straight line.
            #expect(try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start)).status == .created)
            var cookies: [String: String] = [:]
            for name in tokens.keys { cookies[name] = try await client.webSignIn(name).cookie }
            let path = "/runs/\(uuid)"
            let nowhere = try await client.call(
                .get, "/runs/\(UUID().uuidString.lowercased())", headers: [.cookie: cookies["dan"]!])
            #expect(nowhere.status == .notFound)

            let levels = RunVisibility.allCases.map(\.rawValue)
            for run in levels {
                for map in levels where levels.firstIndex(of: map)! <= levels.firstIndex(of: run)! {
                    let changed = try await client.call(
                        .patch, "/v1/runs/\(uuid)", token: ada, json: ["visibility": run, "map_visibility": map])
                    #expect(changed.status == .ok)
                    for (viewer, seen) in Self.seesAt {
                        let what = "\(viewer) at run \(run), map \(map)"
                        let reply = try await client.call(
                            .get, path, headers: viewer == "nobody" ? [:] : [.cookie: cookies[viewer]!])
                        guard seen.contains(run) else {
                            if viewer == "nobody" {
                                #expect(
                                    reply.status == .seeOther
                                        && reply.headers[.location] == SitePath.login(next: path).path, "\(what)")
                            } else {
                                // Word for word the page of a run that does not exist.
                                #expect(reply.status == .notFound, "\(what)")
                                #expect(
                                    reply.text.replacingOccurrences(of: viewer, with: "dan") == nowhere.text, "\(what)")
                            }
                            continue
                        }
                        #expect(reply.status == .ok, "\(what)")
                        let page = reply.text
                        let owner = viewer == "ada"
                        #expect(page.contains("/download") == owner, "\(what): downloads")
                        #expect(page.contains("action=\"\(path)/visibility\"") == owner, "\(what): the form")
                        #expect(
                            page.contains("By <strong><a href=\"/people/ada\">ada</a></strong>") == !owner, "\(what)")
                        #expect(page.contains("Night owls") == ["ada", "cleo"].contains(viewer), "\(what): groups")
                        let drawn = try Self.drawnPositions(page)
                        #expect(!drawn.isEmpty == seen.contains(map), "\(what): the map")
                        guard !drawn.isEmpty else {
                            #expect(page.contains("The route is not shown: ada shows it to fewer people."), "\(what)")
                            continue
                        }
                        // The route's first and last 200 m are the owner's alone.
                        let points = RunFiles.activity(start: start, seconds: 600, speed: 3).points
                        let first = Position(latitude: points.first!.latitude!, longitude: points.first!.longitude!)
                        let last = Position(latitude: points.last!.latitude!, longitude: points.last!.longitude!)
                        let nearest = drawn.map { min($0.meters(to: first), $0.meters(to: last)) }.min()!
                        if owner {
                            #expect(nearest < 5, "\(what): \(nearest) m")
                            #expect(page.contains("class=\"start\""))
                        } else {
                            #expect(nearest > 198 && nearest < 203, "\(what): \(nearest) m")
                            #expect(!page.contains("class=\"start\"") && !page.contains("class=\"finish\""))
                        }
                    }
                }
            }
            // The feed links each run it shows to its page.
            let feed = try await client.call(.get, "/feed", headers: [.cookie: cookies["bob"]!]).text
            #expect(feed.contains("href=\"\(path)\""))
        }
    }

    /// The positions of the route's lines on a page, turned back from box units through the map's
    /// origin and scale and the inverse Web-Mercator projection.
    static func drawnPositions(_ page: String) throws -> [Position] {
        func attribute(_ name: String) -> Double? {
            guard let range = page.range(of: "\(name)=\"") else { return nil }
            return Double(page[range.upperBound...].prefix { $0 != "\"" })
        }
        guard let x0 = attribute("data-origin-x"), let y0 = attribute("data-origin-y"),
            let scale = attribute("data-scale")
        else { return [] }
        var positions: [Position] = []
        var rest = page[...]
        while let line = rest.range(of: "<polyline class=\"track\" points=\"") {
            let points = rest[line.upperBound...].prefix { $0 != "\"" }
            for pair in points.split(separator: " ") {
                let xy = pair.split(separator: ",").compactMap { Double($0) }
                try #require(xy.count == 2)
                let (x, y) = (x0 + xy[0] / scale, y0 + xy[1] / scale)
                positions.append(
                    Position(
                        latitude: atan(sinh(Double.pi * (1 - 2 * y))) * 180 / .pi, longitude: x * 360 - 180))
            }
            rest = rest[line.upperBound...]
        }
        return positions
    }
}
