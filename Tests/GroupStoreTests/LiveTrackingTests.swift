import Foundation
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import Testing

@testable import GroupStore

/// Live tracking on the store (issue 35): a pack's updates under the run's UUID, who sees what of
/// them (the runner, the group while the runner holds its baton, a share link's holder, nobody
/// else), the gaps, "last seen", share links that expire, are revoked, or end with the run.
@Suite("Live tracking on the store")
struct LiveTrackingTests {
    static let uuid = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"
    static let start = WallInstant(secondsSinceEpoch: 1_795_000_000)

    /// The run's points at `seconds`: heading north at 3 m/s from 48.2° N 16.37° E, 150 bpm.
    static func points(_ seconds: some Sequence<Int>) -> [LivePoint] {
        seconds.map { t in
            let distance = Double(t) * 3
            return LivePoint(
                elapsedS: t, at: CivilTime(start.advanced(byNanoseconds: Int64(t) * 1_000_000_000)).iso8601(),
                lat: 48.2 + distance / 111_320, lon: 16.37, distanceM: distance, speedMps: 3, heartRate: 150)
        }
    }

    static func update(_ seconds: some Sequence<Int>, ended: Bool? = nil) -> LiveUpdate {
        LiveUpdate(sport: "run", startedAt: CivilTime(start).iso8601(), points: points(seconds), ended: ended)
    }

