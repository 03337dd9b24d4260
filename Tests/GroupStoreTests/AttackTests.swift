import ActivityFormats
import Foundation
import GroupStore
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 27, findings 1, 3, 7, 10 and 11 as the store sees them: hostile uploads, hidden
/// characters, look-alike names, runs from the future, tokens after a password change, and what
/// a run's uuid reveals. Each attack gets a 4xx and leaves a store that still answers.
@Suite("Attacks through uploads, names and tokens (issue 27)")
struct AttackTests {
    static func alive(_ client: any TestClientProtocol) async throws {
        #expect(try await client.call(.get, "/v1/health", ownConnection: true).status == .ok, "the store still answers")
    }

    @Test("An upload of 1 MB of near-miss boundaries is a quick 400", arguments: Backend.available)
    func nearMissUpload(_ backend: Backend) async throws {
        try await StoreHarness(backend, transport: .live).run { client in
            let ada = try await client.signUp("ada")
            let boundary = String(repeating: "b", count: 70)
            let body = WebFormsTests.nearMiss(boundary: boundary, bytes: 1 << 20)
            let reply = try await client.call(
                .put, "/v1/runs/\(UUID().uuidString.lowercased())", token: ada, body: body,
                contentType: "multipart/form-data; boundary=\(boundary)")
            // That the search is linear is counted in WebFormsTests, not timed here.
            #expect(reply.status == .badRequest && reply.errorCode == "bad_multipart")
            try await Self.alive(client)
        }
    }

