import ActivityFormats
import Foundation
import GroupStore
import HandoffModel
import TestSupport
import Testing

/// A newcomer's walk in Chromium, on both engines: sign up, create a group, a second person joins
/// by the invite link, uploads a real FIT file (and a broken one with markup in its name), reads
/// the run's page, whose route is un-projected within 2 m of the file's track and whose
/// heart-rate chart is read back against the file, exports everything and deletes the account.
/// Every page is looked at by axe-core (no serious or critical violation) and photographed at
/// 390 and 1280 px.
@Suite(
    "A newcomer's walk in Chromium", .serialized,
    .enabled(
        if: SystemPrograms.runnable("chromium", "chromedriver") && Fixtures.available,
        "needs Chromium, chromedriver (scripts/setup --test) and ../shared/fixtures")
)
struct BrowserRunTests {
    @Test(
        "Sign up → create a group → join by the invite link → upload a real FIT file → its route and charts → export → delete",
        arguments: Backend.available)
    func walk(_ backend: Backend) async throws {
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
        let axe = try Axe.source()
        // Two phone photos for a run (Pillow and exiftool: GPS and all).
        let photos = try TemporaryDirectory()
        defer { photos.remove() }
        let photoFiles = try ["jpeg", "png"].map { format -> String in
            let path = photos.file("finish line.\(format)").path
            try Data(try PhotoOracle.make(format, in: photos)).write(to: URL(fileURLWithPath: path))
            return path
        }

        try await harness.run { client in
            let origin = "http://127.0.0.1:\(try #require(client.port))"
            let browser = try await Browser()
            var look = Look(browser: browser, axe: axe, backend: backend)
            do {
                // Ada signs up and lands on the first-visit page.
                try await browser.open(origin + "/login")
                try await look.check("login")
                try await browser.open(origin + "/signup")
                try await look.check("signup")
                try await Self.signUp(browser, "ada")
                try await browser.waitFor("the first-visit page") { $0 == origin + "/welcome" }
                #expect(try await browser.text("#link-command") == "handoff link --store \(origin)")
                try await look.check("welcome")

                // She creates a group with markup in its name.
                try await browser.click("a[href='/groups/new']")
                try await browser.waitFor("the new group form") { $0 == origin + "/groups/new" }
                try await look.check("group-new")
                try await browser.type("Night <owls> & \"co\"", into: "#name")
                try await browser.type("100", into: "#goal")
                try await browser.click("#group-form button")
                let groupPage = try await browser.waitFor("the group's page") {
                    $0.hasPrefix(origin + "/groups/") && $0 != origin + "/groups/new"
                }
                #expect(try await browser.text("h1") == "Night <owls> & \"co\"", "the name reads as typed")
                let invite = try #require(try await browser.attribute(try await browser.find("#invite-link"), "value"))
                #expect(invite.hasPrefix(origin + "/join/"))
                #expect(
                    try await browser.script("return document.querySelector('[data-copy]').hidden") as? Bool == false)
                try await look.check("group-owner")
                try await browser.open(origin + "/")
                #expect(try await browser.all(".groups li").count == 1)
                try await look.check("home")
                try await browser.click("form[action='/logout'] button")
                try await browser.waitFor("the sign-in page") { $0.hasPrefix(origin + "/login") }

                // Bob opens the invite link, signs up from it and is a member.
                try await browser.open(invite)
                #expect(try await browser.text("h1") == "Join Night <owls> & \"co\"")
                try await look.check("join")
                try await browser.click(".actions a.button")
                try await browser.waitFor("the sign-up form with the invite") { $0.contains("/signup?invite=") }
                try await Self.signUp(browser, "bob")
                try await browser.waitFor("the group's page") { $0 == groupPage }
                let members = try await browser.all("#members tr")
                #expect(members.count == 3, "a header, ada and bob")

                // He uploads a real watch file and a broken one.
                try await browser.open(origin + "/runs/upload")
                try await browser.type(good.path + "\n" + bad.path, into: "input[type=file]")
                try await browser.click("form[action='/runs/upload'] button")
                let results = try await browser.all("#results li")
                #expect(results.count == 2)
                #expect(try await browser.text(results[0]) == "morning run.fit: Stored")
                let refused = try await browser.text(results[1])
                #expect(
                    refused.hasPrefix("<img src=x onerror=alert(1)>.fit: the FIT file cannot be read"), "\(refused)")
                #expect(try await browser.count("img") == 0, "the file's name is text, not markup")
                try await look.check("upload-results")

                try await browser.click("#results a")
                let page = try await browser.waitFor("the run's page") { $0.hasPrefix(origin + "/runs/") }
                #expect(
                    ["Morning run", "Afternoon run", "Evening run", "Night run"].contains(try await browser.text("h1")))
                try await look.check("run")
                try await Self.checkRoute(browser, activity)
                try await Self.checkHeartRate(browser, activity)
                try await browser.open(page + "/delete")
                #expect(try await browser.text("h1") == "Delete this run?")
                try await look.check("run-delete")