    @Test(
        "The runner sees every point; the group sees the holder's run without its first 200 m, by the runner's choices; a stranger, a blocked member, and everyone once the run is uploaded see nothing",
        arguments: Backend.available)
    func whoSeesWhat(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        harness.clock.freeze()
        try await harness.run { client in
            let (ada, bob, cy, dan) = (
                try await client.signUp("ada"), try await client.signUp("bob"), try await client.signUp("cyd"),
                try await client.signUp("dan")
            )
            let group = try await client.createGroup(ada)
            try await client.join(bob, group.invite)
            try await client.join(dan, group.invite)
            let live = "/v1/groups/\(group.id)/live"
            // Nobody holds the baton: nothing to see, even with a live run going on.
            let first = try await client.call(
                .post, "/v1/live/\(Self.uuid)", token: ada, send: Self.update(stride(from: 0, through: 120, by: 15)))
            #expect(first.status == .ok, "\(first.text)")
            #expect(try first.decode(LiveAccepted.self) == LiveAccepted(run: Self.uuid, accepted: 9, points: 9))
            #expect(try await client.call(.get, live, token: bob).errorCode == "no_live_run")
            #expect(try await client.call(.post, "/v1/groups/\(group.id)/baton/take", token: ada).status == .ok)

            // Sent again (a retry whose answer was lost), the points are not new.
            let again = try await client.call(
                .post, "/v1/live/\(Self.uuid)", token: ada, send: Self.update([105, 120]))
            #expect(try again.decode(LiveAccepted.self).accepted == 0)

            let own = try await client.call(.get, "/v1/live/\(Self.uuid)", token: ada).decode(LiveRunView.self)
            #expect(own.runner == "ada" && own.points.count == 9 && own.points.allSatisfy { $0.lat != nil })
            #expect(own.distanceM == 360 && own.mapShown && own.endedAt == nil)

            // bob, in the group: the run, without positions in its first 200 m.
            let seen = try await client.call(.get, live, token: bob).decode(LiveRunView.self)
            #expect(seen.run == Self.uuid && seen.points.count == 9 && seen.mapShown)
            #expect(seen.points.filter { $0.lat != nil }.map(\.elapsedS) == [75, 90, 105, 120], "\(seen.points)")
            #expect(seen.points.allSatisfy { ($0.lat == nil) == ($0.distanceM < 200) && $0.heartRate == 150 })
            // cy is no member; dan blocks ada: nothing.
            #expect(try await client.call(.get, live, token: cy).errorCode == "group_not_found")
            #expect(try await client.call(.get, "/v1/live/\(Self.uuid)", token: cy).errorCode == "live_run_not_found")
            #expect(
                try await client.call(.post, "/v1/blocks", token: dan, json: ["username": "ada"]).status == .noContent)
            #expect(try await client.call(.get, live, token: dan).errorCode == "no_live_run")

            // Two minutes with no update, then more: the group page draws the track in two parts
            // and says where the updates stopped.
            _ = try await client.call(.post, "/v1/live/\(Self.uuid)", token: ada, send: Self.update([240, 255, 270]))
            let cookie = try await client.webSignIn("bob").cookie
            var page = try await client.call(.get, "/groups/\(group.id)", headers: [.cookie: cookie]).text
            #expect(page.contains("ada is out now: 0.81 km in 4:30"), "\(page)")
            #expect(page.contains("No updates from 2:00 to 4:00 into the run."))
            #expect(page.components(separatedBy: #"<polyline class="track""#).count - 1 == 2)
            #expect(page.components(separatedBy: #"<line class="gap""#).count - 1 == 1)
            #expect(page.contains(#"class="now""#) && !page.contains(#"class="start""#))
            // The runner's own page has the start too.
            let adaCookie = try await client.webSignIn("ada").cookie
            let mine = try await client.call(.get, "/me/live", headers: [.cookie: adaCookie]).text
            #expect(mine.contains(#"class="start""#) && mine.contains("Share links"))

            // Quiet for a minute: "last seen".
            harness.clock.advance(seconds: 60)
            page = try await client.call(.get, "/groups/\(group.id)", headers: [.cookie: cookie]).text
            #expect(page.contains("ada was last seen 1 min ago, at 0.81 km"), "\(page)")

            // ada shows her maps to friends only: bob sees the distance, no positions.
            _ = try await AccountPageTests.post(
                client, "/settings/visibility", ["visibility": "groups", "map_visibility": "friends"],
                cookie: adaCookie)
            let hidden = try await client.call(.get, live, token: bob).decode(LiveRunView.self)
            #expect(!hidden.mapShown && hidden.points.allSatisfy { $0.lat == nil } && hidden.distanceM == 810)
            page = try await client.call(.get, "/groups/\(group.id)", headers: [.cookie: cookie]).text
            #expect(page.contains("shows their maps to fewer people") && !page.contains("<polyline"))

            // Uploaded, the run's live tracking is over.
            let file = RunFiles.fit(start: Self.start, seconds: 300)
            #expect(try await client.upload(ada, uuid: Self.uuid, file: file).status == .created)
            #expect(try await client.call(.get, live, token: bob).errorCode == "no_live_run")
            let late = try await client.call(.post, "/v1/live/\(Self.uuid)", token: ada, send: Self.update([285]))
            #expect(late.status == .conflict && late.errorCode == "live_ended")
            #expect(
                try await client.call(.get, "/v1/live/\(Self.uuid)", token: ada).decode(LiveRunView.self).endedAt != nil
            )
        }
    }

    @Test("Bad updates get a clear 4xx and change nothing", arguments: Backend.available)
    func badUpdates(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            let ada = try await client.signUp("ada")
            let path = "/v1/live/\(Self.uuid)"
            #expect(
                try await client.call(.post, "/v1/live/not-a-uuid", token: ada, send: Self.update([0])).errorCode
                    == "invalid_uuid")
            #expect(try await client.call(.post, path, send: Self.update([0])).status == .unauthorized)
            let many = try await client.call(.post, path, token: ada, send: Self.update(0...120))
            #expect(many.status == .contentTooLarge && many.errorCode == "too_many_points")
            var update = Self.update([0, 15])
            update.points[1].lon = nil
            let half = try await client.call(.post, path, token: ada, send: update)
            #expect(half.errorCode == "invalid_live" && half.text.contains("point at 15 s"), "\(half.text)")
            update = Self.update([0])
            update.points[0].lat = 91
            #expect(try await client.call(.post, path, token: ada, send: update).errorCode == "invalid_live")
            update = Self.update([0])
            update.points[0].at = "yesterday"
            #expect(try await client.call(.post, path, token: ada, send: update).errorCode == "invalid_live")
            update = Self.update([0])
            update.sport = "swim"
            #expect(try await client.call(.post, path, token: ada, send: update).errorCode == "invalid_live")
            #expect(
                try await client.call(
                    .post, path, token: ada, body: Array("{\"points\":".utf8), contentType: "application/json"
                ).status == .badRequest)
            // None of them made a run.
            #expect(try await client.call(.get, path, token: ada).errorCode == "live_run_not_found")
        }
    }

    @Test(
        "Share links: until the run ends or for some hours; revoked, expired and ended links get 404, as does a made-up one",
        arguments: Backend.available)
    func shareLinks(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        harness.clock.freeze()
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let path = "/v1/live/\(Self.uuid)"
            #expect(try await client.call(.post, path + "/links", token: ada).errorCode == "live_run_not_found")
            _ = try await client.call(.post, path, token: ada, send: Self.update(stride(from: 0, through: 150, by: 15)))
            let untilEnd = try await client.call(.post, path + "/links", token: ada)
            #expect(untilEnd.status == .created, "\(untilEnd.text)")
            let forAnHour = try await client.call(.post, path + "/links", token: ada, send: LiveLinkRequest(hours: 1))
            #expect(
                try await client.call(.post, path + "/links", token: ada, send: LiveLinkRequest(hours: 0)).errorCode
                    == "invalid_hours")
            #expect(try await client.call(.post, path + "/links", token: bob).errorCode == "live_run_not_found")
            let (one, two) = (try untilEnd.decode(LiveLinkView.self), try forAnHour.decode(LiveLinkView.self))
            #expect(one.expiresAt == nil && two.expiresAt != nil)
            let (url1, url2) = (try #require(one.url), try #require(two.url))
            let (page1, page2) = (
                String(url1[url1.range(of: "/live/")!.lowerBound...]),
                String(url2[url2.range(of: "/live/")!.lowerBound...])
            )
            // Anyone with the link, signed in or not, sees the run without its start.
            let shown = try await client.call(.get, page1)
            #expect(shown.status == .ok && shown.text.contains("ada is out now: 0.45 km in 2:30"), "\(shown.text)")
            #expect(
                shown.headers[.init("Referrer-Policy")!] == "no-referrer" && !shown.text.contains(#"class="start""#))
            let listed = try await client.call(.get, path + "/links", token: ada).decode(LiveLinkList.self)
            #expect(listed.links.map(\.id) == [two.id, one.id] && listed.links.allSatisfy { $0.url == nil })

            // bob cannot revoke ada's link; ada can, once.
            #expect(
                try await client.call(.delete, "/v1/live/links/\(one.id)", token: bob).errorCode
                    == "live_link_not_found")
            #expect(try await client.call(.delete, "/v1/live/links/\(one.id)", token: ada).status == .noContent)
            #expect(try await client.call(.delete, "/v1/live/links/\(one.id)", token: ada).status == .notFound)
            #expect(try await client.call(.get, page1).status == .notFound)
            #expect(try await client.call(.get, page2).status == .ok)
            // An hour later the second has expired.
            harness.clock.advance(seconds: 3601)
            #expect(try await client.call(.get, page2).status == .notFound)
            // Made-up or cut-short tokens.
            #expect(try await client.call(.get, "/live/" + String(repeating: "ab", count: 32)).status == .notFound)
            #expect(try await client.call(.get, String(page2.dropLast(2))).status == .notFound)

            // The pages: a link made there is shown once; revoked there; bob cannot revoke it.
            let cookie = try await client.webSignIn("ada").cookie
            let made = try await AccountPageTests.post(client, "/me/live/links", ["hours": "4"], cookie: cookie)
            #expect(made.status == .created && made.text.contains("Your new link"), "\(made.text)")
            let address = try #require(
                made.text.range(of: #"value="http[^"]*/live/[0-9a-f]{64}""#, options: .regularExpression))
            let link3 = String(made.text[address].dropFirst(7).dropLast()).components(separatedBy: "/live/")[1]
            #expect(try await client.call(.get, "/live/" + link3).status == .ok)
            let me = try await client.call(.get, "/me/live", headers: [.cookie: cookie]).text
            let revoke = try #require(me.range(of: #"/me/live/links/[0-9]+/revoke"#, options: .regularExpression))
            let bobCookie = try await client.webSignIn("bob").cookie
            #expect(
                try await AccountPageTests.post(client, String(me[revoke]), [:], cookie: bobCookie).status == .notFound)
            let gone = try await AccountPageTests.post(client, String(me[revoke]), [:], cookie: cookie)
            #expect(gone.status == .seeOther && gone.headers[.location] == "/me/live")
            #expect(try await client.call(.get, "/live/" + link3).status == .notFound)
            #expect(
                try await AccountPageTests.post(client, "/me/live/links", ["hours": "99"], cookie: cookie).status
                    == .unprocessableContent)
            #expect(
                try await client.call(.get, "/me/live", headers: [.cookie: bobCookie]).text.contains(
                    "Nothing of yours is live now"))
            #expect(
                try await AccountPageTests.post(client, "/me/live/links", [:], cookie: bobCookie).status == .conflict)

            // A link until the run ends, and the run's last update: 404 from then on.
            let last = try await client.call(.post, path + "/links", token: ada).decode(LiveLinkView.self)
            let lastPage = String(
                try #require(last.url).split(separator: "/", omittingEmptySubsequences: false).suffix(2).joined(
                    separator: "/"))
            #expect(try await client.call(.get, "/" + lastPage).status == .ok)
            #expect(try await client.call(.post, path, token: ada, send: Self.update([165], ended: true)).status == .ok)
            #expect(try await client.call(.get, "/" + lastPage).status == .notFound)
            #expect(try await client.call(.post, path + "/links", token: ada).errorCode == "live_ended")
        }
    }

    @Test("A gap is three of the run's usual steps, at least a minute; the silences are said in the run's time")
    func gaps() {
        func samples(_ seconds: [Int]) -> [LiveSample] {
            seconds.map {
                LiveSample(
                    elapsed: $0, at: Self.start, latE7: 482_000_000 + Int64($0) * 300, lonE7: 163_700_000,
                    distanceMM: Int64($0) * 3000, speedMMPS: 3000, heartRate: nil)
            }
        }
        #expect(LiveCard.gapThreshold(samples([0, 15, 30, 45, 200])) == 60)
        #expect(LiveCard.gapThreshold(samples([0, 30, 60, 90, 120])) == 90)
        let run = LiveRun(
            id: 1, account: 1, runner: "ada", uuid: Self.uuid, sport: "run", started: Self.start,
            contact: Self.start.advanced(byNanoseconds: 400_000_000_000), ended: nil, pointCount: 6,
            audience: .init(run: .groups, map: .groups))
        let card = LiveCard(
            run, samples([0, 15, 30, 45, 200, 215]), sight: .runner, units: .km,
            now: Self.start.advanced(byNanoseconds: 410_000_000_000), refresh: "/me/live")
        #expect(card.silences == ["No updates from 0:45 to 3:20 into the run"])
        #expect(card.map?.lines.count == 2 && card.map?.gaps.count == 1 && card.map?.start != nil)
        #expect(!card.quiet && card.headline == "ada is out now: 0.65 km in 3:35")
    }
}
