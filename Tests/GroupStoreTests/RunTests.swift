import ActivityFormats
import Foundation
import GroupStore
import HandoffAPI
import HandoffModel
import Hummingbird
import HummingbirdTesting
import SensorCodecs
import Testing

@Suite("Runs: upload once, count everywhere, list, fetch, delete")
struct RunTests {
    @Test(
        "A FIT upload is parsed, stored and counted in the group; the same upload again changes nothing; other content is 409",
        arguments: Backend.available)
    func idempotentUpload(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let (id, invite) = try await client.createGroup(ada, goal: 10_000)
            try await client.join(bob, invite)
            let start = harness.clock.now.advanced(byNanoseconds: 60 * 1_000_000_000)
            let file = RunFiles.fit(start: start, seconds: 1200, speed: 3.1)
            let expected = Double(try RunFiles.distanceMM(file)) / 1000
            let uuid = UUID().uuidString.lowercased()

            let first = try await client.upload(ada, uuid: uuid, file: file)
            #expect(first.status == .created, "\(first.json)")
            #expect(first.headers[.location] == "/v1/runs/\(uuid)")
            let firstRun = try first.decode(RunView.self)
            #expect(firstRun.distanceM == expected)
            #expect(abs(expected - 3720) < 1, "1200 s at 3.1 m/s")
            #expect(firstRun.format == "fit" && firstRun.sport == "run")
            #expect(firstRun.summary.objectValue?["source"]?.stringValue == "test")
            let counted = try #require(firstRun.countedIn)
            #expect(counted.count == 1 && counted[0].groupID == Int64(id) && counted[0].relayLeg == nil)
            #expect(((first["counted_in"] as? [[String: Any]])?.first?["relay_leg"]) is NSNull)

            let again = try await client.upload(ada, uuid: uuid, file: file)
            #expect(try again.status == .ok && again.decode(RunView.self).sha256 == firstRun.sha256)
            // The same UUID in capitals (RFC 9562 §4: case-insensitive) is the same run, not a
            // second one counted again.
            let shouted = try await client.upload(ada, uuid: uuid.uppercased(), file: file)
            #expect(try shouted.status == .ok && shouted.decode(RunView.self).sha256 == firstRun.sha256)
            let other = RunFiles.fit(start: start, seconds: 1300, speed: 3.1)
            let conflict = try await client.upload(ada, uuid: uuid, file: other)
            #expect(conflict.status == .conflict && conflict.errorCode == "run_conflict")
            let stolen = try await client.upload(bob, uuid: uuid, file: file)
            #expect(stolen.status == .conflict && stolen.errorCode == "run_conflict")

            let progress = try await client.call(.get, "/v1/groups/\(id)/progress", token: bob)
            let group = try progress.decode(ProgressView.self).group
            #expect(group.totalM == expected)
            #expect(group.percent == (expected / 10_000 * 1000).rounded() / 10)
            let members = try progress.decode(ProgressView.self).members
            #expect(members.first { $0.username == "ada" }?.distanceM == expected)
            #expect(members.first { $0.username == "ada" }?.weekM == expected)
            #expect(members.first { $0.username == "bob" }?.distanceM == 0)

            // Raw body upload (curl -T) of a second run.
            let raw = try await client.call(
                .put, "/v1/runs/\(UUID().uuidString)", token: ada,
                // Later than the first, but within the 10 minutes a device's clock may run ahead.
                body: RunFiles.fit(start: start.advanced(byNanoseconds: 300_000_000_000)),
                contentType: "application/vnd.ant.fit")
            #expect(raw.status == .created)
            let rawDistance = try raw.decode(RunView.self).distanceM

            let list = try await client.call(.get, "/v1/runs?limit=10", token: ada)
            let listed = try list.decode(RunList.self).runs
            #expect(listed.count == 2)
            #expect(listed.allSatisfy { $0.countedIn?.first?.groupID == Int64(id) })
            let page = try await client.call(.get, "/v1/runs?limit=1", token: ada)
            #expect(
                try page.decode(RunList.self).runs.first?.uuid == raw.headers[.location].map { String($0.dropFirst(9)) }
            )
            let fetched = try await client.call(.get, "/v1/runs/\(uuid)", token: ada)
            #expect(try fetched.status == .ok && fetched.decode(RunView.self).uuid == uuid)
            let download = try await client.call(.get, "/v1/runs/\(uuid)/file", token: ada)
            #expect(download.status == .ok && [UInt8](download.body) == file)
            #expect(download.headers[.contentType] == "application/vnd.ant.fit")
            let weeks = try await client.call(.get, "/v1/me/weeks?count=2", token: ada)
            let thisWeek = try #require(try weeks.decode(Weeks.self).weeks.first)
            #expect(thisWeek.runs == 2 || thisWeek.runs == 1, "the second run may fall next week")
            try await checkTotals(repository)

