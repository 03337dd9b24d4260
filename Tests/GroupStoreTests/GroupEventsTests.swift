import Foundation
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import Testing

@testable import GroupStore

/// A group's events (issue 35): recorded with each baton change and counted run, in the group's
/// own order, listed as JSON and streamed as Server-Sent Events.
@Suite("A group's events")
struct GroupEventsTests {
    static func events(
        _ client: any TestClientProtocol, _ token: String, _ group: Int, after: Int64? = nil
    )
        async throws -> GroupEventList
    {
        let reply = try await client.call(
            .get, "/v1/groups/\(group)/events" + (after.map { "?after=\($0)" } ?? ""), token: token)
        #expect(reply.status == .ok, "\(reply.text)")
        return try reply.decode(GroupEventList.self)
    }

    @Test(
        "taken, passed, a run counted, released, run out and taken again: numbered 1 to 7 in that order; only members read them",
        arguments: Backend.available)
    func recorded(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let cleo = try await client.signUp("cleo")
            let group = try await client.createGroup(ada, goal: 100_000, lease: 1)
            try await client.join(bob, group.invite)
            #expect(try await Self.events(client, ada, group.id) == GroupEventList(events: [], lastID: 0))

            #expect(try await client.call(.post, "/v1/groups/\(group.id)/baton/take", token: ada).status == .ok)
            #expect(
                try await client.call(
                    .post, "/v1/groups/\(group.id)/baton/pass", token: ada, send: BatonPass(to: "bob")
                )
                .status == .ok)
            harness.clock.advance(seconds: 1_800)
            let start = harness.clock.now.advanced(byNanoseconds: -1_200 * nanosecondsPerSecond)
            let upload = try await client.upload(
                bob, uuid: UUID().uuidString.lowercased(), file: RunFiles.fit(start: start, seconds: 600, speed: 3))
            #expect(upload.status == .created)
            #expect(
                try await client.call(.post, "/v1/groups/\(group.id)/baton/release", token: bob).status == .noContent)
            #expect(try await client.call(.post, "/v1/groups/\(group.id)/baton/take", token: ada).status == .ok)
            harness.clock.advance(seconds: 3_700)  // ada's one-hour lease runs out
            #expect(try await client.call(.post, "/v1/groups/\(group.id)/baton/take", token: bob).status == .ok)

            let list = try await Self.events(client, bob, group.id)
            #expect(list.events.map(\.id) == Array(1...7) && list.lastID == 7, "\(list)")
            #expect(
                list.events.map(\.kind) == [
                    "baton_taken", "baton_passed", "run_counted", "baton_released", "baton_taken", "baton_expired",
                    "baton_taken",
                ])
            #expect(list.events.map(\.holder) == ["ada", "bob", "bob", nil, "ada", nil, "bob"])
            #expect(list.events.map(\.from) == [nil, "ada", nil, "bob", nil, "ada", nil])
            let counted = list.events[2]
            #expect(counted.runner == "bob" && abs((counted.distanceM ?? 0) - 1_800) < 1, "\(counted)")
            #expect(counted.totalM == counted.distanceM)
            // The raw JSON has every key, null where there is nothing.
            let raw = try await client.call(.get, "/v1/groups/\(group.id)/events?limit=1", token: ada)
            let first = try #require((raw.json["events"] as? [[String: Any]])?.first)
            #expect(first["from"] is NSNull && first["total_m"] is NSNull && first["holder"] as? String == "ada")

            #expect(try await Self.events(client, ada, group.id, after: 5).events.map(\.id) == [6, 7])
            #expect(try await Self.events(client, ada, group.id, after: 7).events.isEmpty)
            for bad in ["-1", "x", "1.5"] {
                let refused = try await client.call(.get, "/v1/groups/\(group.id)/events?after=\(bad)", token: ada)
                #expect(refused.status == .unprocessableContent && refused.errorCode == "invalid_after", "\(bad)")
            }
            // Not a member: the same 404 as no group at all.
            let stranger = try await client.call(.get, "/v1/groups/\(group.id)/events", token: cleo)
            #expect(stranger.status == .notFound && stranger.errorCode == "group_not_found")
            #expect(try await client.call(.get, "/v1/groups/\(group.id)/events").status == .unauthorized)
        }
    }

    @Test("a subscriber that never reads costs the publisher nothing: a thousand of them, a hundred changes")
    func slowSubscribers() async throws {
        let hub = EventHub()
        var kept: [(AsyncStream<EventHub.Signal>, AsyncStream<EventHub.Signal>.Continuation)] = []
        for _ in 0..<1_000 { kept.append(hub.subscribe(team: 7)) }
        #expect(hub.count(team: 7) == 1_000)
        let began = ContinuousClock.now
        for _ in 0..<100 { hub.changed([7, 8]) }
        #expect(ContinuousClock.now - began < .seconds(10), "no publisher waits on a subscriber")
        // Each buffer holds one signal, however many were sent.
        var first = kept[0].0.makeAsyncIterator()
        #expect(await first.next() == .changed)
        kept[0].1.finish()
        #expect(await first.next() == nil)
        #expect(hub.count(team: 7) == 999, "a finished subscriber is gone")
        for (_, continuation) in kept { continuation.finish() }
        #expect(hub.count(team: 7) == 0)
    }

    @Test(
        "the stream over loopback: a bearer token or a page's cookie, each event as it happens, heartbeats, resumed after Last-Event-ID; a gone client is dropped",
        arguments: Backend.available)
    func stream(_ backend: Backend) async throws {
        var harness = try StoreHarness(backend, transport: .live)
        harness.configuration.live.heartbeat = .seconds(1)
        try await harness.run { client, repository in
            let port = try #require(client.port)
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            _ = try await client.signUp("dan")
            let group = try await client.createGroup(ada)
            try await client.join(bob, group.invite)
            func open(_ headers: String, query: String = "") throws -> RawSocket {
                let socket = try RawSocket(port: port)
                try socket.send(
                    "GET /v1/groups/\(group.id)/events\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Accept: text/event-stream\r\n\(headers)\r\n")
                return socket
            }
            let first = try open("Authorization: Bearer \(ada)\r\n")
            let head = await first.readText(until: "retry: 2000\n\n", seconds: 30)
            #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
            #expect(head.lowercased().contains("content-type: text/event-stream"), "\(head)")
            #expect(!head.contains("id: "), "from now on: nothing before")

            #expect(try await client.call(.post, "/v1/groups/\(group.id)/baton/take", token: bob).status == .ok)
            // (Each write is a chunk of the chunked body: its size line comes before it.)
            let taken = await first.readText(until: "event: baton_taken\n", seconds: 30)
            #expect(taken.contains("id: 1\nevent: baton_taken\n"), "\(taken)")
            let line = await first.readText(until: "\n\n", seconds: 30)
            #expect(line.hasPrefix("data: {"), "\(line)")
            let data = try #require(line.split(separator: "\n").first { $0.hasPrefix("data: ") }?.dropFirst(6))
            let event = try JSONDecoder().decode(GroupEventView.self, from: Data(data.utf8))
            #expect(event.id == 1 && event.holder == "bob")
            // Nothing to say: a heartbeat.
            #expect(await first.readText(until: ": heartbeat\n\n", seconds: 30).hasSuffix(": heartbeat\n\n"))
            #expect(
                try await client.call(
                    .post, "/v1/groups/\(group.id)/baton/pass", token: bob, send: BatonPass(to: "ada")
                )
                .status == .ok)
            #expect(
                await first.readText(until: "event: baton_passed\n", seconds: 30).contains(
                    "id: 2\nevent: baton_passed\n"))
            #expect(repository.events.count(team: Int64(group.id)) == 1)

            // The client goes; meanwhile the baton is released; it comes back after event 2.
            shutdown(first.fd, Int32(SHUT_RDWR))
            #expect(
                try await client.call(.post, "/v1/groups/\(group.id)/baton/release", token: ada).status == .noContent)
            let again = try open("Authorization: Bearer \(ada)\r\nLast-Event-ID: 2\r\n")
            let resumed = await again.readText(until: "event: baton_released", seconds: 30)
            #expect(resumed.contains("id: 3\nevent: baton_released") && !resumed.contains("id: 2\n"), "\(resumed)")

            // A page's session cookie reads it too, from the first event.
            let cookie = try await client.webSignIn("bob").cookie
            let page = try open("Cookie: \(cookie)\r\n", query: "?after=0")
            let all = await page.readText(until: "id: 3\n", seconds: 30)
            #expect(all.contains("id: 1\n") && all.contains("id: 2\n"), "\(all)")

            // Not a member: 404, and no stream.
            let dan = try await client.call(
                .post, "/v1/sessions", send: SignIn(login: "dan", password: "correct horse battery"))
            let refused = try open(
                "Authorization: Bearer \(try dan.decode(SignedIn.self).token)\r\nConnection: close\r\n")
            #expect(await refused.readText(until: "group_not_found", seconds: 30).hasPrefix("HTTP/1.1 404"))

            // The closed client is noticed at its next heartbeat and dropped; the two others stay
            // open until the store shuts down at the end of the test.
            var left = repository.events.count(team: Int64(group.id))
            for _ in 0..<100 where left != 2 {
                try await Task.sleep(for: .milliseconds(100))
                left = repository.events.count(team: Int64(group.id))
            }
            #expect(left == 2)
        }
    }
}
