import ActivityFormats
import Foundation
import HandoffAPI
import HandoffModel
import PackControl
import PackStorage
import PackSync
import Synchronization
import TestSupport
import Testing

/// The sync worker against a real store on loopback: linking, uploads, refusals, privacy zones,
/// and faults injected between the two.
@Suite(
    "Sync to a live store (real time: the worker's retries over HTTP on loopback, through a faulty proxy)", .serialized)
struct SyncTests {
    @Test("A linked pack uploads every finished run once; the group's totals are the sums of its runs")
    func linkAndUpload() async throws {
        try await LiveStore.run { store in
            let token = try await store.signUp("ada")
            let group = try await store.createGroup(token)
            let pack = try TestPack("ada")
            try await pack.link(to: store, approvingWith: token)
            // The token is in a file only its owner can read.
            var info = stat()
            #expect(stat(pack.linkPath, &info) == 0 && info.st_mode & 0o777 == 0o600)
            var random = SeededRandom(seed: 1)
            let runs = try pack.addRuns(3, first: nowWall.advanced(byNanoseconds: 1_000_000_000), random: &random)
            let worker = Task { await pack.worker.run() }
            try await pack.waitUntilSynced()
            await pack.worker.stop()
            await worker.value

            let stored = try await store.runs(token)
            #expect(Set(stored.keys) == Set(runs.keys))
            for (uuid, distance) in runs { #expect(abs((stored[uuid] ?? 0) - distance) < 0.01) }
            let progress = try await store.progress(token, group: group.id)
            let total = progress.group.totalM
            #expect(abs(total - stored.values.reduce(0, +)) < 0.001, "\(progress)")
            let status = await pack.worker.status()
            #expect(
                status.phase == .idle && status.outbox.synced == 3 && status.activity.uploaded == 3
                    && status.outbox.queued.isEmpty)
            // Synced runs stay on the pack.
            #expect(try pack.database.runs().count == 3)
        }
    }

    @Test("A run the store refuses is held with the store's reason; the others go on; the pack's copy stays")
    func refusedRunIsHeld() async throws {
        try await LiveStore.run { store in
            let token = try await store.signUp("beatrix")
            let pack = try TestPack("bea")
            try await pack.link(to: store, approvingWith: token)
            var random = SeededRandom(seed: 2)
            // A run dated next week: the store refuses it (the pack's clock was wrong).
            let future = try pack.addRuns(
                1, first: nowWall.advanced(byNanoseconds: 8 * 86_400 * 1_000_000_000), random: &random)
            let good = try pack.addRuns(2, first: nowWall, random: &random)
            let worker = Task { await pack.worker.run() }
            let deadline = ContinuousClock.now + .seconds(120)
            var status = await pack.worker.status()
            while status.phase != .held, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                status = await pack.worker.status()
            }
            #expect(status.phase == .held, "\(status.message)")
            let held = try #require(status.outbox.queued.first)
            #expect(
                held.entry.uuid == future.keys.first && held.entry.held && held.entry.errorCode == "implausible_run")
            #expect(held.entry.lastError?.contains("clock") == true, "\(held.entry.lastError ?? "")")
            #expect(Set(try await store.runs(token).keys) == Set(good.keys))
            // Held means held: the worker looks at the outbox again, twice, and does not try it.
            let attempts = held.entry.attempts
            for look in 1...2 { #expect(try await pack.worker.lookedAgain(), "look \(look): the worker made no pass") }
            #expect(await pack.worker.status().outbox.queued.first?.entry.attempts == attempts)
            // A person asks again: it is tried (and refused) once more.
            await pack.worker.requestSync(now: true, anywhere: false)
            // Waits for the attempt itself (a fixed 500 ms was too short on a loaded machine).
            let retried = ContinuousClock.now + .seconds(120)
            while await pack.worker.status().outbox.queued.first?.entry.attempts == attempts,
                ContinuousClock.now < retried
            {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(await pack.worker.status().outbox.queued.first?.entry.attempts == attempts + 1)
            await pack.worker.stop()
            await worker.value
            #expect(try pack.database.runs().count == 3)
        }
    }

