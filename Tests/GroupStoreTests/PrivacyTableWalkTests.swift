import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Testing

@testable import GroupStore

/// Every GET route of the OpenAPI document, pages included, asked by each kind of viewer of the
/// visibility table (`VisibilityTests.table`): ada has a run, a map, a comment, a photo and a
/// profile field at each level, each marked with words that name its level. A viewer's replies
/// may hold only the words of the levels the table lets that viewer see; compare counts only
/// those runs; and the words of every allowed level do show somewhere, so the walk can fail.
@Suite("Every route and page, walked as each kind of viewer of the visibility table")
struct PrivacyTableWalkTests {
    /// The viewers, by the table's names, and the account each is played by (nil: nobody).
    static let viewers: [(kind: String, name: String?)] = [
        ("a friend", "bob"), ("a group-mate", "cleo"), ("a stranger", "dan"), ("a blocked group-mate", "eve"),
        ("nobody signed in", nil),
    ]

    static func marker(_ what: String, _ level: RunVisibility) -> String {
        "LEVEL\(what)\(level.rawValue.uppercased())"
    }

    @Test(
        "Each kind of viewer, over every GET route and page, sees only the levels the table allows",
        arguments: Backend.available)
    func walk(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            var tokens: [String: String] = [:]
            for name in ["ada", "bob", "cleo", "dan", "eve"] { tokens[name] = try await client.signUp(name) }
            let ada = tokens["ada"]!
            _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: tokens["bob"]!)
            let (group, invite) = try await client.createGroup(ada, name: "Night owls")
            try await client.join(tokens["cleo"]!, invite)
            try await client.join(tokens["eve"]!, invite)
            _ = try await client.call(.post, "/v1/blocks", token: ada, json: ["username": "eve"])
            harness.clock.advance(seconds: 4 * 3_600)
            let adaID = try #require(try await client.call(.get, "/v1/me", token: ada).json["id"] as? Int)
            let adaCookie = try await client.webSignIn("ada").cookie