                try await browser.open(origin + "/runs")
                #expect(try await browser.all("#runs tr").count == 2)
                #expect(
                    try await browser.attribute(try await browser.find("#runs a"), "href").map { origin + $0 } == page)
                try await look.check("runs")

                // He asks ada to be his friend, and sees his run in his feed.
                try await browser.open(origin + "/friends")
                try await browser.type("ada", into: "#username")
                try await browser.click("#ask button")
                try await browser.waitFor("the friends page with a notice") { $0.hasSuffix("/friends?done=asked") }
                #expect(try await browser.text("#asked li").hasPrefix("ada"))
                try await look.check("friends")
                try await browser.open(origin + "/feed")
                #expect(try await browser.all("#feed li").count == 1)
                try await look.check("feed")
                try await Self.friendsMeet(browser, &look, origin: origin, run: page)
                try await Self.photosAndCards(browser, &look, origin: origin, run: page, photos: photoFiles)

                // Settings: export everything, then delete the account.
                try await browser.open(origin + "/settings")
                try await look.check("settings")
                // The export link downloads what the store answers with the browser's own cookie.
                let href = try #require(
                    try await browser.attribute(try await browser.find("a[download][href$='/export']"), "href"))
                let export = try await client.call(
                    .get, href, headers: [.cookie: try await browser.cookieHeader()], ownConnection: true)
                #expect(export.status == .ok && export.headers[.contentType] == "application/zip")
                let names = ZipReading.names(Array(export.body))
                #expect(
                    names.contains("account.json") && names.contains { $0.hasSuffix(".fit") }
                        && names.contains { $0.hasSuffix(".gpx") }, "\(names)")
                try await browser.type("correct horse battery", into: "#delete-password")
                try await browser.click("#delete input[name=confirm]")
                try await browser.click("#delete button")
                try await browser.waitFor("the answer to deleting") { $0 == origin + "/settings/delete" }
                #expect(try await browser.text("h1") == "Account deleted")
                try await browser.open(origin + "/settings")
                try await browser.waitFor("the sign-in page") { $0.hasPrefix(origin + "/login") }

                let elsewhere = try await browser.requestedURLs().filter {
                    !$0.hasPrefix(origin + "/") && !$0.hasPrefix("data:")
                }
                #expect(elsewhere.isEmpty, "requests off the store: \(elsewhere)")
            } catch {
                await browser.close()
                throw error
            }
            await browser.close()
        }
    }

    static func signIn(_ browser: Browser, _ origin: String, _ name: String) async throws {
        try await browser.click("form[action='/logout'] button")
        try await browser.waitFor("the sign-in page") { $0.hasPrefix(origin + "/login") }
        try await browser.type(name, into: "#login")
        try await browser.type("correct horse battery", into: "#password")
        try await browser.click("form[action^='/login'] button")
        try await browser.waitFor("the home page") { $0 == origin + "/" }
    }

    /// Ada accepts bob's ask, finds his run in her feed, gives kudos and a comment; cleo, who
    /// is neither, finds nothing of it; bob, back, sees both counted on his home page.
    static func friendsMeet(_ browser: Browser, _ look: inout Look, origin: String, run: String) async throws {
        try await signIn(browser, origin, "ada")
        try await browser.open(origin + "/friends")
        try await browser.click("#asking form[action$='/accept'] button")
        try await browser.waitFor("the friends page with a notice") { $0.hasSuffix("/friends?done=accept") }
        #expect(try await browser.text("#friends li").hasPrefix("bob"))
        try await browser.open(origin + "/feed")
        try await browser.click("#feed a[href='\(run.dropFirst(origin.count))']")
        try await browser.waitFor("bob's run") { $0 == run }
        #expect(try await browser.text("main p.muted").hasPrefix("By bob · "))
        #expect(try await browser.count("a[download]") == 0, "no downloads of another's run")
        #expect(try await browser.count("#route polyline.track") > 0, "ada sees the map")
        #expect(try await browser.count("#route circle.start") == 0, "the route's ends are bob's alone")
        try await browser.click("#responses form[action$='/kudos'] button")
        try await browser.waitFor("kudos given") { $0 == run + "#responses" }
        #expect(try await browser.text("#responses .kudos") == "1 kudos, from ada.")
        try await browser.type("Strong finish <b>bob</b>!\nSee you Tuesday.", into: "#comment-text")
        try await browser.click("#comment button")
        try await browser.waitFor("the comment") { $0.hasPrefix(run + "#comment-") }
        #expect(try await browser.text(".comments .text") == "Strong finish <b>bob</b>!\nSee you Tuesday.")
        try await look.check("run-friend")
        try await browser.click("main p.muted a")
        try await browser.waitFor("bob's page") { $0 == origin + "/people/bob" }
        #expect(try await browser.text("#totals li:first-child .v") == "1")
        #expect(try await browser.text("main").contains("You and bob are friends."))
        try await look.check("person")
        try await browser.click("a[href='/compare/bob']")
        try await browser.waitFor("the comparison") { $0 == origin + "/compare/bob" }
        #expect(try await browser.count("#weekly rect.theirs") == 12)
        try await look.check("compare")

        try await browser.click("form[action='/logout'] button")
        try await browser.waitFor("the sign-in page") { $0.hasPrefix(origin + "/login") }
        try await browser.open(origin + "/signup")
        try await signUp(browser, "cleo")
        try await browser.waitFor("the first-visit page") { $0 == origin + "/welcome" }
        try await browser.open(run)
        #expect(try await browser.text("h1") == "No such run")
        try await look.check("run-not-seen")
        try await browser.open(origin + "/feed")
        #expect(try await browser.count("#feed li") == 0, "nothing of bob's or ada's")

        try await signIn(browser, origin, "bob")
        #expect(try await browser.text("#reactions h2") == "2 new kudos and comments on your runs")
        try await look.check("home-reactions")
        try await browser.click("#reactions button")
        // The button posts and comes back to the home page's own address: wait for the box to go.
        try await browser.waitUntil("the home page without the new kudos and comments") {
            try await browser.count("#reactions") == 0
        }
        #expect(try await browser.url == origin + "/")

        // His notifications (issue 35): ada's kudos and comment, counted in the header.
        #expect(try await browser.text("header .bell .count") == "2")
        try await browser.click("header .bell")
        try await browser.waitFor("the notifications") { $0 == origin + "/notifications" }
        #expect(try await browser.count("#notifications li.unread") == 2)
        #expect(try await browser.text("#notifications li a").hasPrefix("ada commented on your run of "))
        try await look.check("notifications")
        try await browser.click("form[action='/notifications/read'] button")
        try await browser.waitUntil("every notification read") {
            try await browser.count("#notifications li.unread") == 0
        }
        #expect(try await browser.count("header .bell .count") == 0)
    }

    /// bob adds two photos to his run, saves its card as PNG in the browser, sets a weekly goal
    /// and sees the week's ring; the report form is looked at.
    static func photosAndCards(
        _ browser: Browser, _ look: inout Look, origin: String, run: String, photos: [String]
    ) async throws {
        try await browser.open(run)
        try await browser.type(photos.joined(separator: "\n"), into: "#photo-files")
        try await browser.click("#add-photos button")
        try await browser.waitFor("the run's photos") { $0 == run + "#photos" }
        #expect(try await browser.count(".photos img") == 2)
        // They load lazily: asked for now, both come from the store.
        _ = try await browser.script("document.querySelectorAll('.photos img').forEach(i => i.loading = 'eager')")
        try await browser.waitUntil("both photos loaded from the store") {
            try await browser.script(
                "return [...document.querySelectorAll('.photos img')].every(i => i.complete && i.naturalWidth > 0)")
                as? Bool == true
        }
        try await look.check("run-photos")
        // The card as PNG, made by the page's script from the SVG.
        let png =
            try await browser.asyncScript(
                """
                const done = arguments[arguments.length - 1];
                handoffCardPNG(arguments[0]).then(blob => {
                  const reader = new FileReader();
                  reader.onload = () => done(reader.result);
                  reader.readAsDataURL(blob);
                }, error => done('failed: ' + error));
                """, [run.dropFirst(origin.count) + "/card.svg"]) as? String ?? ""
        let bytes = [UInt8](Data(base64Encoded: String(png.drop { $0 != "," }.dropFirst())) ?? Data())
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG: \(png.prefix(40))")
        let size =
            bytes.count >= 24
            ? (bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }) : (0, 0)
        #expect(size == (1200, 630), "the card's size: \(size)")
        try BrowserTests().save(Data(bytes), "walk-card-\(look.backend.rawValue).png")
        // A weekly goal: the home page shows the ring.
        try await browser.open(origin + "/settings")
        try await browser.type("20", into: "#goal")
        try await browser.click("#week-goal button")
        try await browser.waitFor("the settings with a notice") { $0.hasSuffix("/settings?done=week-goal") }
        try await browser.open(origin + "/")
        #expect(try await browser.count(".goals svg.ring") == 1)
        try await look.check("home-week")
        try await browser.open(origin + "/people/ada/report")
        try await look.check("report")
    }

    static func signUp(_ browser: Browser, _ name: String) async throws {
        try await browser.type("\(name)@example.org", into: "#email")
        try await browser.type(name, into: "#username")
        try await browser.type("correct horse battery", into: "#password")
        try await browser.click("form[action^='/signup'] button")
    }

    /// Every drawn point of the route, un-projected, lies within 2 m of a recorded position.
    static func checkRoute(_ browser: Browser, _ activity: Activity) async throws {
        let map = try #require(
            try await browser.script(
                """
                const svg = document.querySelector('#route svg');
                return [svg.dataset.originX, svg.dataset.originY, svg.dataset.scale,
                  [...svg.querySelectorAll('polyline')].map(p => p.getAttribute('points'))];
                """) as? [Any])
        let origin = try (0..<3).map { try #require(Double(map[$0] as? String ?? "")) }
        let drawn = (map[3] as? [String] ?? []).flatMap { line in
            line.split(separator: " ").compactMap { pair -> Position? in
                let xy = pair.split(separator: ",").compactMap { Double($0) }
                guard xy.count == 2 else { return nil }
                return WebMercator.unproject(x: origin[0] + xy[0] / origin[2], y: origin[1] + xy[1] / origin[2])
            }
        }
        let recorded = activity.points.compactMap { point in
            point.latitude.flatMap { latitude in point.longitude.map { Position(latitude: latitude, longitude: $0) } }
        }
        #expect(drawn.count > 100 && drawn.count <= 2000, "\(drawn.count) points drawn")
        let worst = drawn.map { p in recorded.map { meters(p, $0) }.min() ?? .infinity }.max() ?? .infinity
        #expect(worst < 2, "a drawn point is \(worst) m from every recorded position")
    }

    /// Each point of the heart-rate chart, read back through the chart's scale, is the average of
    /// the file's heart rates over its step of time.
    static func checkHeartRate(_ browser: Browser, _ activity: Activity) async throws {
        let chart = try #require(
            try await browser.script(
                """
                const svg = document.querySelector('#chart-heart-rate svg');
                return [svg.dataset.bottom, svg.dataset.top, svg.dataset.plotBottom, svg.dataset.plotTop,
                  [...svg.querySelectorAll('polyline')].map(p => p.getAttribute('points')).join(' ')];
                """) as? [String])
        let scale = chart.prefix(4).compactMap(Double.init)
        #expect(scale.count == 4)
        guard scale.count == 4 else { return }
        let elapsed = Double(activity.points.last?.elapsedSeconds ?? 1)
        var checked = 0
        for pair in chart[4].split(separator: " ") {
            let xy = pair.split(separator: ",").compactMap { Double($0) }
            guard xy.count == 2 else { continue }
            let value = scale[0] + (scale[2] - xy[1]) / (scale[2] - scale[3]) * (scale[1] - scale[0])
            let bucket = Int(((xy[0] - 44) / (480 - 44 - 8) * 240).rounded(.down))
            let beats = activity.points.filter {
                min(239, Int(Double($0.elapsedSeconds) / elapsed * 240)) == bucket
            }.compactMap(\.heartRateBPM)
            guard !beats.isEmpty else { continue }
            let average = Double(beats.reduce(0, +)) / Double(beats.count)
            #expect(abs(value - average) < 0.5, "bucket \(bucket): drawn \(value), file \(average)")
            checked += 1
        }
        #expect(checked > 100, "\(checked) heart-rate points checked")
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
}