            #expect(try await client.call(.delete, "/v1/runs/\(uuid)", token: ada).status == .noContent)
            #expect(try await client.call(.get, "/v1/runs/\(uuid)", token: ada).status == .notFound)
            let after = try await client.call(.get, "/v1/groups/\(id)", token: ada)
            #expect(
                try after.decode(GroupView.self).totalM == rawDistance, "the deleted run's distance leaves the total")
            try await checkTotals(repository)
        }
    }

    @Test(
        "Paging through runs with the cursor lists each run once, also runs that share a start time across pages",
        arguments: Backend.available)
    func paging(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let start = harness.clock.now.advanced(byNanoseconds: -86_400 * nanosecondsPerSecond)
            // Seven runs: four start in the same second (two devices, a re-import…), three others.
            var uploaded: [String] = []
            for (index, offset) in [0, 0, 0, 0, 3600, 7200, -3600].enumerated() {
                let uuid = UUID().uuidString.lowercased()
                let file = RunFiles.fit(
                    start: start.advanced(byNanoseconds: Int64(offset) * nanosecondsPerSecond), seconds: 300 + index,
                    speed: 3)
                #expect(try await client.upload(ada, uuid: uuid, file: file).status == .created)
                uploaded.append(uuid)
            }
            var seen: [String] = []
            var starts: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let query = "/v1/runs?limit=2" + (cursor.map { "&cursor=" + $0 } ?? "")
                let page = try await client.call(.get, query, token: ada)
                #expect(page.status == .ok, "\(page.text)")
                let list = try page.decode(RunList.self)
                seen += list.runs.map(\.uuid)
                starts += list.runs.map(\.startedAt)
                cursor = list.nextCursor
                pages += 1
            } while cursor != nil && pages < 10
            #expect(seen.count == 7 && Set(seen) == Set(uploaded), "each run once: \(seen)")
            #expect(starts == starts.sorted(by: >), "newest start first")
            #expect(pages == 4, "2 + 2 + 2 + 1")
            // The last page says there is no next one; a cursor that is not one is refused.
            let bad = try await client.call(.get, "/v1/runs?cursor=yesterday", token: ada)
            #expect(bad.status == .unprocessableContent && bad.errorCode == "invalid_cursor")
            // Another account's paging never reaches ada's runs, cursor or not.
            let bob = try await client.signUp("bob")
            let theirs = try await client.call(.get, "/v1/runs?limit=500&cursor=9223372036854775807.1", token: bob)
            #expect((theirs["runs"] as? [Any])?.isEmpty == true && theirs["next_cursor"] is NSNull)
        }
    }

    @Test("Bad uploads get a clear error and store nothing", arguments: Backend.available)
    func badUploads(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let uuid = UUID().uuidString
            let good = RunFiles.fit(start: harness.clock.now)
            var damaged = good
            damaged[damaged.count / 2] ^= 0xFF
            let crc = try await client.upload(ada, uuid: uuid, file: damaged)
            #expect(crc.status == .unprocessableContent && crc.errorCode == "invalid_file")
            #expect(crc.errorMessage.contains("CRC"))
            let text = try await client.upload(ada, uuid: uuid, file: Array("hello, world".utf8))
            #expect(text.status == .unsupportedMediaType && text.errorCode == "unknown_format")
            let empty = try await client.upload(ada, uuid: uuid, file: [])
            #expect(empty.errorCode == "empty_file")
            let future = try await client.upload(
                ada, uuid: uuid,
                file: RunFiles.fit(start: harness.clock.now.advanced(byNanoseconds: 3 * 86_400_000_000_000)))
            #expect(future.errorCode == "implausible_run" && future.errorMessage.contains("clock"))
            let summary = try await client.upload(ada, uuid: uuid, file: good, summary: "[1, 2")
            #expect(summary.errorCode == "invalid_summary")
            let badUUID = try await client.upload(ada, uuid: "not-a-uuid", file: good)
            #expect(badUUID.status == .unprocessableContent && badUUID.errorCode == "invalid_uuid")
            let torn = try await client.call(
                .put, "/v1/runs/\(uuid)", token: ada,
                body: Array("--x\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc".utf8),
                contentType: "multipart/form-data; boundary=x")
            #expect(torn.status == .badRequest && torn.errorCode == "bad_multipart")
            let noFile = try await client.call(
                .put, "/v1/runs/\(uuid)", token: ada,
                body: Array("--x\r\nContent-Disposition: form-data; name=\"summary\"\r\n\r\n{}\r\n--x--\r\n".utf8),
                contentType: "multipart/form-data; boundary=x")
            #expect(noFile.errorCode == "missing_file")
            let gpx = try await client.call(
                .put, "/v1/runs/\(uuid)", token: ada,
                body: Array(
                    #"<?xml version="1.0"?><gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg><trkpt lat="100" lon="0"><time>2026-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>"#
                        .utf8),
                contentType: "application/gpx+xml")
            #expect(gpx.status == .unprocessableContent && gpx.errorMessage.contains("latitude"))
            #expect((try await client.call(.get, "/v1/runs", token: ada)["runs"] as? [Any])?.isEmpty == true)
            try await checkTotals(repository)
        }
    }

    @Test("An upload larger than the limit is refused with 413", arguments: [Backend.sqlite])
    func tooLarge(_ backend: Backend) async throws {
        var harness = try StoreHarness(backend)
        harness.configuration.uploads.maxRunBytes = 100_000
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let big = try await client.upload(ada, uuid: UUID().uuidString, file: [UInt8](repeating: 0, count: 200_000))
            #expect(big.status == .contentTooLarge && big.errorCode == "too_large")
            let json = try await client.call(
                .post, "/v1/groups", token: ada, json: ["name": String(repeating: "x", count: 70_000), "goal_m": 1])
            #expect(json.status == .contentTooLarge)
        }
    }

    @Test(
        "Runs started holding the baton count as the relay leg; runs before joining or after the deadline do not count",
        arguments: Backend.available)
    func relayLegs(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let (id, invite) = try await client.createGroup(ada)
            try await client.join(bob, invite)
            let before = try await client.upload(
                ada, uuid: UUID().uuidString,
                file: RunFiles.fit(start: harness.clock.now.advanced(byNanoseconds: -86_400_000_000_000)))
            #expect(try before.status == .created && before.decode(RunView.self).countedIn?.isEmpty == true)

            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/take", token: ada).status == .ok)
            harness.clock.advance(seconds: 10)
            let leg = try await client.upload(
                ada, uuid: UUID().uuidString, file: RunFiles.fit(start: harness.clock.now))
            let legRun = try leg.decode(RunView.self)
            let legID = try #require(legRun.countedIn?.first?.relayLeg)
            harness.clock.advance(seconds: 1000)
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/pass", token: ada).status == .ok)
            harness.clock.advance(seconds: 10)
            let solo = try await client.upload(
                ada, uuid: UUID().uuidString, file: RunFiles.fit(start: harness.clock.now))
            #expect((solo["counted_in"] as? [[String: Any]])?.first?["relay_leg"] is NSNull)

            let legs = try await client.call(.get, "/v1/groups/\(id)/baton", token: bob).decode(BatonState.self).legs
            let adaLeg = try #require(legs.first { $0.id == legID })
            #expect(adaLeg.distanceM == legRun.distanceM && adaLeg.runs == 1)

            // A deadline a day away: a run that starts after it counts for the runner, not the group.
            let deadline = CivilTime(harness.clock.now.advanced(byNanoseconds: 86_400_000_000_000)).iso8601()
            #expect(
                try await client.call(
                    .patch, "/v1/groups/\(id)", token: ada, send: GroupChange(deadline: .some(deadline))
                )
                .status == .ok)
            let total = try await client.call(.get, "/v1/groups/\(id)", token: ada).decode(GroupView.self).totalM
            harness.clock.advance(seconds: 2 * 86_400)
            let late = try await client.upload(
                ada, uuid: UUID().uuidString, file: RunFiles.fit(start: harness.clock.now))
            #expect(try late.status == .created && late.decode(RunView.self).countedIn?.isEmpty == true)
            #expect(try await client.call(.get, "/v1/groups/\(id)", token: ada).decode(GroupView.self).totalM == total)
            try await checkTotals(repository)
        }
    }

    @Test(
        "Upload storm: 1,000 concurrent uploads of 200 runs (each 5 times, some with other content) store 200 runs and exact totals",
        arguments: Backend.available)
    func uploadStorm(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend, transport: .live)
        try await harness.run { client, repository in
            var runners: [String] = []
            let owner = try await client.signUp("owner")
            let (id, invite) = try await client.createGroup(owner, goal: 10_000_000)
            for i in 0..<10 {
                let token = try await client.signUp("storm\(i)")
                try await client.join(token, invite)
                runners.append(token)
            }
            let base = harness.clock.now.advanced(byNanoseconds: 60_000_000_000)
            struct Upload: Sendable {
                let token: String
                let uuid: String
                let file: [UInt8]
            }
            var uploads: [Upload] = []
            var expected: [String: Int64] = [:]
            for run in 0..<200 {
                let token = runners[run % runners.count]
                let uuid = UUID().uuidString.lowercased()
                let start = base.advanced(byNanoseconds: Int64(run) * 1_000_000_000)
                let file = RunFiles.fit(start: start, seconds: 60 + run % 50, speed: 2.5 + Double(run % 7) / 10)
                expected[uuid] = try RunFiles.distanceMM(file)
                for copy in 0..<5 {
                    // Every tenth run has one copy with other content: it must never win.
                    let impostor = run % 10 == 0 && copy == 4
                    let body = impostor ? RunFiles.fit(start: start, seconds: 30, speed: 9) : file
                    uploads.append(Upload(token: token, uuid: uuid, file: body))
                }
            }
            // All 1,000 at once, in a shuffled order: for the runs with an impostor copy, either
            // file may arrive first. Whichever is stored, its copies get 201/200 and the others 409.
            var generator = SeededGenerator(seed: 7)
            uploads.shuffle(using: &generator)
            // Each upload on a connection of its own, 100 in flight at any moment (more than the
            // server's listen backlog would be refused by the kernel, not by the store).
            let inFlight = InFlight()
            let statuses = try await withThrowingTaskGroup(of: (Upload, Reply).self) { group in
                var results: [(Upload, Reply)] = []
                for (index, upload) in uploads.enumerated() {
                    if index >= 100, let done = try await group.next() { results.append(done) }
                    group.addTask {
                        try await inFlight.during {
                            (
                                upload,
                                try await client.upload(
                                    upload.token, uuid: upload.uuid, file: upload.file, ownConnection: true)
                            )
                        }
                    }
                }
                for try await done in group { results.append(done) }
                return results
            }
            #expect(inFlight.most > 10, "uploads overlapped: at most \(inFlight.most) at once")
            #expect(statuses.count == 1000)
            #expect(statuses.allSatisfy { [.created, .ok, .conflict].contains($0.1.status) })
            let created = statuses.filter { $0.1.status == .created }
            #expect(created.count == 200 && Set(created.map(\.0.uuid)).count == 200)
            let storedFile = Dictionary(uniqueKeysWithValues: created.map { ($0.0.uuid, $0.0.file) })
            for (upload, reply) in statuses {
                let same = storedFile[upload.uuid] == upload.file
                #expect(same ? reply.status != .conflict : reply.status == .conflict, "\(upload.uuid): \(reply.status)")
                if !same { #expect(reply.errorCode == "run_conflict") }
            }
            for (uuid, file) in storedFile { expected[uuid] = try RunFiles.distanceMM(file) }

            let group = try await client.call(.get, "/v1/groups/\(id)", token: owner)
            let total = expected.values.reduce(0, +)
            #expect(try group.decode(GroupView.self).totalM == Double(total) / 1000)
            let count = try await repository.database.read { db in
                try await db.one("SELECT count(*) AS n, sum(distance_mm) AS mm FROM run")
            }
            #expect(try count?.int("n") == 200 && count?.int("mm") == total)
            try await checkTotals(repository)
        }
    }

    @Test(
        "Deleting an account removes its runs and sessions; its distance stays in the group as former members'",
        arguments: Backend.available)
    func accountDeletion(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let (id, invite) = try await client.createGroup(ada)
            try await client.join(bob, invite)
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/take", token: bob).status == .ok)
            // FIT times are whole seconds: start the run a moment after joining.
            let run = try await client.upload(
                bob, uuid: UUID().uuidString,
                file: RunFiles.fit(start: harness.clock.now.advanced(byNanoseconds: 2_000_000_000)))
            let distance = try run.decode(RunView.self).distanceM
            let deletion = AccountDeletion(password: "correct horse battery")
            #expect(try await client.call(.delete, "/v1/me", token: bob, send: deletion).status == .noContent)
            let progress = try await client.call(.get, "/v1/groups/\(id)/progress", token: ada)
            let view = try progress.decode(ProgressView.self)
            #expect(view.group.totalM == distance)
            #expect(view.formerMembersM == distance)
            #expect(view.members.count == 1)
            #expect((progress["baton"] as? [String: Any])?["holder"] is NSNull, "the baton is freed")
            let legs = progress["legs"] as? [[String: Any]]
            #expect(legs?.first?["runner"] is NSNull && view.legs.first?.ended == "left")
            let count = try await repository.database.read { db in try await db.one("SELECT count(*) AS n FROM run") }
            #expect(try count?.int("n") == 0)
            try await checkTotals(repository)
        }
    }
}
