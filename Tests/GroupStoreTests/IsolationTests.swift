import Foundation
import GroupStore
import HandoffAPI
import Hummingbird
import HummingbirdTesting
import Testing

/// Two groups: A (ada owns it, bob is a member) and B (cyd owns it, dee is a member, cyd holds
/// the baton and has a run and a linked pack). Each case is one route, called by ada or bob with
/// B's ids; each must be refused without revealing or changing anything of B or of cyd.
@Suite("Isolation: a member of one group reaches nothing of another group or account")
struct IsolationTests {
    struct World: Sendable {
        let ada: String
        let bob: String
        let cyd: String
        let groupA: Int
        let groupB: Int
        let inviteB: String
        let runB: String
        let deviceB: Int
        /// ada's browser session.
        let adaCookie: String
        /// The code cyd's pack was linked with, and the device code it polled with.
        let userCodeB: String
        let deviceCodeB: String
    }

    enum Route: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case getGroup, patchGroup, deleteGroup, progress, members, searchMembers, legs, removeMember, leave, rotation,
            baton, takeBaton,
            renewBaton, passBaton, releaseBaton, getRun, getRunFile, deleteRun, putRunOverOthers, revokeDevice,
            groupPage, listGroups, listRuns, listDevices, weeks, me, patchMe, deleteMe, signOut, signIn, signUp,
            joinWithoutInvite, createGroup, approveDevice, devicePage, deviceToken, homePage, unlinkPage
        var testDescription: String { rawValue }

