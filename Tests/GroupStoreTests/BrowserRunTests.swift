import ActivityFormats
import Foundation
import GroupStore
import HandoffModel
import TestSupport
import Testing

/// A run's pages in Chromium: uploading real watch files through the form, the run list, and the
/// run's page with its route and charts, read back from the SVG and checked against the file.
@Suite(
    "Runs in Chromium", .serialized,
    .enabled(
        if: SystemPrograms.runnable("chromium", "chromedriver") && Fixtures.available,
        "needs Chromium, chromedriver (scripts/setup --test) and ../shared/fixtures")
)
struct BrowserRunTests {
    @Test(
        "Upload a real FIT file and a corrupt one from the form; the run's page draws the route within 2 m of the file's track and charts its heart rate",
        arguments: Backend.available)
    func uploadAndRunPage(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend, transport: .live)
        let fit = try Fixtures.url("files/fit/activity-small-fenix2-run.fit")
        let activity = try ActivityFormat.fit.read([UInt8](try Data(contentsOf: fit)))
        // The files as a person's computer names them: one with markup in its name.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-upload-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("morning run.fit")
        try FileManager.default.copyItem(at: fit, to: good)
        let bad = folder.appendingPathComponent("<img src=x onerror=alert(1)>.fit")
        try Data([0x0E, 0x10, 0x43, 0x08, 0x64, 0x00, 0x00, 0x00, 0x2E, 0x46, 0x49, 0x54, 0, 0]).write(to: bad)

        try await harness.run { client in
            let origin = "http://127.0.0.1:\(try #require(client.port))"
            _ = try await client.signUp("ada")
            let browser = try await Browser()
            do {
                try await browser.open(origin + "/login?next=/runs/upload")
                try await browser.type("ada", into: "input[name=login]")
                try await browser.type("correct horse battery", into: "input[name=password]")
                try await browser.click("form[action='/login'] button")
                try await browser.waitFor("the upload page") { $0 == origin + "/runs/upload" }
                try await browser.type(good.path + "\n" + bad.path, into: "input[type=file]")
                try await browser.click("form[action='/runs/upload'] button")
                let results = try await browser.all("#results li")
                #expect(results.count == 2)
                #expect(try await browser.text(results[0]) == "morning run.fit: Stored")
                let refused = try await browser.text(results[1])
                #expect(
                    refused.hasPrefix("<img src=x onerror=alert(1)>.fit: the FIT file cannot be read"), "\(refused)")
                #expect(try await browser.all("img").isEmpty, "the file's name is text, not markup")

                try await browser.click("#results a")
                let page = try await browser.waitFor("the run's page") { $0.hasPrefix(origin + "/runs/") }
                #expect(try await browser.text("h1").hasPrefix("Run, "))
                try save(try await browser.pageScreenshot(width: 390), "run-page-390-\(backend.rawValue).png")
                try save(try await browser.pageScreenshot(width: 1280), "run-page-1280-\(backend.rawValue).png")
                let width =
                    try await browser.script("return [document.documentElement.scrollWidth, window.innerWidth]")
                    as? [Int]
                #expect(width.map { $0[0] <= $0[1] } == true, "the page is \(width ?? []) px wide")

                // The route: every drawn point, un-projected, lies within 2 m of a recorded position.
                let map = try #require(
                    try await browser.script(
                        """
                        const svg = document.querySelector('#route svg');
                        return [svg.dataset.originX, svg.dataset.originY, svg.dataset.scale,
                          [...svg.querySelectorAll('polyline')].map(p => p.getAttribute('points'))];
                        """) as? [Any])
                let (originX, originY, scale) = (
                    try #require(Double(map[0] as? String ?? "")), try #require(Double(map[1] as? String ?? "")),
                    try #require(Double(map[2] as? String ?? ""))
                )
                let drawn = (map[3] as? [String] ?? []).flatMap { line in
                    line.split(separator: " ").compactMap { pair -> Position? in
                        let xy = pair.split(separator: ",").compactMap { Double($0) }
                        guard xy.count == 2 else { return nil }
                        return WebMercator.unproject(x: originX + xy[0] / scale, y: originY + xy[1] / scale)
                    }
                }
                let recorded = activity.points.compactMap { point in
                    point.latitude.flatMap { latitude in
                        point.longitude.map { Position(latitude: latitude, longitude: $0) }
                    }
                }
                #expect(drawn.count > 100 && drawn.count <= 2000, "\(drawn.count) points drawn")
                let worst = drawn.map { p in recorded.map { Self.meters(p, $0) }.min() ?? .infinity }.max() ?? .infinity
                #expect(worst < 2, "a drawn point is \(worst) m from every recorded position")

                // The heart-rate chart: each point's value, read back through the chart's scale,
                // is the average of the file's heart rates over its step of time.
                let chart = try #require(
                    try await browser.script(
                        """
                        const svg = document.querySelector('#chart-heart-rate svg');
                        return [svg.dataset.bottom, svg.dataset.top, svg.dataset.plotBottom, svg.dataset.plotTop,
                          [...svg.querySelectorAll('polyline')].map(p => p.getAttribute('points')).join(' ')];
                        """) as? [String])
                let values = chart.prefix(4).compactMap(Double.init)
                #expect(values.count == 4)
                let elapsed = Double(activity.points.last?.elapsedSeconds ?? 1)
                var checked = 0
                for pair in chart[4].split(separator: " ") {
                    let xy = pair.split(separator: ",").compactMap { Double($0) }
                    guard xy.count == 2, values.count == 4 else { continue }
                    let value = values[0] + (values[2] - xy[1]) / (values[2] - values[3]) * (values[1] - values[0])
                    let bucket = Int(((xy[0] - 44) / (480 - 44 - 8) * 240).rounded(.down))
                    let beats = activity.points.filter {
                        Int(Double($0.elapsedSeconds) / elapsed * 240) == bucket
                            || (bucket == 239 && $0.elapsedSeconds == Int(elapsed))
                    }.compactMap(\.heartRateBPM)
                    guard !beats.isEmpty else { continue }
                    let average = Double(beats.reduce(0, +)) / Double(beats.count)
                    #expect(abs(value - average) < 0.5, "bucket \(bucket): drawn \(value), file \(average)")
                    checked += 1
                }
                #expect(checked > 100, "\(checked) heart-rate points checked")

                // The list shows it; its page links back.
                try await browser.open(origin + "/runs")
                let rows = try await browser.all("#runs tr")
                #expect(rows.count == 2)
                try save(try await browser.pageScreenshot(width: 390), "runs-390-\(backend.rawValue).png")
                #expect(
                    try await browser.attribute(try await browser.find("#runs a"), "href").map { origin + $0 } == page)
                let requested = try await browser.requestedURLs()
                let elsewhere = requested.filter { !$0.hasPrefix(origin + "/") }
                #expect(elsewhere.isEmpty, "requests off the store: \(elsewhere)")
            } catch {
                await browser.close()
                throw error
            }
            await browser.close()
        }
    }

    /// Great-circle distance in metres (haversine).
    static func meters(_ a: Position, _ b: Position) -> Double {
        let r = 6_371_008.8
        let (p1, p2) = (a.latitude * .pi / 180, b.latitude * .pi / 180)
        let dp = p2 - p1
        let dl = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * r * asin(min(1, sqrt(h)))
    }

    func save(_ png: Data, _ name: String) throws {
        try BrowserTests().save(png, name)
    }
}