            // One profile field at each level (the nickname, at public, names no level).
            let fields: [(String, RunVisibility)] = [
                ("gender", .private), ("height_cm", .friends), ("birth_year", .groups), ("nickname", .public),
            ]
            var form: [String: String] = ["gender": "woman", "height_cm": "171", "birth_year": "1991"]
            form["nickname"] = Self.marker("FIELD", .public)
            for (field, level) in fields { form[field + "_visibility"] = level.rawValue }
            _ = try await AccountPageTests.post(client, "/settings/profile", form, cookie: adaCookie)
            // A run at each level, with its map at its level, its title, a comment by bob, a photo.
            var runs: [RunVisibility: String] = [:]
            var photos: [RunVisibility: String] = [:]
            let photo = Array(Data(base64Encoded: PrivacyWalkTests.tinyPNG)!)
            for (index, level) in RunVisibility.allCases.enumerated() {
                let uuid = UUID().uuidString.lowercased()
                let start = harness.clock.now.advanced(byNanoseconds: Int64(index * 900 - 7_200) * nanosecondsPerSecond)
                _ = try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start))
                _ = try await client.call(
                    .patch, "/v1/runs/\(uuid)", token: ada,
                    json: [
                        "visibility": level.rawValue, "map_visibility": level.rawValue,
                        "title": Self.marker("RUN", level),
                    ])
                _ = try await client.call(
                    .post, "/v1/runs/\(uuid)/comments", token: ada, json: ["text": Self.marker("COMMENT", level)])
                photos[level] = try await client.call(.post, "/v1/runs/\(uuid)/photos", token: ada, body: photo)
                    .decode(PhotoView.self).key
                runs[level] = uuid
            }
            let profilePhoto = try await client.call(.put, "/v1/me/photo?visibility=friends", token: ada, body: photo)
                .decode(PhotoView.self).key
            // ada is out live with the group's baton (her runs are seen by her groups).
            #expect(try await client.call(.post, "/v1/groups/\(group)/baton/take", token: ada).status == .ok)
            let live = try await client.call(
                .post, "/v1/live/\(LiveTrackingTests.uuid)", token: ada,
                send: LiveTrackingTests.update(stride(from: 0, through: 300, by: 15)))
            #expect(live.status == .ok)

            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            let gets = paths.keys.filter { paths[$0]?["get"] != nil }.sorted()
            for viewer in Self.viewers {
                let allowed = Set(
                    RunVisibility.allCases.filter { VisibilityTests.table[$0]?.contains(viewer.kind) == true })
                let token = viewer.name.flatMap { tokens[$0] }
                var cookie: String?
                if let name = viewer.name { cookie = try await client.webSignIn(name).cookie }
                var seen: Set<String> = []
                for template in gets {
                    let keys: [(RunVisibility?, String)] =
                        template.contains("{uuid}") || template.contains("{key}")
                        ? RunVisibility.allCases.map { ($0, $0.rawValue) } : [(nil, "")]
                    for (level, _) in keys {
                        let uuid = level.flatMap { runs[$0] } ?? runs[.public]!
                        let path = template.replacingOccurrences(of: "{uuid}", with: uuid)
                            .replacingOccurrences(of: "{key}", with: level.flatMap { photos[$0] } ?? profilePhoto)
                            .replacingOccurrences(of: "{username}", with: "ada")
                            .replacingOccurrences(of: "{group}", with: String(group))
                            .replacingOccurrences(of: "{account}", with: String(adaID))
                            .replacingOccurrences(of: "{member}", with: String(adaID))
                            .replacingOccurrences(of: "{comment}", with: "1")
                            .replacingOccurrences(of: "{device}", with: "1")
                            .replacingOccurrences(of: "{code}", with: "zzzzzzzzzz")
                            .replacingOccurrences(of: "{token}", with: "zzzzzzzzzzzzzzzz")
                            .replacingOccurrences(of: "{run}", with: LiveTrackingTests.uuid)
                        let page = !path.hasPrefix("/v1/")
                        let reply = try await client.call(
                            .get, path, token: page ? nil : token,
                            headers: page ? cookie.map { [.cookie: $0] } ?? [:] : [:])
                        let text = reply.text
                        for what in ["RUN", "COMMENT", "FIELD"] {
                            for hidden in RunVisibility.allCases where !allowed.contains(hidden) {
                                #expect(
                                    !text.contains(Self.marker(what, hidden)),
                                    "GET \(template) as \(viewer.kind) shows ada's \(what.lowercased()) at \(hidden)")
                            }
                            for shown in allowed where text.contains(Self.marker(what, shown)) {
                                seen.insert(Self.marker(what, shown))
                            }
                        }
                        if template == "/photos/{key}", let level {
                            #expect(
                                reply.status == (allowed.contains(level) ? .ok : .notFound),
                                "ada's photo at \(level) as \(viewer.kind)")
                        }
                        if template == "/runs/{uuid}", let level, reply.status == .ok {
                            #expect(
                                text.contains("class=\"track\"") == allowed.contains(level),
                                "ada's map at \(level) as \(viewer.kind)")
                        }
                    }
                }
                // ada's live run: her group-mate sees it, on the group's page too; nobody else
                // does, by any route (the walk above asked each of them).
                let holder = try await client.call(.get, "/v1/groups/\(group)/live", token: token)
                #expect(
                    (holder.status == .ok) == (viewer.kind == "a group-mate"), "ada's live run as \(viewer.kind)")
                #expect(try await client.call(.get, "/v1/live/\(LiveTrackingTests.uuid)", token: token).status != .ok)
                let groupPage = try await client.call(
                    .get, "/groups/\(group)", headers: cookie.map { [.cookie: $0] } ?? [:])
                // (The card, whether it says "out now" or, the walk being slow, "last seen".)
                #expect(
                    groupPage.text.contains(#"<section id="live""#) == (viewer.kind == "a group-mate"),
                    "ada's live card as \(viewer.kind)")
                // Every allowed level's words showed somewhere: the walk looked where they are.
                for level in allowed {
                    #expect(seen.contains(Self.marker("RUN", level)), "\(viewer.kind) never saw the run at \(level)")
                }
                // Fields: the profile's levels as the table says (the page and the API alike).
                if let token {
                    let person = try await client.call(.get, "/v1/people/ada", token: token)
                    let profile = (try? person.decode(PersonView.self))?.profile
                    let expected = fields.filter { allowed.contains($0.1) }.map(\.0)
                    let shown = [
                        ("gender", profile?.gender != nil), ("height_cm", profile?.heightCm != nil),
                        ("birth_year", profile?.birthYear != nil), ("nickname", profile?.nickname != nil),
                    ].filter(\.1).map(\.0)
                    #expect(Set(shown) == Set(expected), "ada's profile as \(viewer.kind)")
                    let compared = try? await client.call(.get, "/v1/compare/ada", token: token).decode(
                        ComparisonView.self)
                    let all = compared?.periods.first { $0.period == "all" }?.theirs.runs ?? 0
                    #expect(all == Int64(allowed.count), "compare counts ada's runs \(viewer.kind) may see")
                }
            }
        }
    }
}
