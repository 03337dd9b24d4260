import Foundation
import GroupStore
import HandoffAPI
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Linking a pack with the device flow (RFC 8628)")
struct DeviceTests {
    /// Runs the flow through the JSON API; returns the device token.
    static func link(
        _ client: any TestClientProtocol, _ session: String, name: String = "ada's pack"
    ) async throws
        -> String
    {
        let code = try await client.call(.post, "/v1/device/code", json: ["name": name])
        let deviceCode = try #require(code["device_code"] as? String)
        let userCode = try #require(code["user_code"] as? String)
        let approved = try await client.call(.post, "/v1/device/approve", token: session, json: ["user_code": userCode])
        #expect(approved.status == .ok && approved["name"] as? String == name)
        let token = try await client.call(.post, "/v1/device/token", json: ["device_code": deviceCode])
        return try #require(token["access_token"] as? String)
    }

    @Test(
        "Code, pending, slow down, approve, token; the device token is scoped and revoked at once",
        arguments: Backend.available)
    func flow(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        // The polls' spacing is the store's clock's, not the machine's: under load two requests
        // may be seconds apart.
        harness.clock.freeze()
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let code = try await client.call(.post, "/v1/device/code", json: ["name": "ada's pack"])
            #expect(code.status == .ok)
            let userCode = try #require(code["user_code"] as? String)
            let deviceCode = try #require(code["device_code"] as? String)
            #expect(userCode.count == 9 && userCode.allSatisfy { "BCDFGHJKLMNPQRSTVWXZ-".contains($0) })
            #expect((code["verification_uri"] as? String)?.hasSuffix("/device") == true)
            #expect(
                code["verification_uri_complete"] as? String == (code["verification_uri"] as? String ?? "") + "?code="
                    + userCode)
            #expect(code["interval"] as? Int == 5 && code["expires_in"] as? Int == 900)

            let pending = try await client.call(.post, "/v1/device/token", json: ["device_code": deviceCode])
            #expect(pending.status == .badRequest && pending.errorCode == "authorization_pending")
            let fast = try await client.call(.post, "/v1/device/token", json: ["device_code": deviceCode])
            #expect(fast.status == .badRequest && fast.errorCode == "slow_down")
            // Slowed to 10 s: a poll 10 s later is on time again.
            harness.clock.advance(seconds: 10)
            let patient = try await client.call(.post, "/v1/device/token", json: ["device_code": deviceCode])
            #expect(patient.status == .badRequest && patient.errorCode == "authorization_pending")

            let wrong = try await client.call(.post, "/v1/device/approve", token: ada, json: ["user_code": "BBBB-BBBB"])
            #expect(wrong.status == .notFound && wrong.errorCode == "unknown_code")
            let approved = try await client.call(
                .post, "/v1/device/approve", token: ada,
                json: ["user_code": userCode.lowercased().replacingOccurrences(of: "-", with: " ")])
            #expect(approved.status == .ok)
            let granted = try await client.call(.post, "/v1/device/token", json: ["device_code": deviceCode])
            let grant = try granted.decode(DeviceToken.self)
            #expect(granted.status == .ok && grant.tokenType == "Bearer")
            #expect(grant.account.username == "ada")
            let device = grant.accessToken
            let reused = try await client.call(.post, "/v1/device/token", json: ["device_code": deviceCode])
            #expect(reused.status == .badRequest && reused.errorCode == "expired_token", "a code yields one token")

            // What a pack may do, and what it may not.
            #expect(try await client.call(.get, "/v1/me", token: device).status == .ok)
            let (id, _) = try await client.createGroup(ada)
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/take", token: device).status == .ok)
            let uploaded = UUID().uuidString.lowercased()
            let upload = try await client.upload(
                device, uuid: uploaded,
                file: RunFiles.fit(start: harness.clock.now))
            #expect(upload.status == .created)
            // `handoff delete` deletes a synced run on the store with the pack's token (issue 29).
            #expect(try await client.call(.delete, "/v1/runs/\(uploaded)", token: device).status == .noContent)
            for (method, path, body) in [
                (HTTPRequest.Method.post, "/v1/groups", ["name": "x", "goal_m": 1] as [String: Any]),
                (.patch, "/v1/me", ["username": "mallory"]),
                (.get, "/v1/devices", nil), (.get, "/v1/runs", nil), (.delete, "/v1/groups/\(id)", nil),
            ] {
                let refused = try await client.call(method, path, token: device, json: body)
                #expect(refused.status == .forbidden && refused.errorCode == "wrong_scope", "\(method) \(path)")
            }

