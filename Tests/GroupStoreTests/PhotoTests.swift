import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import TestSupport
import Testing

@testable import GroupStore

/// Photos (scripts/oracles/photo_oracle.py makes them with Pillow and exiftool, and reads what
/// the store gives back with both).
enum PhotoOracle {
    static let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/oracles/photo_oracle.py")
    static var runnable: Bool { SystemPrograms.runnable("exiftool", "python3") }

    struct Failed: Error, CustomStringConvertible { let description: String }

    static func run(_ arguments: [String]) throws -> String {
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path] + arguments)
        guard result.status == 0 else {
            throw Failed(
                description:
                    "photo_oracle.py \(arguments.first ?? "") failed: \(result.stderr) — scripts/setup --test installs Pillow and exiftool"
            )
        }
        return result.stdout
    }

    /// A phone's photo: GPS, camera, orientation 6, XMP and a comment.
    static func make(_ format: String, in directory: TemporaryDirectory) throws -> [UInt8] {
        let path = directory.file("made.\(format)").path
        _ = try run(["make", format, path])
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A multipart/form-data body of files (a filename) and fields (none).
    static func form(_ parts: [(name: String, filename: String?, bytes: [UInt8])]) -> (body: [UInt8], type: String) {
        let boundary = "handoff-\(UUID().uuidString)"
        var body: [UInt8] = []
        for part in parts {
            let file = part.filename.map { "; filename=\"\($0)\"\r\nContent-Type: application/octet-stream" } ?? ""
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\"\(file)\r\n\r\n".utf8)
            body += part.bytes + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    static func bomb(in directory: TemporaryDirectory) throws -> [UInt8] {
        let path = directory.file("bomb.png").path
        _ = try run(["bomb", path])
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// exiftool's tags, and Pillow's size and pixels' digest, of each file.
    static func inspect(_ files: [[UInt8]], in directory: TemporaryDirectory) throws -> [[String: Any]] {
        var paths: [String] = []
        for (index, bytes) in files.enumerated() {
            let path = directory.file("inspect-\(index)").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let json = try JSONSerialization.jsonObject(with: Data(try run(["inspect"] + paths).utf8))
        return json as? [[String: Any]] ?? []
    }
}

@Suite("Photos: metadata stripped, bombs refused, seen only by whom the rule allows", .serialized)
struct PhotoTests {
    /// What a tag name says of a place, a device or a person, by exiftool's group:tag names.
    static func revealing(_ tags: [String: Any]) -> [String] {
        tags.keys.filter { key in
            ["GPS", "XMP", "Comment", "Make", "Model", "Serial"].contains { key.contains($0) }
        }.sorted()
    }

    @Test(
        "A phone's JPEG and PNG come back without GPS, camera, XMP or comment (exiftool), with the same pixels (Pillow) and the JPEG's orientation",
        .enabled(if: PhotoOracle.runnable, "needs Pillow and exiftool (scripts/setup --test)"),
        arguments: Backend.available)
    func stripped(_ backend: Backend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let jpeg = try PhotoOracle.make("jpeg", in: directory)
        let png = try PhotoOracle.make("png", in: directory)
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let uuid = UUID().uuidString.lowercased()
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            _ = try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start))
            let profile = try await client.call(
                .put, "/v1/me/photo?visibility=public", token: ada, body: jpeg, contentType: "image/jpeg")
            #expect(profile.status == .ok, "\(profile.text)")
            let mine = try profile.decode(PhotoView.self)
            #expect(
                mine.format == "jpeg" && mine.width == 480 && mine.height == 640, "turned a quarter by its orientation")
            #expect(mine.visibility == "public")
            // The type is judged by the bytes: a PNG sent as JPEG is a PNG.
            let added = try await client.call(
                .post, "/v1/runs/\(uuid)/photos", token: ada, body: png, contentType: "image/jpeg")
            #expect(added.status == .created, "\(added.text)")
            let runPhoto = try added.decode(PhotoView.self)
            #expect(runPhoto.format == "png" && runPhoto.visibility == nil)
            var served: [[UInt8]] = []
            for (view, type) in [(mine, "image/jpeg"), (runPhoto, "image/png")] {
                let reply = try await client.call(.get, view.url, token: ada)
                #expect(reply.status == .ok && reply.headers[.contentType] == type)
                #expect(reply.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
                #expect(reply.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
                #expect(Array(reply.body).count == view.size)
                served.append(Array(reply.body))
                let etag = try #require(reply.headers[.eTag])
                let again = try await client.call(.get, view.url, token: ada, headers: [.ifNoneMatch: etag])
                #expect(again.status == .notModified && again.body.isEmpty)
            }
            let seen = try PhotoOracle.inspect([jpeg, served[0], png, served[1]], in: directory)
            try #require(seen.count == 4)
            for (original, cleaned) in [(seen[0], seen[1]), (seen[2], seen[3])] {
                let before = original["tags"] as? [String: Any] ?? [:]
                let after = cleaned["tags"] as? [String: Any] ?? [:]
                #expect(Self.revealing(before).contains("GPS:GPSLatitude"), "the oracle wrote a position to find")
                #expect(Self.revealing(after).isEmpty, "left: \(Self.revealing(after))")
                #expect(cleaned["pixels_sha256"] as? String == original["pixels_sha256"] as? String, "the same pixels")
                #expect(cleaned["size"] as? [Int] == [640, 480])
            }
            #expect((seen[1]["tags"] as? [String: Any])?["IFD0:Orientation"] as? Int == 6, "the JPEG stays upright")
        }
    }

    @Test(
        "Refused with a clear error and nothing stored: not an image, 50 MB, a decompression bomb, a damaged file; an 11th photo on a run",
        .enabled(if: PhotoOracle.runnable, "needs Pillow and exiftool (scripts/setup --test)"),
        arguments: Backend.available)
    func refused(_ backend: Backend) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let jpeg = try PhotoOracle.make("jpeg", in: directory)
        let bomb = try PhotoOracle.bomb(in: directory)
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let huge = Array(jpeg.prefix(1024)) + [UInt8](repeating: 0, count: 50 * 1024 * 1024)
            for (body, status, code, words) in [
                (
                    Array("Not a photo at all".utf8), HTTPResponse.Status.unsupportedMediaType, "not_a_photo",
                    "not a JPEG or PNG"
                ),
                (huge, .contentTooLarge, "photo_too_large", "at most 5 MB"),
                (bomb, .unprocessableContent, "photo_too_many_pixels", "20000 × 20000 pixels"),
                (Array(jpeg.prefix(jpeg.count / 2)), .unprocessableContent, "invalid_photo", "cut short"),
                (
                    Array(Data(base64Encoded: "R0lGODlhAQABAAAAACw=")!), .unsupportedMediaType, "not_a_photo",
                    "JPEG or PNG"
                ),
            ] {
                let reply = try await client.call(
                    .put, "/v1/me/photo", token: ada, body: body, contentType: "image/jpeg")
                #expect(reply.status == status && reply.errorCode == code, "\(code): \(reply.text.prefix(200))")
                #expect(reply.errorMessage.contains(words), "\(reply.errorMessage)")
            }
            #expect(try await client.call(.get, "/v1/me/photo", token: ada).status == .notFound)
            let account = try #require(try await repository.account(username: "ada"))
            #expect(try await repository.photos(account: account.id).isEmpty, "nothing stored")

            // The forms say the same on a page.
            let cookie = try await client.webSignIn("ada").cookie
            let (hugeForm, hugeType) = PhotoOracle.form([("photo", "huge.jpg", huge)])
            let page = try await client.call(
                .post, "/settings/photo", body: hugeForm, contentType: hugeType, headers: [.cookie: cookie])
            #expect(page.status == .contentTooLarge && page.text.contains("A photo is at most 5 MB"))
            let (bombForm, bombType) = PhotoOracle.form([("photo", "bomb.png", bomb)])
            let bombPage = try await client.call(
                .post, "/settings/photo", body: bombForm, contentType: bombType, headers: [.cookie: cookie])
            #expect(bombPage.status == .unprocessableContent && bombPage.text.contains("more than the store takes"))
            #expect(try await repository.photos(account: account.id).isEmpty, "nothing stored")

            // A run keeps ten; another's run, or none, is the 404 of no run.
            let uuid = UUID().uuidString.lowercased()
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            _ = try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start))
            for _ in 0..<10 {
                #expect(
                    try await client.call(.post, "/v1/runs/\(uuid)/photos", token: ada, body: jpeg).status == .created)
            }
            let eleventh = try await client.call(.post, "/v1/runs/\(uuid)/photos", token: ada, body: jpeg)
            #expect(eleventh.status == .conflict && eleventh.errorCode == "too_many_photos")
            let bob = try await client.signUp("bob")
            let other = try await client.call(.post, "/v1/runs/\(uuid)/photos", token: bob, body: jpeg)
            #expect(other.status == .notFound && other.errorCode == "run_not_found")
            #expect(try await repository.photos(account: account.id).count == 10)
        }
    }
}