    @Test(
        "Summary numbers far out of range (TotalTimeSeconds 1e300) are a 422, never a trap",
        arguments: Backend.available)
    func hugeNumbersInFiles(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend, transport: .live)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let activity = RunFiles.activity(
                start: harness.clock.now.advanced(byNanoseconds: -3_600_000_000_000), seconds: 60, speed: 3)
            let tcx = String(decoding: ActivityFormat.tcx.write(activity), as: UTF8.self)
            for huge in ["1e300", "-1e300", "9.3e15", "NaN"] {
                let text = tcx.replacingOccurrences(
                    of: #"<TotalTimeSeconds>[^<]*</TotalTimeSeconds>"#,
                    with: "<TotalTimeSeconds>\(huge)</TotalTimeSeconds>",
                    options: .regularExpression)
                #expect(text != tcx)
                let reply = try await client.call(
                    .put, "/v1/runs/\(UUID().uuidString.lowercased())", token: ada, body: Array(text.utf8),
                    contentType: "application/vnd.garmin.tcx+xml")
                #expect(reply.status == .unprocessableContent, "\(huge): \(reply.status) \(reply.errorMessage)")
            }
            try await Self.alive(client)
        }
    }

    @Test(
        "A run starting more than 10 minutes after the store's clock is refused; within the skew it counts",
        arguments: Backend.available)
    func futureRuns(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let hour = RunFiles.fit(start: harness.clock.now.advanced(byNanoseconds: 3600 * 1_000_000_000), seconds: 60)
            let late = try await client.upload(ada, uuid: UUID().uuidString.lowercased(), file: hour)
            #expect(late.status == .unprocessableContent && late.errorCode == "implausible_run")
            #expect(late.errorMessage.contains("10 minutes"))
            let skew = RunFiles.fit(start: harness.clock.now.advanced(byNanoseconds: 300 * 1_000_000_000), seconds: 60)
            #expect(try await client.upload(ada, uuid: UUID().uuidString.lowercased(), file: skew).status == .created)
        }
    }

    @Test(
        "NUL, controls and text-direction characters in names are a 400 naming the field; a NUL in a password a 422",
        arguments: Backend.available)
    func hiddenCharacters(_ backend: Backend) async throws {
        try await StoreHarness(backend, transport: .live).run { client in
            func signUp(
                _ email: String, _ username: String, _ password: String = "correct horse battery"
            )
                async throws -> Reply
            {
                try await client.call(
                    .post, "/v1/accounts", json: ["email": email, "username": username, "password": password])
            }
            let nulEmail = try await signUp("\u{0}@x.io", "nul")
            #expect(nulEmail.status == .badRequest && nulEmail.errorCode == "invalid_text")
            #expect(nulEmail.errorMessage.contains("email") && nulEmail.errorMessage.contains("U+0000"))
            for name in ["ad\u{202E}a", "ad\u{2066}a", "ad\u{200F}a", "ad\u{7F}a", "ad\u{85}a", "ad\ta"] {
                let reply = try await signUp("x@x.io", name)
                #expect(
                    reply.status == .badRequest && reply.errorMessage.contains("username"), "\(name.debugDescription)")
            }
            let nulPassword = try await signUp("abc@x.io", "abc", "abc\u{0}defghijkl")
            #expect(nulPassword.status == .unprocessableContent && nulPassword.errorCode == "invalid_password")

            let ada = try await client.signUp("ada")
            for name in ["\u{0}hidden", "evil\u{202E}txt.exe", "line\nbreak"] {
                let group = try await client.call(
                    .post, "/v1/groups", token: ada, json: ["name": name, "goal_m": 1000])
                #expect(group.status == .badRequest && group.errorMessage.contains("name"), "\(name.debugDescription)")
            }
            let pack = try await client.call(.post, "/v1/device/code", json: ["name": "pack\u{0}"])
            #expect(pack.status == .badRequest && pack.errorMessage.contains("name"))
            let change = try await client.call(
                .patch, "/v1/me", token: ada,
                json: ["password": "abc\u{0}defghijkl", "current_password": "correct horse battery"])
            #expect(change.status == .unprocessableContent && change.errorCode == "invalid_password")
            let login = try await client.call(.post, "/v1/sessions", json: ["login": "ada\u{0}", "password": "x"])
            #expect(login.status == .badRequest, "a NUL in a login is refused alike on both engines, not a 500")

            // Text beyond ASCII is stored byte for byte (bound by its UTF-8 length).
            let name = "Läufer 🏃 Åsa"
            let group = try await client.call(.post, "/v1/groups", token: ada, json: ["name": name, "goal_m": 1000])
            #expect(group.status == .created && group["name"] as? String == name)
            let id = try #require(group["id"] as? Int)
            #expect(try await client.call(.get, "/v1/groups/\(id)", token: ada)["name"] as? String == name)
            try await Self.alive(client)
        }
    }

    @Test(
        "Look-alike names are one account: the Kelvin sign is the K of a taken name, and NFC, NFD and full-width e-mail collide",
        arguments: Backend.available)
    func lookAlikes(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            // NFC turns the Kelvin sign into the letter K itself: "\u{212A}ate" is "Kate", taken.
            _ = try await client.signUp("kate")
            let kelvin = try await client.call(
                .post, "/v1/accounts",
                json: ["email": "k@x.io", "username": "\u{212A}ATE", "password": "correct horse battery"])
            #expect(kelvin.status == .conflict && kelvin.errorCode == "username_taken")
            let wide = try await client.call(
                .post, "/v1/accounts",
                json: ["email": "w@x.io", "username": "\u{FF4B}ate", "password": "correct horse battery"])
            #expect(wide.status == .unprocessableContent && wide.errorCode == "invalid_username")
            let nfd = try await client.call(
                .post, "/v1/accounts",
                json: ["email": "jose\u{301}@example.org", "username": "jose", "password": "correct horse battery"])
            #expect(nfd.status == .created)
            #expect(try nfd.decode(SignedIn.self).account.email == "jos\u{E9}@example.org", "stored in NFC")
            for email in ["jos\u{E9}@example.org", "JOSE\u{301}@example.org", "\u{FF4A}os\u{E9}@example.org"] {
                let twin = try await client.call(
                    .post, "/v1/accounts",
                    json: ["email": email, "username": "other\(email.count)", "password": "correct horse battery"])
                #expect(twin.status == .conflict && twin.errorCode == "email_taken", "\(email)")
            }
            let signIn = try await client.call(
                .post, "/v1/sessions", json: ["login": "jos\u{E9}@example.org", "password": "correct horse battery"])
            #expect(signIn.status == .ok)
        }
    }

    @Test(
        "A new password ends every other session and the packs' ten-year tokens: the pack gets 401",
        arguments: Backend.available)
    func passwordChangeEndsDeviceTokens(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            let ada = try await client.signUp("ada")
            let device = try await DeviceTests.link(client, ada)
            #expect(try await client.call(.get, "/v1/me", token: device).status == .ok)
            let change = try await client.call(
                .patch, "/v1/me", token: ada,
                json: ["password": "a brand new password", "current_password": "correct horse battery"])
            #expect(change.status == .ok)
            let pack = try await client.call(.get, "/v1/me", token: device)
            #expect(pack.status == .unauthorized && pack.errorCode == "invalid_token")
            #expect(try await client.call(.get, "/v1/me", token: ada).status == .ok, "the changing session stays")
            let devices = try await client.call(.get, "/v1/devices", token: ada)
            #expect((devices["devices"] as? [Any])?.isEmpty == true, "the pack is unlinked")
        }
    }

    @Test(
        "PUT of a uuid someone else holds answers exactly as one's own uuid with another file: nothing tells whose",
        arguments: Backend.available)
    func uuidConflictsLookAlike(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let start = harness.clock.now.advanced(byNanoseconds: -7200 * 1_000_000_000)
            let file = RunFiles.fit(start: start, seconds: 60)
            let other = RunFiles.fit(start: start, seconds: 90)
            let uuid = UUID().uuidString.lowercased()
            #expect(try await client.upload(ada, uuid: uuid, file: file).status == .created)
            let own = try await client.upload(ada, uuid: uuid, file: other)
            let theirsSame = try await client.upload(bob, uuid: uuid, file: file)
            let theirsOther = try await client.upload(bob, uuid: uuid, file: other)
            for reply in [own, theirsSame, theirsOther] {
                #expect(reply.status == .conflict && reply.errorCode == "run_conflict")
                #expect(reply.errorMessage == own.errorMessage && !reply.errorMessage.contains("uploaded"))
            }
        }
    }
}