    @Test("A link revoked on the store stops all uploads with a message saying to link again")
    func revokedLink() async throws {
        try await LiveStore.run { store in
            let token = try await store.signUp("cyrus")
            let pack = try TestPack("cyrus")
            try await pack.link(to: store, approvingWith: token)
            let devices = try await store.call(.get, "/v1/devices", token: token)
            let device = try #require(try devices.decode(DeviceList.self).devices.first?.id)
            #expect(try await store.call(.delete, "/v1/devices/\(device)", token: token).status == 204)
            var random = SeededRandom(seed: 3)
            try pack.addRuns(2, first: nowWall, random: &random)
            let worker = Task { await pack.worker.run() }
            let deadline = ContinuousClock.now + .seconds(120)
            var status = await pack.worker.status()
            while status.phase != .unlinkedByStore, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                status = await pack.worker.status()
            }
            #expect(status.phase == .unlinkedByStore)
            #expect(status.message.contains("handoff link"), "\(status.message)")
            // One refused attempt, then nothing: the second run was not even tried.
            #expect(status.outbox.queued.map(\.entry.attempts).sorted() == [0, 1])
            #expect(await pack.worker.linkStatus().phase == .unlinkedByStore)
            await pack.worker.stop()
            await worker.value
            #expect(try await store.runs(token).isEmpty)
        }
    }

    @Test("No uploaded point lies inside a privacy zone; the run's distance still counts in full")
    func privacyZones() async throws {
        try await LiveStore.run { store in
            let token = try await store.signUp("delia")
            let group = try await store.createGroup(token)
            let home = PrivacyZone(name: "home", latitude: 48.2, longitude: 16.37, radiusMeters: 250)
            let pack = try TestPack("delia", zones: [home])
            try await pack.link(to: store, approvingWith: token)
            var random = SeededRandom(seed: 4)
            let runs = try pack.addRuns(3, first: nowWall, random: &random)
            let worker = Task { await pack.worker.run() }
            try await pack.waitUntilSynced()
            await pack.worker.stop()
            await worker.value
            var total = 0.0
            for (uuid, distance) in runs {
                let file = try await store.file(token, uuid: uuid)
                let uploaded = try ActivityFormat.fit.read(file)
                let session = try pack.database.resolveRun(uuid)
                let kept = try pack.database.points(of: try #require(session))
                #expect(!uploaded.points.isEmpty && uploaded.points.count < kept.count)
                for point in uploaded.points {
                    let lat = try #require(point.latitude)
                    let lon = try #require(point.longitude)
                    #expect(!home.contains(latitude: lat, longitude: lon), "point \(point.elapsedSeconds) is at home")
                }
                // The pack keeps every point, home included.
                #expect(kept.contains { home.contains(latitude: $0.latitude!, longitude: $0.longitude!) })
                #expect(abs(uploaded.summary.statistics.distanceMeters - distance) < 0.01)
                total += distance
            }
            let progress = try await store.progress(token, group: group.id)
            let stored = progress.group.totalM
            #expect(abs(stored - total) < 0.05)
        }
    }

    @Test(
        "Faults between pack and store (drops mid-upload, delays, 500/503, resets after commit, stalls): 500 runs arrive exactly once"
    )
    func faultInjection() async throws {
        try await LiveStore.run { store in
            let proxy = try FaultProxy(upstreamPort: store.port, seed: 8)
            defer { proxy.stop() }
            let packs = 5
            let perPack = 100
            var tokens: [String] = []
            for i in 0..<packs { tokens.append(try await store.signUp("runner\(i)")) }
            let group = try await store.createGroup(tokens[0])
            for token in tokens.dropFirst() { try await store.join(token, group.invite) }
            var expected: [[String: Double]] = []
            var list: [TestPack] = []
            var random = SeededRandom(seed: 9)
            let first = nowWall.advanced(byNanoseconds: 1_000_000_000)
            for i in 0..<packs {
                let pack = try TestPack("runner\(i)", timeout: 1.5)
                list.append(pack)
                // Five seconds apart, so that the last of 100 starts within the store's 10 minutes of
                // clock skew (runs further in the future are refused).
                expected.append(try pack.addRuns(perPack, first: first, every: 5, random: &random))
            }
            // Linking goes through the faults too.
            proxy.setFaults(false)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (pack, token) in zip(list, tokens) {
                    group.addTask {
                        let proxied = LiveStore(client: store.client, port: proxy.port)
                        try await pack.link(to: proxied, approvingWith: token)
                    }
                }
                try await group.waitForAll()
            }
            proxy.setFaults(true)
            let workers = list.map { pack in Task { await pack.worker.run() } }
            // Faults for a while, then none: everything left must go.
            let faultyUntil = ContinuousClock.now + .seconds(40)
            while ContinuousClock.now < faultyUntil {
                let waiting = try list.reduce(0) { $0 + (try $1.database.outboxTotals().waiting) }
                if waiting < packs * perPack / 4 { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            proxy.setFaults(false)
            for pack in list { await pack.worker.requestSync(now: true, anywhere: false) }
            for pack in list { try await pack.waitUntilSynced(timeout: .seconds(120)) }
            for pack in list { await pack.worker.stop() }
            for worker in workers { await worker.value }

            // Every fault happened, and some uploads reached the store without the pack hearing.
            for fault in FaultProxy.Fault.allCases { #expect(proxy.count(fault) > 0, "no \(fault)") }
            var alreadyStored = 0
            var sum = 0.0
            for (i, pack) in list.enumerated() {
                let stored = try await store.runs(tokens[i])
                #expect(stored.count == perPack)
                #expect(Set(stored.keys) == Set(expected[i].keys))
                for (uuid, distance) in expected[i] { #expect(abs((stored[uuid] ?? -1) - distance) < 0.01) }
                sum += stored.values.reduce(0, +)
                let status = await pack.worker.status()
                #expect(status.outbox.queued.isEmpty && status.outbox.synced == perPack)
                alreadyStored += status.activity.alreadyStored
            }
            #expect(alreadyStored > 0, "no upload was acknowledged only on a retry: the reset faults did not bite")
            let progress = try await store.progress(tokens[0], group: group.id)
            let total = progress.group.totalM
            let members = progress.members.map(\.distanceM)
            #expect(abs(total - sum) < 0.001, "group total \(total) m, runs \(sum) m")
            #expect(abs(members.reduce(0, +) - sum) < 0.001)
            #expect(members.count == packs)
        }
    }
}