/// Who sees a photo, against the visibility table written out by hand (`VisibilityTests.table`):
/// a profile photo at each level, and a photo on a run at each level, asked as each kind of viewer
/// by the photo's address, the run's list, and the pages that show them.
@Suite("Who sees a photo: the table, as each kind of viewer")
struct PhotoVisibilityTests {
    @Test(
        "Profile and run photos at every level, as the owner, a friend, a group-mate, a stranger, a blocked group-mate and nobody",
        arguments: Backend.available)
    func table(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            var tokens: [String: String] = [:]
            for name in ["ada", "bob", "cleo", "dan", "eve"] { tokens[name] = try await client.signUp(name) }
            let ada = tokens["ada"]!
            _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: tokens["bob"]!)
            let (_, invite) = try await client.createGroup(ada)
            try await client.join(tokens["cleo"]!, invite)
            try await client.join(tokens["eve"]!, invite)
            _ = try await client.call(.post, "/v1/blocks", token: ada, json: ["username": "eve"])
            // The runs start after cleo and eve joined, so they count in the group.
            harness.clock.advance(seconds: 3 * 3_600)
            let viewers: [(kind: String, name: String?)] = [
                ("the owner", "ada"), ("a friend", "bob"), ("a group-mate", "cleo"), ("a stranger", "dan"),
                ("a blocked group-mate", "eve"), ("nobody signed in", nil),
            ]
            var cookies: [String: String] = [:]
            for case let name? in viewers.map(\.name) { cookies[name] = try await client.webSignIn(name).cookie }
            let photo = Array(Data(base64Encoded: PrivacyWalkTests.tinyPNG)!)
            var checked = 0
            for (index, level) in RunVisibility.allCases.enumerated() {
                let profile = try await client.call(
                    .put, "/v1/me/photo?visibility=\(level.rawValue)", token: ada, body: photo
                ).decode(PhotoView.self)
                let uuid = UUID().uuidString.lowercased()
                let start = harness.clock.now.advanced(byNanoseconds: Int64(index * 900 - 7_200) * nanosecondsPerSecond)
                _ = try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start))
                _ = try await client.call(.patch, "/v1/runs/\(uuid)", token: ada, json: ["visibility": level.rawValue])
                let runPhoto = try await client.call(.post, "/v1/runs/\(uuid)/photos", token: ada, body: photo)
                    .decode(PhotoView.self)
                for viewer in viewers {
                    let expected = VisibilityTests.table[level]?.contains(viewer.kind) == true
                    let token = viewer.name.flatMap { tokens[$0] }
                    let what = "\(level) as \(viewer.kind)"
                    for url in [profile.url, runPhoto.url] {
                        let reply = try await client.call(.get, url, token: token)
                        #expect(reply.status == (expected ? .ok : .notFound), "\(url) \(what)")
                        checked += 1
                    }
                    let cookie: HTTPFields = viewer.name.map { [.cookie: cookies[$0]!] } ?? [:]
                    if viewer.name != nil {  // people's pages are for the signed in
                        let person = try await client.call(.get, "/people/ada", headers: cookie)
                        #expect(person.text.contains(profile.url) == expected, "/people/ada \(what)")
                    }
                    let run = try await client.call(.get, "/runs/\(uuid)", headers: cookie)
                    #expect(run.text.contains(runPhoto.url) == expected, "/runs/\(uuid) \(what)")
                    if let token {
                        let list = try await client.call(.get, "/v1/runs/\(uuid)/photos", token: token)
                        #expect(list.status == (expected ? .ok : .notFound), "photos of the run \(what)")
                        let feed = try await client.call(.get, "/feed", headers: cookie)
                        #expect(
                            !feed.text.contains(runPhoto.url) || expected,
                            "the feed shows the photo only if seen: \(what)")
                    }
                }
            }
            #expect(checked == RunVisibility.allCases.count * 12)
        }
    }
}

