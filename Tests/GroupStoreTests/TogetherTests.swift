import ActivityFormats
import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Recorder
import RunSimulator
import TestSupport
import Testing

@testable import GroupStore

/// Running together: the detector on routes made by hand and on packs the simulator ran, the
/// offers on run pages, naming a friend and their answer, and totals that never count a
/// kilometre twice.
@Suite("Running together")
struct TogetherTests {
    /// A straight line north from Vienna, `metres` long, a point every 10 m, moved `east` metres.
    static func line(metres: Double, east: Double = 0, from start: Double = 0) -> [[Position]] {
        let perDegree = 6_371_008.8 * Double.pi / 180
        return [
            stride(from: start, through: start + metres, by: 10).map {
                Position(
                    latitude: 48.2 + $0 / perDegree, longitude: 16.37 + east / (perDegree * cos(48.2 * Double.pi / 180))
                )
            }
        ]
    }

    @Test("The detector: the same way is together; 50 m apart too; 200 m apart, or one way half the other's, is not")
    func trackMatch() {
        let way = Self.line(metres: 5_000)
        #expect(TrackMatch.together(way, way) == 1)
        #expect(TrackMatch.together(way, Self.line(metres: 5_000, east: 50)) == 1)
        #expect(TrackMatch.together(way, Self.line(metres: 5_000, east: 200)) == 0)
        let half = TrackMatch.together(way, Self.line(metres: 2_500))
        #expect(half > 0.45 && half < 0.55, "\(half): the long run is by the short one half its way")
        let overlap = TrackMatch.together(way, Self.line(metres: 5_000, from: 1_000))
        #expect(overlap > 0.75 && overlap < 0.85, "\(overlap)")
        #expect(TrackMatch.together(way, []) == 0 && TrackMatch.together([[]], way) == 0)
        // A file that zig-zags across the world in 2,000 points: the work stays bounded (a
        // sample every few hundred kilometres, at most 400,000 cells filed) and it ends.
        let zigzag = [(0..<2_000).map { Position(latitude: $0 % 2 == 0 ? -60 : 60, longitude: Double($0 % 360) - 180) }]
        #expect((0...1).contains(TrackMatch.together(zigzag, way)))
        // Resampling keeps the step, whatever the spacing of the points.
        let points = TrackMatch.resampled([.init(x: 0, y: 0), .init(x: 0, y: 7), .init(x: 0, y: 100)])
        #expect(points.count == 5 && points[1] == .init(x: 0, y: 25) && points.last == .init(x: 0, y: 100))
    }

    /// A pack's run as the simulator and the recorder make it, as FIT, moved `east` metres.
    static func packRun(seed: UInt64, start: WallInstant, minutes: Double, east: Double = 0) -> [UInt8] {
        let run = RunSimulator.simulate(SimulationScenario(seed: seed, minutes: minutes, startWall: start))
        var pipeline = RunPipeline(sensors: run.header.sensors)
        var activity = Activity(
            start: start, summary: RunSummary(elapsedSeconds: 0, statistics: RunStatistics(), splits: []))
        for event in run.events {
            for output in pipeline.process(event).outputs {
                switch output {
                case .started(let s): activity.start = s.wall ?? activity.start
                case .wallClockCorrected(let w): activity.start = w
                case .point(var p):
                    let perDegree = 6_371_008.8 * Double.pi / 180
                    p.longitude = p.longitude.map { $0 + east / (perDegree * cos(48.118 * Double.pi / 180)) }
                    activity.points.append(p)
                case .rrIntervals(let b): activity.rrIntervals.append(b)
                case .event(let e): activity.events.append(e)
                case .lap(let l): activity.laps.append(l)
                case .finished(let s): activity.summary = s
                }
            }
        }
        return ActivityFormat.fit.write(activity)
    }