        /// The request, and the statuses that count as refused.
        func request(_ w: World) -> (HTTPRequest.Method, String, [String: Any]?, [HTTPResponse.Status]) {
            let b = "/v1/groups/\(w.groupB)"
            switch self {
            case .getGroup: return (.get, b, nil, [.notFound])
            case .patchGroup: return (.patch, b, ["name": "taken over"], [.notFound])
            case .deleteGroup: return (.delete, b, nil, [.notFound])
            case .progress: return (.get, b + "/progress", nil, [.notFound])
            case .members: return (.get, b + "/members?order=rotation&limit=200", nil, [.notFound])
            case .searchMembers: return (.get, b + "/members?q=d", nil, [.notFound])
            case .legs: return (.get, b + "/legs?cursor=l1.1.1", nil, [.notFound])
            case .removeMember: return (.delete, b + "/members/dee", nil, [.notFound])
            case .leave: return (.delete, b + "/members/me", nil, [.notFound])
            case .rotation: return (.put, b + "/rotation", ["members": ["dee", "cyd"]], [.notFound])
            case .baton: return (.get, b + "/baton", nil, [.notFound])
            case .takeBaton: return (.post, b + "/baton/take", nil, [.notFound])
            case .renewBaton: return (.post, b + "/baton/renew", nil, [.notFound])
            case .passBaton: return (.post, b + "/baton/pass", ["to": "ada"], [.notFound])
            case .releaseBaton: return (.post, b + "/baton/release", nil, [.notFound])
            case .getRun: return (.get, "/v1/runs/\(w.runB)", nil, [.notFound])
            case .getRunFile: return (.get, "/v1/runs/\(w.runB)/file", nil, [.notFound])
            case .deleteRun: return (.delete, "/v1/runs/\(w.runB)", nil, [.notFound])
            case .putRunOverOthers: return (.put, "/v1/runs/\(w.runB)", nil, [.conflict])
            case .revokeDevice: return (.delete, "/v1/devices/\(w.deviceB)", nil, [.notFound])
            case .groupPage: return (.get, "/groups/\(w.groupB)", nil, [.notFound])
            case .joinWithoutInvite: return (.post, "/v1/groups/join", ["invite_code": "ZZZZZZZZZZ"], [.notFound])
            default: return (.get, "", nil, [.ok])
            }
        }
    }

    static func world(_ client: any TestClientProtocol, _ harness: StoreHarness) async throws -> World {
        let ada = try await client.signUp("ada")
        let bob = try await client.signUp("bob")
        let cyd = try await client.signUp("cyd")
        let dee = try await client.signUp("dee")
        let (groupA, inviteA) = try await client.createGroup(ada, name: "A")
        try await client.join(bob, inviteA)
        let (groupB, inviteB) = try await client.createGroup(cyd, name: "B")
        try await client.join(dee, inviteB)
        #expect(try await client.call(.post, "/v1/groups/\(groupB)/baton/take", token: cyd).status == .ok)
        let runB = UUID().uuidString.lowercased()
        #expect(
            try await client.upload(cyd, uuid: runB, file: RunFiles.fit(start: harness.clock.now)).status == .created)
        let code = try await client.call(.post, "/v1/device/code", json: ["name": "cyd's pack"])
        let userCodeB = try #require(code["user_code"] as? String)
        let deviceCodeB = try #require(code["device_code"] as? String)
        #expect(
            try await client.call(.post, "/v1/device/approve", token: cyd, json: ["user_code": userCodeB]).status
                == .ok)
        #expect(try await client.call(.post, "/v1/device/token", json: ["device_code": deviceCodeB]).status == .ok)
        let deviceB = try #require(
            try await client.call(.get, "/v1/devices", token: cyd).decode(DeviceList.self).devices.first.map {
                Int($0.id)
            })
        let cookie = try await client.webSignIn("ada").cookie
        return World(
            ada: ada, bob: bob, cyd: cyd, groupA: groupA, groupB: groupB, inviteB: inviteB, runB: runB,
            deviceB: deviceB, adaCookie: cookie, userCodeB: userCodeB, deviceCodeB: deviceCodeB)
    }

    /// What B and cyd look like from the inside: must be the same after every attempt.
    static func snapshot(_ client: any TestClientProtocol, _ w: World) async throws -> String {
        let progress = try await client.call(.get, "/v1/groups/\(w.groupB)/progress", token: w.cyd)
        let run = try await client.call(.get, "/v1/runs/\(w.runB)", token: w.cyd)
        let devices = try await client.call(.get, "/v1/devices", token: w.cyd)
        let me = try await client.call(.get, "/v1/me", token: w.cyd)
        let groups = try await client.call(.get, "/v1/groups", token: w.cyd)
        return [progress.text, run.text, devices.text, me.text, groups.text].joined(separator: "\n")
    }

    @Test("Refused, and nothing of group B or of cyd changes", arguments: Backend.available, Route.allCases)
    func isolated(_ backend: Backend, _ route: Route) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let w = try await Self.world(client, harness)
            let before = try await Self.snapshot(client, w)
            for token in [w.ada, w.bob] {
                switch route {
                case .listGroups:
                    let list = try await client.call(.get, "/v1/groups", token: token)
                    #expect(try list.decode(GroupList.self).groups.map(\.name) == ["A"])
                case .listRuns:
                    let list = try await client.call(.get, "/v1/runs", token: token)
                    #expect(try list.decode(RunList.self).runs.isEmpty)
                case .listDevices:
                    let list = try await client.call(.get, "/v1/devices", token: token)
                    #expect(try list.decode(DeviceList.self).devices.isEmpty)
                case .weeks:
                    let weeks = try await client.call(.get, "/v1/me/weeks?count=1", token: token)
                    #expect(try weeks.decode(Weeks.self).weeks.first?.runs == 0)
                case .putRunOverOthers:
                    let reply = try await client.upload(
                        token, uuid: w.runB, file: RunFiles.fit(start: harness.clock.now))
                    #expect(reply.status == .conflict && !reply.errorMessage.contains("cyd"))
                case .groupPage:
                    let page = try await client.call(.get, "/groups/\(w.groupB)", headers: [.cookie: w.adaCookie])
                    #expect(page.status == .notFound && !page.text.contains(">B<"))
                case .unlinkPage:
                    let reply = try await client.call(
                        .post, "/devices/\(w.deviceB)/unlink", headers: [.cookie: w.adaCookie])
                    #expect(reply.status == .notFound && !reply.text.contains("cyd"))
                case .homePage:
                    let page = try await client.call(.get, "/", headers: [.cookie: w.adaCookie])
                    #expect(page.status == .ok && page.text.contains(">A<") && !page.text.contains(">B<"))
                    #expect(!page.text.contains("/groups/\(w.groupB)\""))
                case .me:
                    let me = try await client.call(.get, "/v1/me", token: token)
                    #expect(me["username"] as? String != "cyd" && !me.text.contains("cyd@example.org"))
                case .patchMe:
                    // Taking cyd's name or email is refused without saying more than "taken".
                    for change in [
                        ["username": "cyd"],
                        ["email": "cyd@example.org", "current_password": "correct horse battery"],
                    ] {
                        let reply = try await client.call(.patch, "/v1/me", token: token, json: change)
                        #expect(reply.status == .conflict, "\(change): \(reply.json)")
                    }
                case .deleteMe:
                    // Deleting an account deletes the caller's own, never cyd's.
                    let reply = try await client.call(
                        .delete, "/v1/me", token: token, json: ["password": "correct horse battery"])
                    #expect(reply.status == .noContent)
                    #expect(try await client.call(.get, "/v1/me", token: w.cyd)["username"] as? String == "cyd")
                case .signOut:
                    // Signing out ends the caller's session only.
                    #expect(try await client.call(.delete, "/v1/sessions/current", token: token).status == .noContent)
                    #expect(try await client.call(.get, "/v1/me", token: token).status == .unauthorized)
                    #expect(try await client.call(.get, "/v1/me", token: w.cyd).status == .ok)
                case .signIn:
                    let reply = try await client.call(
                        .post, "/v1/sessions", json: ["login": "cyd", "password": "correct horse batteries"])
                    #expect(reply.status == .unauthorized && reply["token"] == nil)
                case .signUp:
                    for (email, username) in [("cyd@example.org", "cyd2"), ("cyd2@example.org", "cyd")] {
                        let reply = try await client.call(
                            .post, "/v1/accounts",
                            json: ["email": email, "username": username, "password": "correct horse battery"])
                        #expect(reply.status == .conflict && reply["token"] == nil, "\(email) \(username)")
                    }
                case .createGroup:
                    // A new group is the caller's; it shares nothing with B.
                    let (id, invite) = try await client.createGroup(token, name: "C")
                    #expect(id != w.groupB && invite != w.inviteB)
                case .approveDevice:
                    // cyd's code was used: it cannot be approved again to take cyd's pack over.
                    let reply = try await client.call(
                        .post, "/v1/device/approve", token: token, json: ["user_code": w.userCodeB])
                    #expect(reply.status == .notFound || reply.status == .conflict, "\(reply.status) \(reply.json)")
                case .devicePage:
                    let reply = try await client.call(
                        .post, "/device", body: Array("user_code=\(w.userCodeB)".utf8),
                        contentType: "application/x-www-form-urlencoded", headers: [.cookie: w.adaCookie])
                    #expect(reply.status == .notFound || reply.status == .conflict, "\(reply.status)")
                    #expect(!reply.text.contains("is linked to your account"))
                case .deviceToken:
                    // The device code of cyd's pack gives no second token, and ada's session is no
                    // device code.
                    for code in [w.deviceCodeB, token] {
                        let reply = try await client.call(.post, "/v1/device/token", json: ["device_code": code])
                        #expect(reply.status == .badRequest && reply["access_token"] == nil, "\(reply.json)")
                    }
                default:
                    let (method, path, body, refused) = route.request(w)
                    let reply = try await client.call(method, path, token: token, json: body)
                    #expect(refused.contains(reply.status), "\(method) \(path): \(reply.status) \(reply.json)")
                    #expect(!reply.text.contains(w.inviteB) && !reply.text.contains("\"B\""))
                }
            }
            #expect(try await Self.snapshot(client, w) == before)
        }
    }
}
