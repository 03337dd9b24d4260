import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Testing

@testable import GroupStore

/// Every route of the OpenAPI document, pages included, asked by people who may see nothing of
/// ada's: a stranger, someone she blocked, and nobody signed in. Each read of her private and
/// friends-only runs, their comments, photos and her private profile fields and photo is refused
/// or shows none of it, and no write on them goes through.
@Suite("Every route and page, walked as each viewer who may see nothing")
struct PrivacyWalkTests {
    /// A 1×1 PNG (made with Pillow).
    static let tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGM4IScHAAK2AQU0pnWqAAAAAElFTkSuQmCC"

    /// Words that only ever appear where ada's private things are shown.
    static let secret = "SECRET-"

    @Test(
        "A stranger, a blocked person and nobody signed in: no route or page shows or changes what is not theirs",
        arguments: Backend.available)
    func walk(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let dan = try await client.signUp("dan")
            let eve = try await client.signUp("eve")
            _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: bob)
            _ = try await client.call(.post, "/v1/blocks", token: ada, json: ["username": "eve"])
            let adaID = try #require(try await client.call(.get, "/v1/me", token: ada).json["id"] as? Int)
            let (group, _) = try await client.createGroup(ada, name: "Night owls")
            let adaCookie = try await client.webSignIn("ada").cookie
            _ = try await AccountPageTests.post(
                client, "/settings/profile",
                [
                    "nickname": "SECRET-NICK", "nickname_visibility": "private", "height_cm": "170",
                    "height_cm_visibility": "friends",
                ], cookie: adaCookie)
            var runs: [String] = []
            for (index, level) in ["private", "friends"].enumerated() {
                let uuid = UUID().uuidString.lowercased()
                let start = harness.clock.now.advanced(byNanoseconds: Int64(index * 700 - 3_600) * nanosecondsPerSecond)
                #expect(try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start)).status == .created)
                _ = try await client.call(.patch, "/v1/runs/\(uuid)", token: ada, json: ["visibility": level])
                _ = try await AccountPageTests.post(
                    client, "/runs/\(uuid)/post",
                    ["title": "SECRET-\(level)-title", "description": "SECRET-\(level)-words"], cookie: adaCookie)
                runs.append(uuid)
            }
            // A private profile photo, and a photo on each run.
            let photo = Array(Data(base64Encoded: Self.tinyPNG)!)
            var keys = [
                try await client.call(.put, "/v1/me/photo", token: ada, body: photo).decode(PhotoView.self).key
            ]
            for uuid in runs {
                keys.append(
                    try await client.call(.post, "/v1/runs/\(uuid)/photos", token: ada, body: photo)
                        .decode(PhotoView.self).key)
            }
            let comment = try await client.call(
                .post, "/v1/runs/\(runs[1])/comments", token: bob, json: ["text": "SECRET-COMMENT"]
            ).decode(CommentView.self)
            _ = try await client.call(.post, "/v1/runs/\(runs[1])/kudos", token: bob)
            // The markers are there to be found: bob, a friend, sees the friends' run and its comment.
            let bobCookie = try await client.webSignIn("bob").cookie
            let bobs = try await client.call(.get, "/runs/\(runs[1])", headers: [.cookie: bobCookie]).text
            #expect(bobs.contains("SECRET-friends-title") && bobs.contains("SECRET-COMMENT"))

            let viewers: [(name: String, token: String?, cookie: String?)] = [
                ("dan", dan, try await client.webSignIn("dan").cookie),
                ("eve", eve, try await client.webSignIn("eve").cookie), ("nobody", nil, nil),
            ]
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            var asked = 0
            for (template, operations) in paths.sorted(by: { $0.key < $1.key }) {
                for method in ["get", "post", "put", "patch", "delete"] where operations[method] != nil {
                    let touchesRun =
                        template.contains("{uuid}") || template.contains("{comment}") || template.contains("{key}")
                    // Writes only where they name ada's runs or comments: the rest act on the
                    // caller's own things (and one deletes the caller).
                    guard method == "get" || touchesRun else { continue }
                    let pairs =
                        template.contains("{uuid}")
                        ? Array(zip(runs, keys.dropFirst())) : keys.map { (runs[0], $0) }
                    for (uuid, key) in template.contains("{key}") || template.contains("{uuid}") ? pairs : [pairs[0]] {
                        let path = template.replacingOccurrences(of: "{uuid}", with: uuid)
                            .replacingOccurrences(of: "{key}", with: key)
                            .replacingOccurrences(of: "{comment}", with: String(comment.id))
                            .replacingOccurrences(of: "{username}", with: "ada")
                            .replacingOccurrences(of: "{group}", with: String(group))
                            .replacingOccurrences(of: "{account}", with: String(adaID))
                            .replacingOccurrences(of: "{member}", with: String(adaID))
                            .replacingOccurrences(of: "{device}", with: "1")
                            .replacingOccurrences(of: "{code}", with: "zzzzzzzzzz")
                            .replacingOccurrences(of: "{token}", with: "zzzzzzzzzzzzzzzz")
                        let page = !path.hasPrefix("/v1/")
                        for viewer in viewers {
                            let what = "\(method.uppercased()) \(template) as \(viewer.name)"
                            var headers: HTTPFields = [:]
                            if page, let cookie = viewer.cookie { headers[.cookie] = cookie }
                            let reply: Reply
                            switch (method, page) {
                            case ("get", _):
                                reply = try await client.call(
                                    .get, path, token: page ? nil : viewer.token, headers: headers)
                            case (_, false):
                                reply = try await client.call(
                                    HTTPRequest.Method(rawValue: method.uppercased())!, path, token: viewer.token,
                                    json: ["text": "x", "visibility": "public", "map_visibility": "public"])
                            default:
                                reply = try await client.call(
                                    .post, path,
                                    body: Array("text=x&give=yes&title=x&visibility=public&map_visibility=public".utf8),
                                    contentType: "application/x-www-form-urlencoded", headers: headers)
                            }
                            asked += 1
                            #expect(!reply.text.contains(Self.secret), "\(what) shows \(reply.text.prefix(300))")
                            if touchesRun {
                                let toSignIn =
                                    reply.status == .seeOther
                                    && reply.headers[.location]?.hasPrefix("/login") == true
                                #expect(toSignIn || reply.status.code >= 400, "\(what) answered \(reply.status.code)")
                            }
                        }
                    }
                }
            }
            #expect(asked > 200, "\(asked) requests")
            for key in keys {
                #expect(try await client.call(.get, "/photos/\(key)", token: ada).status == .ok, "ada's photos stay")
            }

            // Nothing of ada's changed.
            let after = try await client.call(.get, "/v1/runs/\(runs[1])/comments", token: ada).decode(CommentList.self)
            #expect(after.comments.map(\.text) == ["SECRET-COMMENT"])
            #expect(
                try await client.call(.get, "/v1/runs/\(runs[1])/kudos", token: ada).decode(KudosView.self).count == 1)
            for (uuid, level) in zip(runs, ["private", "friends"]) {
                let run = try await client.call(.get, "/v1/runs/\(uuid)", token: ada)
                #expect(run.status == .ok && run.json["visibility"] as? String == level)
                let own = try await client.call(.get, "/runs/\(uuid)", headers: [.cookie: adaCookie]).text
                #expect(own.contains("<h1>SECRET-\(level)-title</h1>"))
            }
        }
    }
}