    @Test(
        "Four packs run together: every pair is offered; four runs apart (an hour between, or 2 km away) get none; linked, every total is each runner's own",
        arguments: Backend.available)
    func groupRun(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        let names = ["ada", "bob", "cleo", "dan"]
        try await harness.run { client in
            var tokens: [String: String] = [:]
            for name in names { tokens[name] = try await client.signUp(name) }
            for (i, a) in names.enumerated() {
                for b in names[(i + 1)...] {
                    _ = try await client.call(.post, "/v1/friends", token: tokens[a]!, json: ["username": b])
                    _ = try await client.call(.post, "/v1/friends/\(a)/accept", token: tokens[b]!)
                }
            }
            let (_, invite) = try await client.createGroup(tokens["ada"]!, name: "Sunday long run")
            for name in names.dropFirst() { try await client.join(tokens[name]!, invite) }
            // The runs start after all joined, so each counts in the group.
            let base = harness.clock.now.advanced(byNanoseconds: 60 * nanosecondsPerSecond)
            harness.clock.advance(seconds: 6 * 3_600)
            // Together: starts 0, 2, 4 and 7 minutes apart. Apart: an hour between each; and at
            // ada's time, cleo's second pack 2 km east and dan's 2 km west.
            var files: [String: [UInt8]] = [:]
            for (index, name) in names.enumerated() {
                let minutes = [0, 2, 4, 7][index]
                files[name] = Self.packRun(
                    seed: UInt64(40 + index),
                    start: base.advanced(byNanoseconds: Int64(minutes * 60) * nanosecondsPerSecond), minutes: 18)
                files[name + "-hour"] = Self.packRun(
                    seed: UInt64(50 + index),
                    start: base.advanced(byNanoseconds: Int64((index + 1) * 3_600) * nanosecondsPerSecond), minutes: 18)
            }
            files["cleo-away"] = Self.packRun(seed: 61, start: base, minutes: 18, east: 2_000)
            files["dan-away"] = Self.packRun(seed: 62, start: base, minutes: 18, east: -2_000)
            var uuids: [String: String] = [:]
            for (key, file) in files.sorted(by: { $0.key < $1.key }) {
                let uuid = UUID().uuidString.lowercased()
                let name = String(key.prefix { $0 != "-" })
                let reply = try await client.upload(tokens[name]!, uuid: uuid, file: file)
                #expect(reply.status == .created, "\(reply.text)")
                uuids[key] = uuid
            }
            var cookies: [String: String] = [:]
            for name in names { cookies[name] = try await client.webSignIn(name).cookie }
            func offered(_ name: String, _ suffix: String) async throws -> Set<String> {
                let page = try await client.call(
                    .get, "/runs/\(uuids[name + suffix]!)", headers: [.cookie: cookies[name]!])
                return Set(uuids.filter { page.text.contains("name=\"run\" value=\"\($0.value)\"") }.keys)
            }
            for name in names {
                #expect(
                    try await offered(name, "") == Set(names.filter { $0 != name }),
                    "\(name)'s run is offered the other three")
                #expect(try await offered(name, "-hour").isEmpty, "\(name)'s run an hour apart is offered nothing")
            }
            for name in ["cleo", "dan"] {
                #expect(try await offered(name, "-away").isEmpty, "\(name)'s run 2 km away is offered nothing")
            }

            // The first of each pair links the other's run; the other agrees: ada and bob by
            // linking back, the rest with the button.
            func form(_ path: String, _ fields: String, _ name: String) async throws -> Reply {
                try await client.call(
                    .post, path, body: Array(fields.utf8), contentType: "application/x-www-form-urlencoded",
                    headers: [.cookie: cookies[name]!])
            }
            for (i, name) in names.enumerated() {
                for other in names[(i + 1)...] {
                    let linked = try await form(
                        "/runs/\(uuids[name]!)/together", "run=\(uuids[other]!)&username=x", name)
                    #expect(linked.status == .seeOther, "\(name) links \(other): \(linked.text.prefix(300))")
                    let agreed =
                        name == "ada" && other == "bob"
                        ? try await form("/runs/\(uuids[other]!)/together", "run=\(uuids[name]!)", other)
                        : try await form("/runs/\(uuids[name]!)/together/accept", "", other)
                    #expect(agreed.status == .seeOther, "\(other) agrees with \(name): \(agreed.text.prefix(300))")
                }
            }
            for name in names { #expect(try await offered(name, "").isEmpty, "linked runs are offered no more") }
            let adaPage = try await client.call(.get, "/runs/\(uuids["ada"]!)", headers: [.cookie: cookies["bob"]!])
                .text
            for other in ["bob", "cleo", "dan"] {
                #expect(
                    adaPage.contains(
                        "href=\"/people/\(other)\">\(other)</a> · <a href=\"/runs/\(uuids[other]!)\">their run</a>"))
            }
            #expect(!adaPage.contains("(asked)"), "every link agreed by both")
            let faked = try await client.call(
                .post, "/runs/\(uuids["ada"]!)/together", body: Array("run=\(uuids["dan-away"]!)&username=dan".utf8),
                contentType: "application/x-www-form-urlencoded", headers: [.cookie: cookies["ada"]!])
            #expect(
                faked.status == .unprocessableContent && faked.text.contains("not one the store sees as run with yours")
            )