@Suite("Photos on the pages: the settings' form, a run's photos, the feed, the export")
struct PhotoPageTests {
    @Test(
        "The forms store, show and delete photos; a refused file is named; the export carries them",
        arguments: Backend.available)
    func forms(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: bob)
            let cookie = try await client.webSignIn("ada").cookie
            let bobCookie = try await client.webSignIn("bob").cookie
            let photo = Array(Data(base64Encoded: PrivacyWalkTests.tinyPNG)!)
            func post(
                _ path: String, _ parts: [(name: String, filename: String?, bytes: [UInt8])]
            ) async throws -> Reply {
                let (body, type) = PhotoOracle.form(parts)
                return try await client.call(.post, path, body: body, contentType: type, headers: [.cookie: cookie])
            }

            // The profile photo: sent with who sees it, shown in the settings and to a friend.
            let set = try await post(
                "/settings/photo", [("photo", "me.png", photo), ("visibility", nil, Array("friends".utf8))])
            #expect(set.status == .seeOther && set.headers[.location] == "/settings?done=photo")
            let settings = try await client.call(.get, "/settings", headers: [.cookie: cookie]).text
            let key = try await client.call(.get, "/v1/me/photo", token: ada).decode(PhotoView.self).key
            #expect(settings.contains("src=\"/photos/\(key)\"") && settings.contains("/settings/photo/delete"))
            #expect(settings.contains("<option value=\"friends\" selected>"))
            #expect(try await client.call(.get, "/people/ada", headers: [.cookie: bobCookie]).text.contains(key))
            let onlyLevel = try await post("/settings/photo", [("visibility", nil, Array("private".utf8))])
            #expect(onlyLevel.status == .seeOther)
            #expect(!(try await client.call(.get, "/people/ada", headers: [.cookie: bobCookie]).text.contains(key)))

