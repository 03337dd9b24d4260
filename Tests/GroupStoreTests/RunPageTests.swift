import ActivityFormats
import Foundation
import GroupStore
import HTTPTypes
import HandoffAPI
import HandoffModel
import Testing

/// The run pages' routes: statuses, redirects and headers (the markup is the golden pages').
@Suite("Run pages: list, page, files, delete, upload")
struct RunPageTests {
    static func form(_ files: [(name: String, bytes: [UInt8])]) -> (body: [UInt8], type: String) {
        let boundary = "handoff-\(UUID().uuidString)"
        var body: [UInt8] = []
        for file in files {
            body += Array(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(file.name)\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                    .utf8)
            body += file.bytes + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    @Test(
        "A run's pages answer only their owner; files download as original, FIT, GPX and TCX; deleting asks, then goes",
        arguments: Backend.available)
    func runPages(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            _ = try await client.signUp("bob")
            let uuid = UUID().uuidString.lowercased()
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            #expect(try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start)).status == .created)
            let ours = try await client.webSignIn("ada").cookie
            let theirs = try await client.webSignIn("bob").cookie
            let stylesheet = try await client.call(.get, "/static/style.css?v=1")
            #expect(stylesheet.status == .ok && stylesheet.headers[.contentType] == "text/css; charset=utf-8")
            #expect(stylesheet.headers[.cacheControl] == "public, max-age=31536000, immutable")
            let script = try await client.call(.get, "/static/app.js?v=1")
            #expect(script.status == .ok && script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.text.contains("navigator.clipboard"))

            for path in ["/runs", "/runs/\(uuid)", "/runs/\(uuid)/delete", "/runs/upload"] {
                let page = try await client.call(.get, path, headers: [.cookie: ours])
                #expect(page.status == .ok && page.headers[.contentType] == "text/html; charset=utf-8", "\(path)")
                #expect(page.headers[.contentSecurityPolicy] == WebPagesPolicy.expected, "\(path)")
                let anonymous = try await client.call(.get, path)
                #expect(anonymous.status == .seeOther && anonymous.headers[.location]?.hasPrefix("/login") == true)
            }
            #expect(
                try await client.call(.get, "/runs?after=nonsense", headers: [.cookie: ours]).status
                    == .unprocessableContent)
            // Another person's run, a run that does not exist and a malformed uuid answer alike.
            for path in ["/runs/\(uuid)", "/runs/\(UUID().uuidString)", "/runs/not-a-uuid", "/runs/\(uuid)/download"] {
                #expect(try await client.call(.get, path, headers: [.cookie: theirs]).status == .notFound, "\(path)")
            }
            #expect(
                try await client.call(.post, "/runs/\(uuid)/delete", headers: [.cookie: theirs]).status == .notFound)

            let original = try await client.call(.get, "/runs/\(uuid)/download", headers: [.cookie: ours])
            #expect(original.status == .ok && original.headers[.contentType] == "application/vnd.ant.fit")
            #expect(original.headers[.contentDisposition] == "attachment; filename=\"\(uuid).fit\"")
            #expect(Array(original.body) == RunFiles.fit(start: start))
            for (format, type) in [
                ("gpx", "application/gpx+xml"), ("tcx", "application/vnd.garmin.tcx+xml"),
                ("fit", "application/vnd.ant.fit"),
            ] {
                let file = try await client.call(
                    .get, "/runs/\(uuid)/download?format=\(format)", headers: [.cookie: ours])
                #expect(file.status == .ok && file.headers[.contentType] == type, "\(format)")
                #expect(file.headers[.contentDisposition] == "attachment; filename=\"\(uuid).\(format)\"")
                let read = try ActivityFormat(rawValue: format)?.read(Array(file.body))
                // GPX has no start of its own: its first point's time, a second in.
                let offset =
                    ((read?.start.nanosecondsSinceEpoch ?? 0) - start.nanosecondsSinceEpoch) / nanosecondsPerSecond
                #expect(read?.points.count == 600 && (0...1).contains(offset), "\(format) reads back as the same run")
            }
            #expect(
                try await client.call(.get, "/runs/\(uuid)/download?format=csv", headers: [.cookie: ours]).status
                    == .unprocessableContent)