            // Totals: each runner's own runs, once; the group's, every member's once.
            var groupMM: Int64 = 0
            for name in names {
                var ownMM: Int64 = 0
                for suffix in ["", "-hour", "-away"] where uuids[name + suffix] != nil {
                    let run = try await client.call(.get, "/v1/runs/\(uuids[name + suffix]!)", token: tokens[name]!)
                    ownMM += Int64((((run.json["distance_m"] as? Double) ?? 0) * 1000).rounded())
                }
                let person = try await client.call(.get, "/v1/people/\(name)", token: tokens[name]!).decode(
                    PersonView.self)
                #expect(
                    abs(person.totals.distanceM * 1000 - Double(ownMM)) < 1, "\(name): \(person.totals.distanceM) m")
                groupMM += ownMM
            }
            let groups = try await client.call(.get, "/v1/groups", token: tokens["ada"]!).decode(GroupList.self)
            let group = try #require(groups.groups.first)
            #expect(abs(group.totalM * 1000 - Double(groupMM)) < 2, "the group: \(group.totalM) m, each run once")
        }
    }

    @Test(
        "Naming a friend: only friends, the friend's answer, their page, taking a name off",
        arguments: Backend.available)
    func naming(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            _ = try await client.signUp("cleo")
            _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: bob)
            let uuid = UUID().uuidString.lowercased()
            let start = harness.clock.now.advanced(byNanoseconds: -3_600 * nanosecondsPerSecond)
            _ = try await client.upload(ada, uuid: uuid, file: RunFiles.fit(start: start))
            let cookie = try await client.webSignIn("ada").cookie
            let bobCookie = try await client.webSignIn("bob").cookie
            func post(_ path: String, _ fields: [String: String], _ cookie: String) async throws -> Reply {
                try await AccountPageTests.post(client, path, fields, cookie: cookie)
            }
            let stranger = try await post("/runs/\(uuid)/together", ["username": "cleo"], cookie)
            #expect(stranger.status == .unprocessableContent && stranger.text.contains("ask cleo to be friends first"))
            #expect(try await post("/runs/\(uuid)/together", ["username": "BOB"], cookie).status == .seeOther)
            let asked = try await client.call(.get, "/runs/\(uuid)", headers: [.cookie: cookie]).text
            #expect(asked.contains(">bob</a> <span class=\"muted\">(asked)</span>"))
            let home = try await client.call(.get, "/", headers: [.cookie: bobCookie]).text
            #expect(home.contains("ada says you ran together") && home.contains("/runs/\(uuid)/together/accept"))
            #expect(try await post("/runs/\(uuid)/together/accept", [:], bobCookie).status == .seeOther)
            #expect(
                !(try await client.call(.get, "/", headers: [.cookie: bobCookie]).text.contains(
                    "ada says you ran together")))
            let bobPage = try await client.call(.get, "/people/bob", headers: [.cookie: cookie]).text
            #expect(bobPage.contains("Run together") && bobPage.contains("href=\"/runs/\(uuid)\""))
            #expect(try await post("/runs/\(uuid)/together/remove", ["username": "bob"], cookie).status == .seeOther)
            #expect(
                !(try await client.call(.get, "/people/bob", headers: [.cookie: cookie]).text.contains("Run together")))
            #expect(try await post("/runs/\(uuid)/together/accept", [:], bobCookie).status == .notFound)
            // Declining takes the name off.
            _ = try await post("/runs/\(uuid)/together", ["username": "bob"], cookie)
            #expect(try await post("/runs/\(uuid)/together/decline", [:], bobCookie).status == .seeOther)
            #expect(
                !(try await client.call(.get, "/runs/\(uuid)", headers: [.cookie: cookie]).text.contains("(asked)")))
            // Named, then blocked: the name goes, and bob can no longer agree.
            _ = try await post("/runs/\(uuid)/together", ["username": "bob"], cookie)
            _ = try await client.call(.post, "/v1/blocks", token: ada, json: ["username": "bob"])
            #expect(try await post("/runs/\(uuid)/together/accept", [:], bobCookie).status == .notFound)
            let afterBlock = try await client.call(.get, "/runs/\(uuid)", headers: [.cookie: cookie]).text
            #expect(!afterBlock.contains("/people/bob\""))
        }
    }
}
