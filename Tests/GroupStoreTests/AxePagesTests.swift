import Foundation
import TestSupport
import Testing

@testable import GroupStore

/// Every page model's page (every state of every page, the ones a walk never reaches included:
/// the device page, a failed sign-up, an unknown invite, a reset link, a fault) opened in
/// Chromium with the store's stylesheet, at 390 px: axe-core finds no serious or critical
/// violation, and nothing is wider than the phone's screen.
@Suite(
    "Every page through axe-core in Chromium", .serialized,
    .enabled(
        if: SystemPrograms.runnable("chromium", "chromedriver"),
        "needs Chromium and chromedriver (scripts/setup --test)")
)
struct AxePagesTests {
    @Test("No serious or critical axe-core violation and no sideways scrolling on any page at 390 px")
    func everyPage() async throws {
        let axe = try Axe.source()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(StaticFile.stylesheet.bytes).write(to: directory.file("style.css"))
        let fixtures = try PageFixture.all({ $0 })
        for fixture in fixtures {
            let page = fixture.html.replacingOccurrences(of: "/static/style.css?v=golden", with: "style.css")
            try page.write(to: directory.file(fixture.name + ".html"), atomically: true, encoding: .utf8)
        }
        let browser = try await Browser(width: 390, height: 844)
        do {
            for fixture in fixtures {
                try await browser.open(directory.file(fixture.name + ".html").absoluteString)
                let size =
                    try await browser.script("return [document.documentElement.scrollWidth, window.innerWidth]")
                    as? [Int]
                #expect(size.map { $0[0] <= $0[1] } == true, "\(fixture.name) is \(size ?? []) px wide at 390")
                let violations = try await Axe.violations(browser, axe)
                #expect(violations.isEmpty, "\(fixture.name): \(violations)")
            }
        } catch {
            await browser.close()
            throw error
        }
        await browser.close()
    }
}