            let devices = try await client.call(.get, "/v1/devices", token: ada)
            let listed = try #require(try devices.decode(DeviceList.self).devices.first)
            #expect(listed.name == "ada's pack")
            let deviceID = listed.id
            #expect(try await client.call(.delete, "/v1/devices/\(deviceID)", token: ada).status == .noContent)
            let revoked = try await client.call(.get, "/v1/me", token: device)
            #expect(revoked.status == .unauthorized && revoked.errorCode == "invalid_token")
            #expect(try await client.call(.delete, "/v1/devices/\(deviceID)", token: ada).status == .notFound)
            let badName = try await client.call(.post, "/v1/device/code", json: ["name": ""])
            #expect(badName.status == .unprocessableContent)
            let unknown = try await client.call(.post, "/v1/device/token", json: ["device_code": "nonsense"])
            #expect(unknown.errorCode == "expired_token")
        }
    }

    @Test(
        "A pack that keeps talking keeps its runner's baton; a silent one loses it after the lease",
        arguments: Backend.available)
    func packKeepsLease(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let device = try await Self.link(client, ada)
            let (id, invite) = try await client.createGroup(ada, lease: 1)
            try await client.join(bob, invite)
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/take", token: device).status == .ok)
            for _ in 0..<3 {
                harness.clock.advance(seconds: 50 * 60)
                #expect(try await client.call(.get, "/v1/me", token: device).status == .ok)
            }
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/take", token: bob).status == .conflict)
            harness.clock.advance(seconds: 61 * 60)
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/take", token: bob).status == .ok)
        }
    }

    @Test(
        "The web flow: the device page asks to sign in, then links the pack with the code", arguments: Backend.available
    )
    func webFlow(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            _ = try await client.signUp("ada")
            let code = try await client.call(.post, "/v1/device/code", json: ["name": "trail pack"])
            let userCode = try #require(code["user_code"] as? String)
            let deviceCode = try #require(code["device_code"] as? String)

            let anonymous = try await client.call(.get, "/device?code=\(userCode)")
            #expect(anonymous.status == .seeOther)
            #expect(anonymous.headers[.location] == "/login?next=/device%3Fcode%3D\(userCode)")
            let form = try await client.call(.get, "/login?next=/device%3Fcode%3D\(userCode)")
            #expect(form.status == .ok && form.text.contains("value=\"/device?code=\(userCode)\""))
            let badLogin = try await client.call(
                .post, "/login", body: Array("login=ada&password=nope&next=%2Fdevice".utf8),
                contentType: "application/x-www-form-urlencoded")
            #expect(badLogin.status == .unauthorized && badLogin.text.contains("wrong"))
            let login = try await client.call(
                .post, "/login",
                body: Array("login=ada&password=correct+horse+battery&next=%2Fdevice%3Fcode%3D\(userCode)".utf8),
                contentType: "application/x-www-form-urlencoded")
            #expect(login.status == .seeOther && login.headers[.location] == "/device?code=\(userCode)")
            let setCookie = try #require(login.headers[.setCookie])
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
            let cookie = String(setCookie.split(separator: ";")[0])

            let page = try await client.call(.get, "/device?code=\(userCode)", headers: [.cookie: cookie])
            #expect(page.status == .ok && page.text.contains("value=\"\(userCode)\""))
            #expect(page.text.contains("A pack named <strong>trail pack</strong> asks to be linked"))
            let stale = try await client.call(.get, "/device?code=BBBB-BBBB", headers: [.cookie: cookie])
            #expect(stale.status == .ok && stale.text.contains("No pack is waiting with the code BBBB-BBBB"))
            let crossSite = try await client.call(
                .post, "/device", body: Array("user_code=\(userCode)".utf8),
                contentType: "application/x-www-form-urlencoded",
                headers: [.cookie: cookie, .origin: "https://evil.example"])
            #expect(crossSite.status == .forbidden)
            let linked = try await client.call(
                .post, "/device", body: Array("user_code=\(userCode)".utf8),
                contentType: "application/x-www-form-urlencoded", headers: [.cookie: cookie])
            #expect(linked.status == .ok && linked.text.contains("trail pack"))
            let token = try await client.call(.post, "/v1/device/token", json: ["device_code": deviceCode])
            #expect(token.status == .ok)
            let open = try await client.call(
                .post, "/login", body: Array("login=ada&password=correct+horse+battery&next=%2F%2Fevil.example".utf8),
                contentType: "application/x-www-form-urlencoded")
            #expect(open.headers[.location] == "/", "no redirect off the site")
        }
    }
}
