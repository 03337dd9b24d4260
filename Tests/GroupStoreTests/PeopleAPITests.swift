import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import TestSupport
import Testing

@testable import GroupStore

/// People, comparisons, profiles, titles and others' runs over the API: the same rule as the
/// pages (the fields, runs and totals the caller may see; the same 404 for a block as for nobody).
@Suite("People over the API")
struct PeopleAPITests {
    @Test(
        "A person, a comparison and another's run as each viewer may see them; one's own profile read and replaced; a run titled over the API",
        arguments: Backend.available)
    func api(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            var tokens: [String: String] = [:]
            for name in ["ada", "bob", "dan", "eve"] { tokens[name] = try await client.signUp(name) }
            let (ada, bob, dan, eve) = (tokens["ada"]!, tokens["bob"]!, tokens["dan"]!, tokens["eve"]!)
            _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: bob)
            _ = try await client.call(.post, "/v1/blocks", token: ada, json: ["username": "eve"])

            // ada's profile: read, refused, replaced whole.
            let profile = ProfileSettings(
                nickname: .init(value: "Ada <L>", visibility: "public"),
                heightCm: .init(value: "168", visibility: "friends"),
                weightKg: .init(value: "58,5", visibility: "private"))
            let put = try await client.call(.put, "/v1/me/profile", token: ada, send: profile)
            #expect(put.status == .ok, "\(put.text)")
            let kept = try put.decode(ProfileSettings.self)
            #expect(kept.weightKg == ProfileEntry(value: "58.5", visibility: "private") && kept.gender == nil)
            #expect(try await client.call(.get, "/v1/me/profile", token: ada).decode(ProfileSettings.self) == kept)
            var bad = profile
            bad.heightCm = .init(value: "99", visibility: "friends")
            #expect(try await client.call(.put, "/v1/me/profile", token: ada, send: bad).errorCode == "invalid_profile")
            bad.heightCm = .init(value: "168", visibility: "everyone")
            #expect(
                try await client.call(.put, "/v1/me/profile", token: ada, send: bad).errorCode == "invalid_visibility")

            // Three runs: private, friends, public.
            var runs: [String] = []
            for (index, level) in ["private", "friends", "public"].enumerated() {
                let uuid = UUID().uuidString.lowercased()
                let start = harness.clock.now.advanced(byNanoseconds: Int64(index * 900 - 7_200) * nanosecondsPerSecond)
                _ = try await client.upload(
                    ada, uuid: uuid, file: RunFiles.fit(start: start, seconds: 600 * (index + 1)))
                _ = try await client.call(.patch, "/v1/runs/\(uuid)", token: ada, json: ["visibility": level])
                runs.append(uuid)
            }
            let titled = try await client.call(
                .patch, "/v1/runs/\(runs[1])", token: ada, json: ["title": "Hills <b>", "description": "Windy\r\nday"])
            #expect(titled.status == .ok && titled.json["title"] as? String == "Hills <b>", "\(titled.text)")
            #expect(titled.json["description"] as? String == "Windy\nday")
            #expect(
                try await client.call(
                    .patch, "/v1/runs/\(runs[1])", token: ada, json: ["title": String(repeating: "x", count: 101)]
                )
                .errorCode == "invalid_title")
            #expect(
                try await client.call(.patch, "/v1/runs/\(runs[1])", token: bob, json: ["title": "x"]).errorCode
                    == "run_not_found")
            // A refused level keeps the title from being written too.
            let refused = try await client.call(
                .patch, "/v1/runs/\(runs[1])", token: ada, json: ["title": "Not kept", "map_visibility": "public"])
            #expect(refused.errorCode == "invalid_visibility")
            #expect(
                try await client.call(.get, "/v1/runs/\(runs[1])", token: ada).json["title"] as? String == "Hills <b>")

            // Who sees what of ada: bob her friends' and public runs and her height; dan her
            // public run and nickname; eve, blocked, nothing (the 404 of nobody).
            let expected: [(String, String, [String], ProfileFields, Int64)] = [
                ("ada", ada, runs, ProfileFields(nickname: "Ada <L>", heightCm: 168, weightKg: 58.5), 3),
                ("bob", bob, [runs[2], runs[1]], ProfileFields(nickname: "Ada <L>", heightCm: 168), 2),
                ("dan", dan, [runs[2]], ProfileFields(nickname: "Ada <L>"), 1),
            ]
            for (name, token, seen, fields, count) in expected {
                let person = try await client.call(.get, "/v1/people/ADA", token: token).decode(PersonView.self)
                #expect(person.profile == fields, "\(name)")
                #expect(person.totals.runs == count, "\(name)")
                #expect(Set(person.runs.map(\.uuid)) == Set(seen), "\(name)")
                #expect(person.friendship == ["ada": "self", "bob": "friends", "dan": nil][name] ?? nil, "\(name)")
                for uuid in runs {
                    let run = try await client.call(.get, "/v1/runs/\(uuid)", token: token)
                    #expect(run.status == (seen.contains(uuid) ? .ok : .notFound), "\(name) \(uuid)")
                    if run.status == .ok, name != "ada" {
                        #expect(run.json["visibility"] == nil && run.json["runner"] as? String == "ada")
                        #expect((run.json["summary"] as? [String: Any])?.isEmpty == true, "the pack's summary is ada's")
                    }
                }
                let compared = try await client.call(.get, "/v1/compare/ada", token: token)
                if name != "ada" {
                    let comparison = try compared.decode(ComparisonView.self)
                    let all = try #require(comparison.periods.first { $0.period == "all" })
                    #expect(all.theirs.runs == count, "\(name) compares over what they see")
                    #expect(comparison.weeks.count == 12)
                }
            }
            #expect(try await client.call(.get, "/v1/people/ada", token: eve).errorCode == "account_not_found")
            #expect(try await client.call(.get, "/v1/compare/ada", token: eve).errorCode == "account_not_found")
            #expect(try await client.call(.get, "/v1/people/nobody", token: dan).errorCode == "account_not_found")
            #expect(try await client.call(.get, "/v1/runs/\(runs[2])", token: eve).errorCode == "run_not_found")
            let friendsRun = try await client.call(.get, "/v1/runs/\(runs[1])", token: bob)
            #expect(friendsRun.json["title"] as? String == "Hills <b>")
        }
    }
}
