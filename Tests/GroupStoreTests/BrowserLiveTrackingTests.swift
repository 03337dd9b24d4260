import Foundation
import GroupStore
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import TestSupport
import Testing

/// A live run's share link in Chromium (issue 35): the card follows the run by itself, the
/// page is never reloaded, and it asks nothing of any other site.
extension BrowserTests {
    @Test("A share link's page follows the run as its pack sends it, without a reload; a revoked link ends it")
    func liveLinkFollowsTheRun() async throws {
        let harness = try StoreHarness(.sqlite, transport: .live)
        try await harness.run { client in
            let origin = "http://127.0.0.1:\(try #require(client.port))"
            let bob = try await client.signUp("bob")
            let uuid = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"
            let first = LiveTrackingTests.update(stride(from: 0, through: 600, by: 15))
            #expect(try await client.call(.post, "/v1/live/\(uuid)", token: bob, send: first).status == .ok)
            let link = try await client.call(.post, "/v1/live/\(uuid)/links", token: bob).decode(LiveLinkView.self)
            let path = try #require(link.url.flatMap { URL(string: $0)?.path })

            let browser = try await Browser()
            do {
                try await browser.open(origin + path)
                #expect(try await browser.text("#live-headline") == "bob is out now: 1.80 km in 10:00.")
                #expect(try await browser.count("#live-map polyline") == 1)
                _ = try await browser.script("window.handoffMark = 35; return 1;")
                try save(try await browser.screenshot(), "live-link-phone.png")
                // Two minutes without updates, then more: the card shows the gap within its 15 s.
                let more = LiveTrackingTests.update(stride(from: 735, through: 900, by: 15))
                #expect(try await client.call(.post, "/v1/live/\(uuid)", token: bob, send: more).status == .ok)
                try await browser.waitUntil("the card to show the new part of the run", timeout: 40) {
                    try await browser.count("#live-map polyline") == 2
                }
                #expect(try await browser.text("#live-headline") == "bob is out now: 2.70 km in 15:00.")
                #expect(try await browser.text(".silence") == "No updates from 10:00 to 12:15 into the run.")
                #expect(try await browser.script("return window.handoffMark") as? Int == 35, "not reloaded")
                try save(try await browser.screenshot(), "live-link-gap-phone.png")
                try save(try await browser.pageScreenshot(width: 1280), "live-link-gap-desktop.png")
                let requests = try await browser.requestedURLs()
                #expect(requests.allSatisfy { $0.hasPrefix(origin) || $0.hasPrefix("data:") }, "\(requests)")
                // Revoked: the page's next look finds nothing, and it stays as it was drawn.
                #expect(try await client.call(.delete, "/v1/live/links/\(link.id)", token: bob).status == .noContent)
                try await browser.open(origin + path)
                #expect(try await browser.text("h1").contains("No live run here"))
                let console = try await browser.consoleMessages()
                #expect(console.allSatisfy { !$0.message.contains("Refused") }, "\(console)")
            } catch {
                await browser.close()
                throw error
            }
            await browser.close()
        }
    }
}