/// Looks at a page: axe-core finds no serious or critical violation, it is no wider than the
/// window, and it is photographed at 390 and 1280 px.
struct Look {
    let browser: Browser
    let axe: String
    let backend: Backend

    mutating func check(_ name: String) async throws {
        for width in [1280, 390] {
            try BrowserTests().save(
                try await browser.pageScreenshot(width: width), "walk-\(name)-\(width)-\(backend.rawValue).png")
            let size =
                try await browser.script("return [document.documentElement.scrollWidth, window.innerWidth]") as? [Int]
            #expect(size.map { $0[0] <= $0[1] } == true, "\(name) at \(width) px is \(size ?? []) px wide")
        }
        let violations = try await Axe.violations(browser, axe)
        #expect(violations.isEmpty, "\(name): \(violations)")
    }
}

/// axe-core as axe-selenium-python bundles it (scripts/setup --test installs it).
enum Axe {
    struct Missing: Error, CustomStringConvertible {
        var description: String { "axe-core is missing: run scripts/setup --test (it installs axe-selenium-python)" }
    }

    /// The serious and critical violations axe-core finds on the browser's page, each as its rule
    /// and the elements it names.
    static func violations(_ browser: Browser, _ axe: String) async throws -> [String] {
        let found = try await browser.asyncScript(
            axe + """

                const done = arguments[arguments.length - 1];
                axe.run(document, { resultTypes: ['violations'] }).then(results => done(
                  results.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
                    .map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))));
                """)
        return found as? [String] ?? ["axe gave no answer: \(String(describing: found))"]
    }

    static func source() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import axe_selenium_python, os; print(os.path.join(os.path.dirname(axe_selenium_python.__file__), 'node_modules', 'axe-core', 'axe.min.js'))",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let path = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Missing()
        }
        return text
    }
}
