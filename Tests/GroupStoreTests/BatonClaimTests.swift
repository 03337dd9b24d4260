import Foundation
import GroupStore
import HandoffAPI
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
            let claim = String(
                decoding: try JSONEncoder().encode(UploadSummary(batonClaim: .init(groupID: Int64(group.id)))),
                as: UTF8.self)
            #expect(claim == #"{"baton_claim":{"group_id":\#(group.id)}}"#)
            // Ada ran 0–10 min, Bob 5–15 min, both offline, both claiming the baton.
            let adaFile = RunFiles.fit(start: t0, seconds: 600)
            let bobFile = RunFiles.fit(start: t0.advanced(byNanoseconds: 300 * nanosecondsPerSecond), seconds: 600)
            let adaUUID = UUID().uuidString.lowercased()
            let bobUUID = UUID().uuidString.lowercased()

            // Bob's pack gets home first: his claim holds.
            let bobReply = try await client.upload(bob, uuid: bobUUID, file: bobFile, summary: claim)
            #expect(bobReply.status == .created)
            let bobCounted = try #require(try bobReply.decode(RunView.self).countedIn?.first)
            let leg = try #require(bobCounted.relayLeg, "the accepted claim is a relay leg")
            let baton = try await client.call(.get, "/v1/groups/\(group.id)/baton", token: ada)
            let held = try baton.decode(BatonState.self).baton
            #expect(held.holder == "bob")
            #expect(held.since == CivilTime(t0.advanced(byNanoseconds: 300 * nanosecondsPerSecond)).iso8601())

            // Ada's overlaps Bob's leg: refused, her run counts solo, in full.
            let adaReply = try await client.upload(ada, uuid: adaUUID, file: adaFile, summary: claim)
            #expect(adaReply.status == .created)
            let adaCounted = try #require(try adaReply.decode(RunView.self).countedIn?.first)
            #expect(adaCounted.relayLeg == nil)
            #expect((adaReply["counted_in"] as? [[String: Any]])?.first?["relay_leg"] is NSNull, "written as null")
            let progress = try await client.call(.get, "/v1/groups/\(group.id)/progress", token: ada)
            let view = try progress.decode(ProgressView.self)
            let total = view.group.totalM
            let expected = Double(try RunFiles.distanceMM(adaFile) + RunFiles.distanceMM(bobFile)) / 1000
            #expect(abs(total - expected) < 0.0005)
            let legs = view.legs
            #expect(legs.count == 1 && legs.first?.id == leg && legs.first?.runner == "bob")
            #expect(legs.first?.runs == 1)

            // A repeat of Bob's upload changes nothing; and he can pass the baton on.
            let again = try await client.upload(bob, uuid: bobUUID, file: bobFile, summary: claim)
            #expect(again.status == .ok)
            let passed = try await client.call(
                .post, "/v1/groups/\(group.id)/baton/pass", token: bob, send: BatonPass(to: "ada"))
            #expect(try passed.status == .ok && passed.decode(BatonView.self).holder == "ada")

            // A claim on a group the runner is not in is ignored: the run is simply stored.
            let other = try await client.signUp("cyd")
            let stray = try await client.upload(
                other, uuid: UUID().uuidString.lowercased(), file: RunFiles.fit(start: t0), summary: claim)
            #expect(try stray.status == .created && stray.decode(RunView.self).countedIn?.isEmpty == true)
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
                .post, "/v1/groups", token: ada, send: GroupCreate(name: "Relay", goalM: 100_000, autoPass: true))
            let createdGroup = try created.decode(GroupView.self)
            #expect(created.status == .created && createdGroup.autoPass == true)
            let id = createdGroup.id
            try await client.join(bob, createdGroup.inviteCode)
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/take", token: ada).status == .ok)
            let start = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970.rounded() + 60)
            let reply = try await client.upload(
                ada, uuid: UUID().uuidString.lowercased(), file: RunFiles.fit(start: start))
            #expect(try reply.decode(RunView.self).countedIn?.first?.relayLeg != nil)
            let baton = try await client.call(.get, "/v1/groups/\(id)/baton", token: bob).decode(BatonState.self)
            #expect(baton.baton.holder == "bob")
            let legs = baton.legs
            #expect(legs.count == 2 && legs.last?.ended == "passed" && legs.last?.runs == 1)
            #expect(legs.last?.passedTo == "bob")
            // The owner turns it off: Bob's run keeps the baton with him.
            let changed = try await client.call(
                .patch, "/v1/groups/\(id)", token: ada, send: GroupChange(autoPass: false))
            #expect(try changed.status == .ok && changed.decode(GroupView.self).autoPass == false)
            _ = try await client.upload(
                bob, uuid: UUID().uuidString.lowercased(),
                file: RunFiles.fit(start: start.advanced(byNanoseconds: 3600 * nanosecondsPerSecond)))
            let after = try await client.call(.get, "/v1/groups/\(id)/baton", token: bob)
            #expect(try after.decode(BatonState.self).baton.holder == "bob")
        }
    }
}
