import Foundation
import GroupStore
import HandoffAPI
import HandoffModel
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Groups, members, rotation and the baton over HTTP")
struct GroupTests {
    @Test(
        "Create, join by invite code, change, rotate, leave: owners and members see what they should",
        arguments: Backend.available)
    func lifecycle(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let cyd = try await client.signUp("cyd")
            let created = try await client.call(
                .post, "/v1/groups", token: ada,
                json: ["name": "Danube relay", "goal_m": 1_000_000, "deadline": "2099-06-30T23:59:59Z"])
            #expect(created.status == .created)
            #expect(created["name"] as? String == "Danube relay" && created["owner"] as? String == "ada")
            #expect(created["goal_m"] as? Double == 1_000_000 && created["total_m"] as? Double == 0)
            #expect(created["deadline"] as? String == "2099-06-30T23:59:59Z")
            #expect(created["lease_hours"] as? Double == 6)
            let id = try #require(created["id"] as? Int)
            let invite = try #require(created["invite_code"] as? String)
            #expect(invite.count == 10)

            try await client.join(bob, invite)
            try await client.join(cyd, invite.uppercased())
            try await client.join(cyd, invite)  // again: not an error, not a second membership
            let wrong = try await client.call(.post, "/v1/groups/join", token: bob, json: ["invite_code": "nosuchcode"])
            #expect(wrong.status == .notFound && wrong.errorCode == "unknown_invite")

            let progress = try await client.call(.get, "/v1/groups/\(id)/progress", token: cyd)
            let members = try progress.decode(ProgressView.self).members
            #expect(members.map(\.username) == ["ada", "bob", "cyd"])

            // Only the owner changes the group.
            let notOwner = try await client.call(.patch, "/v1/groups/\(id)", token: bob, json: ["name": "Mine now"])
            #expect(notOwner.status == .forbidden && notOwner.errorCode == "not_owner")
            let changed = try await client.call(
                .patch, "/v1/groups/\(id)", token: ada,
                json: ["name": "Danube relay 2027", "goal_m": 500_000, "deadline": NSNull(), "new_invite_code": true])
            #expect(changed.status == .ok && changed["name"] as? String == "Danube relay 2027")
            #expect(changed["deadline"] is NSNull && changed["goal_m"] as? Double == 500_000)
            #expect(changed["invite_code"] as? String != invite)
            let old = try await client.call(
                .post, "/v1/groups/join", token: try await client.signUp("dee"), json: ["invite_code": invite])
            #expect(old.status == .notFound, "the replaced invite code no longer works")
            let badGoal = try await client.call(.patch, "/v1/groups/\(id)", token: ada, json: ["goal_m": -5])
            #expect(badGoal.status == .unprocessableContent && badGoal.errorCode == "invalid_goal")
            let pastDeadline = try await client.call(
                .patch, "/v1/groups/\(id)", token: ada, json: ["deadline": "2001-01-01T00:00:00Z"])
            #expect(pastDeadline.errorCode == "invalid_deadline")

            // Rotation: every member once.
            let rotation = try await client.call(
                .put, "/v1/groups/\(id)/rotation", token: ada, json: ["members": ["cyd", "ada", "bob"]])
            #expect(rotation.status == .ok)
            #expect(try rotation.decode(MemberList.self).members.map(\.username) == ["cyd", "ada", "bob"])
            let partial = try await client.call(
                .put, "/v1/groups/\(id)/rotation", token: ada, json: ["members": ["cyd", "ada", "zed"]])
            #expect(partial.status == .unprocessableContent && partial.errorMessage.contains("bob"))
            #expect(partial.errorMessage.contains("zed"))

            // The owner leaves: ownership passes to the longest-standing member.
            #expect(try await client.call(.delete, "/v1/groups/\(id)/members/me", token: ada).status == .noContent)
            let after = try await client.call(.get, "/v1/groups/\(id)", token: bob)
            #expect(after["owner"] as? String == "bob")
            #expect(try await client.call(.get, "/v1/groups/\(id)", token: ada).status == .notFound)
            // The new owner removes a member.
            #expect(try await client.call(.delete, "/v1/groups/\(id)/members/cyd", token: bob).status == .noContent)
            #expect(try await client.call(.get, "/v1/groups/\(id)", token: cyd).status == .notFound)
            let list = try await client.call(.get, "/v1/groups", token: bob)
            #expect(try list.decode(GroupList.self).groups.count == 1)
            #expect(try await client.call(.delete, "/v1/groups/\(id)", token: bob).status == .noContent)
            #expect(try await client.call(.get, "/v1/groups/\(id)", token: bob).status == .notFound)
        }
    }

    @Test(
        "The baton: take when free, 409 naming the holder, pass by name and by rotation, release; legs record it",
        arguments: Backend.available)
    func baton(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let cyd = try await client.signUp("cyd")
            let (id, invite) = try await client.createGroup(ada)
            try await client.join(bob, invite)
            try await client.join(cyd, invite)

            let free = try await client.call(.get, "/v1/groups/\(id)/baton", token: bob)
            #expect(try free.status == .ok && free.decode(BatonState.self).baton.holder == nil)
            #expect((free["baton"] as? [String: Any])?["holder"] is NSNull, "written as null")
            let passFree = try await client.call(.post, "/v1/groups/\(id)/baton/pass", token: ada)
            #expect(passFree.status == .conflict && passFree.errorCode == "baton_free")

            let taken = try await client.call(.post, "/v1/groups/\(id)/baton/take", token: ada)
            #expect(taken.status == .ok && taken["holder"] as? String == "ada")
            let again = try await client.call(.post, "/v1/groups/\(id)/baton/take", token: ada)
            #expect(again.status == .ok && again["since"] as? String == taken["since"] as? String, "retaking renews")
            let refused = try await client.call(.post, "/v1/groups/\(id)/baton/take", token: bob)
            #expect(refused.status == .conflict && refused.errorCode == "baton_held")
            #expect(refused.errorMessage.contains("ada"))
            let notHolder = try await client.call(.post, "/v1/groups/\(id)/baton/release", token: bob)
            #expect(notHolder.status == .conflict && notHolder.errorCode == "not_holder")

            let toCy = try await client.call(.post, "/v1/groups/\(id)/baton/pass", token: ada, json: ["to": "cyd"])
            #expect(toCy.status == .ok && toCy["holder"] as? String == "cyd")
            let stranger = try await client.call(.post, "/v1/groups/\(id)/baton/pass", token: cyd, json: ["to": "zed"])
            #expect(stranger.status == .unprocessableContent && stranger.errorCode == "not_a_member")
            // Next in rotation after cyd (ada, bob, cyd) wraps to ada.
            let next = try await client.call(.post, "/v1/groups/\(id)/baton/pass", token: cyd)
            #expect(next["holder"] as? String == "ada")
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/release", token: ada).status == .noContent)

            let state = try await client.call(.get, "/v1/groups/\(id)/baton", token: cyd)
            let legs = try state.decode(BatonState.self).legs
            #expect(legs.map(\.runner) == ["ada", "cyd", "ada"])
            #expect(legs.map(\.ended) == ["released", "passed", "passed"])
            #expect(legs.map(\.passedTo) == [nil, "ada", "cyd"])
        }
    }

    @Test(
        "100 members take the baton at once: exactly one holds it, 99 get 409 naming the holder",
        arguments: Backend.available)
    func contention(_ backend: Backend) async throws {
        try await StoreHarness(backend, transport: .live).run { client, _ in
            let owner = try await client.signUp("owner")
            let (id, invite) = try await client.createGroup(owner)
            var tokens: [String] = []
            for i in 0..<100 {
                let token = try await client.signUp("runner\(i)")
                try await client.join(token, invite)
                tokens.append(token)
            }
            // Each take on a connection of its own, all started together: the server has them in
            // flight at once (on one shared connection it would answer them in turn).
            let inFlight = InFlight()
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for token in tokens {
                    group.addTask {
                        try await inFlight.during {
                            try await client.call(
                                .post, "/v1/groups/\(id)/baton/take", token: token, ownConnection: true)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(inFlight.most > 10, "requests overlapped: at most \(inFlight.most) at once")
            let winners = replies.filter { $0.status == .ok }
            #expect(winners.count == 1)
            let holder = try #require(try winners.first?.decode(BatonView.self).holder)
            let losers = replies.filter { $0.status == .conflict }
            #expect(losers.count == 99)
            #expect(losers.allSatisfy { $0.errorCode == "baton_held" && $0.errorMessage.contains(holder) })
            let state = try await client.call(.get, "/v1/groups/\(id)/baton", token: owner)
            let batonState = try state.decode(BatonState.self)
            #expect(batonState.baton.holder == holder)
            #expect(batonState.legs.count == 1)
        }
    }

    @Test(
        "An expired lease is taken over: the old leg ends when the lease ran out, a device's requests keep it alive",
        arguments: Backend.available)
    func leaseExpiry(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let (id, invite) = try await client.createGroup(ada, lease: 1)
            try await client.join(bob, invite)
            let taken = try await client.call(.post, "/v1/groups/\(id)/baton/take", token: ada)
            let expires = try #require(try taken.decode(BatonView.self).expiresAt)

            // Margins of minutes: a busy machine takes real seconds between these requests.
            harness.clock.advance(seconds: 3000)
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/take", token: bob).status == .conflict)
            // The holder renews (as their pack does by being seen): another hour.
            let renewed = try await client.call(.post, "/v1/groups/\(id)/baton/renew", token: ada)
            let renewedAt = try renewed.decode(BatonView.self).expiresAt
            #expect(renewed.status == .ok && renewedAt != expires, "\(renewed.text)")
            harness.clock.advance(seconds: 3000)
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/take", token: bob).status == .conflict)
            harness.clock.advance(seconds: 700)
            let state = try await client.call(.get, "/v1/groups/\(id)/baton", token: bob)
            #expect(try state.decode(BatonState.self).baton.holder == nil, "an expired lease reads as free")
            #expect((state["baton"] as? [String: Any])?["holder"] is NSNull, "written as null")
            let takeover = try await client.call(.post, "/v1/groups/\(id)/baton/take", token: bob)
            #expect(try takeover.status == .ok && takeover.decode(BatonView.self).holder == "bob")
            let legs = try await client.call(.get, "/v1/groups/\(id)/baton", token: bob).decode(BatonState.self).legs
            #expect(legs.count == 2 && legs[1].ended == "expired")
            #expect(legs[1].endedAt == renewedAt)
            let late = try await client.call(.post, "/v1/groups/\(id)/baton/release", token: ada)
            #expect(late.status == .conflict && late.errorCode == "not_holder")
        }
    }
}