            // A run's photos: the good one kept, the other named with its reason.
            let uuid = UUID().uuidString.lowercased()
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            _ = try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start))
            let added = try await post(
                "/runs/\(uuid)/photos",
                [("photo", "finish.png", photo), ("photo", "notes <b>.txt", Array("hello".utf8))])
            #expect(added.status == .unprocessableContent && added.text.contains("Some photos not stored"))
            #expect(added.text.contains("notes &lt;b&gt;.txt: That file is not a JPEG or PNG photo."))
            let page = try await client.call(.get, "/runs/\(uuid)", headers: [.cookie: cookie]).text
            let runKey = try #require(
                try await client.call(.get, "/v1/runs/\(uuid)/photos", token: ada).decode(PhotoList.self).photos.first?
                    .key)
            #expect(page.contains("src=\"/photos/\(runKey)\"") && page.contains("alt=\"Photo 1 of your run\""))
            #expect(page.contains("action=\"/runs/\(uuid)/photos/\(runKey)/delete\""))
            let friendPage = try await client.call(.get, "/runs/\(uuid)", headers: [.cookie: bobCookie]).text
            #expect(friendPage.contains("alt=\"Photo 1 of ada&#39;s run\"") && !friendPage.contains("/delete\""))
            #expect(try await client.call(.get, "/feed", headers: [.cookie: bobCookie]).text.contains(runKey))
            #expect(try await post("/runs/\(uuid)/photos", []).status == .unprocessableContent)

            // The export carries both, and says which is which.
            let export = try await client.call(.get, "/settings/export", headers: [.cookie: cookie])
            let names = ZipReading.names(Array(export.body))
            #expect(names.contains("photos/profile.png") && names.contains("photos/\(uuid)-1.png"), "\(names)")

            // Deleted by their buttons.
            let gone = try await client.call(
                .post, "/runs/\(uuid)/photos/\(runKey)/delete", headers: [.cookie: cookie])
            #expect(gone.status == .seeOther)
            #expect(try await client.call(.get, "/photos/\(runKey)", token: ada).status == .notFound)
            #expect(
                try await client.call(.post, "/settings/photo/delete", headers: [.cookie: cookie]).status == .seeOther)
            #expect(try await client.call(.get, "/v1/me/photo", token: ada).status == .notFound)
            #expect(try await client.call(.delete, "/v1/me/photo", token: ada).errorCode == "photo_not_found")
        }
    }
}
