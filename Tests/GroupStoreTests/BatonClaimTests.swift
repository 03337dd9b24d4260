import Foundation
import GroupStore
import HandoffModel
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Offline baton claims, settled at upload")
struct BatonClaimTests {
    @Test(
        "Two packs claim the baton offline for overlapping runs: the first upload becomes the leg and holds the baton, the second counts solo",
        arguments: Backend.available)
    func overlappingClaims(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let group = try await client.createGroup(ada)
            try await client.join(bob, group.invite)
            let t0 = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970.rounded() + 120)
            let claim = #"{"baton_claim":{"group_id":\#(group.id)}}"#
            // Ada ran 0–10 min, Bob 5–15 min, both offline, both claiming the baton.
            let adaFile = RunFiles.fit(start: t0, seconds: 600)
            let bobFile = RunFiles.fit(start: t0.advanced(byNanoseconds: 300 * nanosecondsPerSecond), seconds: 600)
            let adaUUID = UUID().uuidString.lowercased()
            let bobUUID = UUID().uuidString.lowercased()

            // Bob's pack gets home first: his claim holds.
            let bobReply = try await client.upload(bob, uuid: bobUUID, file: bobFile, summary: claim)
            #expect(bobReply.status == .created)
            let bobCounted = try #require((bobReply["counted_in"] as? [[String: Any]])?.first)
            let leg = try #require(bobCounted["relay_leg"] as? Int, "the accepted claim is a relay leg")
            let baton = try await client.call(.get, "/v1/groups/\(group.id)/baton", token: ada)
            let held = try #require(baton["baton"] as? [String: Any])
            #expect(held["holder"] as? String == "bob")
            #expect(
                held["since"] as? String == CivilTime(t0.advanced(byNanoseconds: 300 * nanosecondsPerSecond)).iso8601())

            // Ada's overlaps Bob's leg: refused, her run counts solo, in full.
            let adaReply = try await client.upload(ada, uuid: adaUUID, file: adaFile, summary: claim)
            #expect(adaReply.status == .created)
            let adaCounted = try #require((adaReply["counted_in"] as? [[String: Any]])?.first)
            #expect(adaCounted["relay_leg"] is NSNull)
            let progress = try await client.call(.get, "/v1/groups/\(group.id)/progress", token: ada)
            let total = (progress["group"] as? [String: Any])?["total_m"] as? Double ?? 0
            let expected = Double(try RunFiles.distanceMM(adaFile) + RunFiles.distanceMM(bobFile)) / 1000
            #expect(abs(total - expected) < 0.0005)
            let legs = try #require(progress["legs"] as? [[String: Any]])
            #expect(legs.count == 1 && legs.first?["id"] as? Int == leg && legs.first?["runner"] as? String == "bob")
            #expect(legs.first?["runs"] as? Int == 1)

            // A repeat of Bob's upload changes nothing; and he can pass the baton on.
            let again = try await client.upload(bob, uuid: bobUUID, file: bobFile, summary: claim)
            #expect(again.status == .ok)
            let passed = try await client.call(
                .post, "/v1/groups/\(group.id)/baton/pass", token: bob, json: ["to": "ada"])
            #expect(passed.status == .ok && passed["holder"] as? String == "ada")

            // A claim on a group the runner is not in is ignored: the run is simply stored.
            let other = try await client.signUp("cyd")
            let stray = try await client.upload(
                other, uuid: UUID().uuidString.lowercased(), file: RunFiles.fit(start: t0), summary: claim)
            #expect(stray.status == .created && (stray["counted_in"] as? [Any])?.isEmpty == true)
        }
    }

    @Test(
        "A group that passes the baton by itself hands it to the next member as soon as the holder's run arrives",
        arguments: Backend.available)
    func autoPass(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let created = try await client.call(
                .post, "/v1/groups", token: ada, json: ["name": "Relay", "goal_m": 100_000, "auto_pass": true])
            #expect(created.status == .created && created["auto_pass"] as? Bool == true)
            let id = try #require(created["id"] as? Int)
            try await client.join(bob, try #require(created["invite_code"] as? String))
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/take", token: ada).status == .ok)
            let start = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970.rounded() + 60)
            let reply = try await client.upload(
                ada, uuid: UUID().uuidString.lowercased(), file: RunFiles.fit(start: start))
            #expect((reply["counted_in"] as? [[String: Any]])?.first?["relay_leg"] is Int)
            let baton = try await client.call(.get, "/v1/groups/\(id)/baton", token: bob)
            #expect((baton["baton"] as? [String: Any])?["holder"] as? String == "bob")
            let legs = try #require(baton["legs"] as? [[String: Any]])
            #expect(legs.count == 2 && legs.last?["ended"] as? String == "passed" && legs.last?["runs"] as? Int == 1)
            #expect(legs.last?["passed_to"] as? String == "bob")
            // The owner turns it off: Bob's run keeps the baton with him.
            let changed = try await client.call(.patch, "/v1/groups/\(id)", token: ada, json: ["auto_pass": false])
            #expect(changed.status == .ok && changed["auto_pass"] as? Bool == false)
            _ = try await client.upload(
                bob, uuid: UUID().uuidString.lowercased(),
                file: RunFiles.fit(start: start.advanced(byNanoseconds: 3600 * nanosecondsPerSecond)))
            let after = try await client.call(.get, "/v1/groups/\(id)/baton", token: bob)
            #expect((after["baton"] as? [String: Any])?["holder"] as? String == "bob")
        }
    }
}
