import Foundation
import GroupStore
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import TestSupport
import Testing

/// Issue 35's live pages in Chromium, across two store instances over one PostgreSQL: the pages
/// open on instance A follow what happens through instance B (LISTEN/NOTIFY), without a reload.
extension BrowserTests {
    @Test(
        "A browser on instance A: the group page, the home page and the feed follow a baton taken and passed and a run counted through instance B",
        .enabled(if: Backend.available.contains(.postgres)))
    func livePagesAcrossInstances() async throws {
        var harness = try StoreHarness(.postgres, transport: .live)
        // Through the store's NOTIFY, not its next heartbeat (a minute away).
        harness.configuration.live.heartbeat = .seconds(60)
        try await EventInstancesTests.twoInstances(harness) { onA, onB in
            let origin = "http://127.0.0.1:\(try #require(onA.port))"
            let ada = try await onA.signUp("ada")
            let bob = try await onA.signUp("bob")
            let group = try await onA.createGroup(ada, name: "Night <owls>", goal: 100_000)
            try await onA.join(bob, group.invite)
            let signedIn = try await onB.call(
                .post, "/v1/sessions", send: SignIn(login: "bob", password: "correct horse battery"),
                ownConnection: true)
            let bobOnB = try signedIn.decode(SignedIn.self).token

            let browser = try await Browser()
            do {
                try await browser.open(origin + "/login")
                try await browser.type("ada", into: "#login")
                try await browser.type("correct horse battery", into: "#password")
                try await browser.click("form[action^='/login'] button")
                try await browser.waitFor("the home page") { $0 == origin + "/" }

                // The group page: bob takes the baton through B.
                try await browser.open(origin + "/groups/\(group.id)")
                #expect(try await browser.text("#baton").hasPrefix("The baton is free"))
                _ = try await browser.script("window.handoffMark = 35; return 1;")
                var sent = ContinuousClock.now
                #expect(
                    try await onB.call(
                        .post, "/v1/groups/\(group.id)/baton/take", token: bobOnB, ownConnection: true
                    ).status == .ok)
                try await browser.waitUntil("the group page to say bob took the baton", timeout: 30) {
                    try await browser.text("#baton").hasPrefix("bob holds the baton since just now")
                }
                let shown = ContinuousClock.now - sent
                print("instance B's baton shown on instance A's group page after \(shown)")
                #expect(shown < .seconds(20), "shown after \(shown)")
                #expect(try await browser.script("return window.handoffMark") as? Int == 35, "not reloaded")

                // The home page: bob passes it to ada, through B.
                try await browser.open(origin + "/")
                let line = "ul.groups li[data-events] [data-baton]"
                #expect(try await browser.text(line) == "bob holds the baton")
                _ = try await browser.script("window.handoffMark = 36; return 1;")
                sent = ContinuousClock.now
                #expect(
                    try await onB.call(
                        .post, "/v1/groups/\(group.id)/baton/pass", token: bobOnB, json: ["to": "ada"],
                        ownConnection: true
                    ).status == .ok)
                try await browser.waitUntil("the home page to say ada holds the baton", timeout: 30) {
                    try await browser.text(line) == "ada holds the baton"
                }
                print("instance B's pass shown on instance A's home page after \(ContinuousClock.now - sent)")
                #expect(try await browser.script("return window.handoffMark") as? Int == 36, "not reloaded")

                // The feed: bob's run, uploaded through B, is news above the runs, with a link;
                // the feed itself stays as its reader left it.
                try await browser.open(origin + "/feed")
                #expect(try await browser.script("return document.querySelector('.news').hidden") as? Bool == true)
                _ = try await browser.script("window.handoffMark = 37; return 1;")
                let start = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970 + 2)
                let upload = try await onB.upload(
                    bobOnB, uuid: UUID().uuidString.lowercased(),
                    file: RunFiles.fit(start: start, seconds: 1_000, speed: 3), ownConnection: true)
                #expect(upload.status == .created, "\(upload.text)")
                try await browser.waitUntil("the feed to tell of bob's run", timeout: 30) {
                    try await browser.text(".news") == "bob ran 3.0 km for Night <owls>. Refresh the feed"
                }
                #expect(try await browser.script("return window.handoffMark") as? Int == 37, "not reloaded")
                #expect(try await browser.count("#feed li") == 0, "the runs listed are those the page was drawn with")
                try save(try await browser.screenshot(), "feed-news-phone.png")
                try save(try await browser.pageScreenshot(width: 1280), "feed-news-desktop.png")
                try await browser.click(".news a")
                try await browser.waitUntil("the feed with bob's run", timeout: 30) {
                    try await browser.count("#feed li") == 1
                }
                let console = try await browser.consoleMessages()
                #expect(console.isEmpty, "console: \(console.map { "\($0.level) \($0.message)" })")
            } catch {
                await browser.close()
                throw error
            }
            await browser.close()
        }
    }
}