            // The same numbers for other clients: the route, the series, the splits.
            let details = try await client.call(.get, "/v1/runs/\(uuid)/details", token: ada)
            #expect(details.status == .ok)
            let run = try details.decode(RunDetails.self)
            let track = try #require(run.track)
            #expect(track.recordedPoints == 600 && track.segments.count == 1)
            #expect(track.segments[0].count == 3, "a straight line keeps its ends and its chunks' ends (512 points)")
            #expect(run.series.heartRateBpm.count == 240 && run.series.heartRateBpm.allSatisfy { $0 == 150 })
            #expect(run.splits.count == 2 && run.splits[0].distanceM >= 1000)
            #expect(try await client.call(.get, "/v1/runs/\(uuid)/details").status == .unauthorized)
            #expect(
                try await client.call(.get, "/v1/runs/\(UUID().uuidString)/details", token: ada).status == .notFound)

            let elsewhere = try await client.call(
                .post, "/runs/\(uuid)/delete", headers: [.cookie: ours, .origin: "https://evil.example"])
            #expect(elsewhere.status == .forbidden)
            let deleted = try await client.call(.post, "/runs/\(uuid)/delete", headers: [.cookie: ours])
            #expect(deleted.status == .seeOther && deleted.headers[.location] == "/runs")
            #expect(try await client.call(.get, "/v1/runs/\(uuid)", token: ada).status == .notFound)
            #expect(try await client.call(.get, "/runs/\(uuid)", headers: [.cookie: ours]).status == .notFound)
        }
    }

    @Test(
        "A file with absurd altitudes (1e19 and ±1e308 m) draws a page and its details: the store does not trap",
        arguments: Backend.available)
    func absurdValues(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        let now = harness.clock.now
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let start = CivilTime(now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond))
            func time(_ second: Int) -> String {
                String(
                    format: "%04d-%02d-%02dT%02d:%02d:%02dZ", start.year, start.month, start.day, start.hour,
                    start.minute, second)
            }
            let points = [("0", 0), ("1e19", 10), ("1e308", 20), ("1e308", 30), ("-1e308", 40), ("12", 50)].enumerated()
                .map {
                    index, point in
                    "<trkpt lat=\"48.2\(index)\" lon=\"16.37\"><ele>\(point.0)</ele><time>\(time(point.1))</time></trkpt>"
                }
            let gpx = """
                <?xml version="1.0" encoding="UTF-8"?>
                <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>\(points.joined())</trkseg></trk></gpx>
                """
            let uuid = UUID().uuidString.lowercased()
            let upload = try await client.call(
                .put, "/v1/runs/\(uuid)", token: ada, body: Array(gpx.utf8), contentType: "application/gpx+xml")
            #expect(upload.status == .created, "\(upload.text)")
            let cookie = try await client.webSignIn("ada").cookie
            #expect(try await client.call(.get, "/runs/\(uuid)", headers: [.cookie: cookie]).status == .ok)
            #expect(try await client.call(.get, "/v1/runs/\(uuid)/details", token: ada).status == .ok)
            #expect(try await client.call(.get, "/v1/health").status == .ok, "the store is still up")
        }
    }

    @Test(
        "With --map-tiles, the run's page lays the operator's tiles under the route, allows only that origin and shows the attribution; without, nothing from elsewhere",
        arguments: Backend.available)
    func mapTiles(_ backend: Backend) async throws {
        var harness = try StoreHarness(backend)
        harness.configuration.mapTiles = try MapTiles(
            template: "https://tiles.example.org/osm/{z}/{x}/{y}.png", attribution: "© OpenStreetMap contributors")
        let now = harness.clock.now
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let uuid = UUID().uuidString.lowercased()
            let start = now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            #expect(try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start)).status == .created)
            let cookie = try await client.webSignIn("ada").cookie
            let page = try await client.call(.get, "/runs/\(uuid)", headers: [.cookie: cookie])
            #expect(page.status == .ok)
            #expect(
                page.headers[.contentSecurityPolicy]?.contains("img-src 'self' data: https://tiles.example.org;")
                    == true)
            // RunFiles' run goes 1.8 km north from 48.2° N, 16.37° E: the box is about two zoom-15
            // tiles wide (128 to 256 units each), and the route is on tile x 17874, y 11362.
            #expect(page.text.contains("<image href=\"https://tiles.example.org/osm/15/17874/11362.png\""))
            #expect(page.text.contains("© OpenStreetMap contributors</text>"))
            let other = try await client.call(.get, "/runs", headers: [.cookie: cookie])
            #expect(other.headers[.contentSecurityPolicy] == WebPagesPolicy.expected, "only the run's page")
        }
        #expect(throws: StoreError.self) { try MapTiles(template: "ftp://x/{z}/{x}/{y}", attribution: "") }
        #expect(throws: StoreError.self) { try MapTiles(template: "https://x/\"/{z}/{x}/{y}", attribution: "") }
        #expect(throws: StoreError.self) { try MapTiles(template: "https://x/{z}/{x}", attribution: "") }
    }

    @Test(
        "Uploading from the form stores each good file once, names each refused one, and refuses forms from elsewhere",
        arguments: Backend.available)
    func upload(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let cookie = try await client.webSignIn("ada").cookie
            let start = harness.clock.now.advanced(byNanoseconds: -7_200 * nanosecondsPerSecond)
            let good = RunFiles.fit(start: start, seconds: 900, speed: 3)
            let form = Self.form([("a.fit", good), ("<b>bad</b>.gpx", Array("<gpx".utf8))])
            let sent = try await client.call(
                .post, "/runs/upload", body: form.body, contentType: form.type, headers: [.cookie: cookie])
            #expect(sent.status == .ok)
            #expect(sent.text.contains("&lt;b&gt;bad&lt;/b&gt;.gpx"), "the refused file is named, as text")
            let runs = try await client.call(.get, "/v1/runs", token: ada).decode(RunList.self).runs
            #expect(runs.count == 1 && runs.first?.distanceM == 2700)

            // The same file again is the same run: stored once.
            let again = try await client.call(
                .post, "/runs/upload", body: form.body, contentType: form.type, headers: [.cookie: cookie])
            #expect(again.status == .ok && again.text.contains("Already stored"))
            #expect(try await client.call(.get, "/v1/runs", token: ada).decode(RunList.self).runs.count == 1)

            // A file a pack already uploaded under its own uuid is that run, not a second one.
            let packs = RunFiles.fit(start: start.advanced(byNanoseconds: 3_600 * nanosecondsPerSecond), seconds: 600)
            #expect(try await client.upload(ada, uuid: UUID().uuidString, file: packs).status == .created)
            let sentBack = Self.form([("from the pack.fit", packs)])
            let resent = try await client.call(
                .post, "/runs/upload", body: sentBack.body, contentType: sentBack.type, headers: [.cookie: cookie])
            #expect(resent.status == .ok && resent.text.contains("Already stored"))
            #expect(try await client.call(.get, "/v1/runs", token: ada).decode(RunList.self).runs.count == 2)

            let bad = Self.form([("x.fit", [0, 1, 2])])
            #expect(
                try await client.call(
                    .post, "/runs/upload", body: bad.body, contentType: bad.type, headers: [.cookie: cookie]
                )
                .status == .unprocessableContent)
            let none = Self.form([])
            #expect(
                try await client.call(
                    .post, "/runs/upload", body: none.body, contentType: none.type, headers: [.cookie: cookie]
                )
                .status == .unprocessableContent)
            #expect(
                try await client.call(
                    .post, "/runs/upload", body: Array("file=x".utf8), contentType: "application/x-www-form-urlencoded",
                    headers: [.cookie: cookie]
                ).status == .badRequest)
            let elsewhere = try await client.call(
                .post, "/runs/upload", body: form.body, contentType: form.type,
                headers: [.cookie: cookie, .origin: "https://evil.example"])
            #expect(elsewhere.status == .forbidden)
            let anonymous = try await client.call(.post, "/runs/upload", body: form.body, contentType: form.type)
            #expect(anonymous.status == .seeOther && anonymous.headers[.location] == "/login?next=/runs/upload")
        }
    }
}

/// The policy every page is sent with.
enum WebPagesPolicy {
    static let expected =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
}
