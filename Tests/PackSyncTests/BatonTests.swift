import Foundation
import HandoffAPI
import HandoffModel
import PackControl
import PackStorage
import PackSync
import TestSupport
import Testing

@Suite(.serialized)
struct PackBatonTests {
    @Test(
        "The baton from the pack: taken online at the start, solo when held, passed only after the run synced, claimed offline and settled at upload"
    )
    func batonFromThePack() async throws {
        try await LiveStore.run { store in
            let ada = try await store.signUp("adele")
            let bob = try await store.signUp("bruno")
            let cyd = try await store.signUp("cyril")
            let group = try await store.createGroup(ada)
            try await store.join(bob, group.invite)
            try await store.join(cyd, group.invite)
            let adaPack = try TestPack("adele")
            let bobPack = try TestPack("bruno")
            try await adaPack.link(to: store, approvingWith: ada)
            try await bobPack.link(to: store, approvingWith: bob)
            let proxy = try FaultProxy(upstreamPort: store.port, seed: 3, weights: [(.dropMidUpload, 1)])
            proxy.setFaults(false)
            defer { proxy.stop() }
            let cydPack = try TestPack("cyril")
            try await cydPack.link(to: LiveStore(client: store.client, port: proxy.port), approvingWith: cyd)

            // Ada starts online: she takes the baton. Bob, starting next, runs solo.
            let adaStart = await adaPack.worker.batonForStart(solo: false)
            #expect(
                adaStart == .held(group: Int64(group.id), message: "You hold the baton: this run is your relay leg."))
            guard case .solo(let bobGroup, let bobMessage) = await bobPack.worker.batonForStart(solo: false) else {
                Issue.record("Bob should run solo")
                return
            }
            #expect(bobGroup == Int64(group.id) && bobMessage.contains("adele has held the baton"))
            #expect(try await adaPack.worker.batonStatus().youHold)
            #expect(await adaPack.worker.batonForStart(solo: true).mode?.mode == .solo)

            // Her run has not synced: passing is refused until it has.
            var random = SeededRandom(seed: 11)
            let adaRun = try adaPack.addRuns(1, first: nowWall.advanced(byNanoseconds: 1_000_000_000), random: &random)
            let adaSession = try #require(try adaPack.database.resolveRun(adaRun.keys.first!))
            try adaPack.database.setBaton(adaSession, group: Int64(group.id), mode: .held)
            await #expect(throws: SyncError.self) { try await adaPack.worker.passBaton(to: nil) }
            let worker = Task { await adaPack.worker.run() }
            try await adaPack.waitUntilSynced()
            await adaPack.worker.stop()
            await worker.value
            #expect(await adaPack.worker.isBatonYours, "hers, as the store said at her sync")
            // Bruno's pack has just asked (adele's): only a sync that uploads asks again within 5 min.
            #expect(try await !bobPack.worker.batonStatus().youHold)
            let passed = try await adaPack.worker.passBaton(to: nil)
            #expect(passed.holder == "bruno" && passed.message == "Passed the baton to bruno.")
            #expect(await !adaPack.worker.isBatonYours)

            // Bruno's pack hears it at its next sync (issue 35): the LED's "baton yours".
            #expect(await !bobPack.worker.isBatonYours)
            let bobRun = try bobPack.addRuns(1, first: nowWall.advanced(byNanoseconds: 1_500_000_000), random: &random)
            #expect(bobRun.count == 1)
            let bobWorker = Task { await bobPack.worker.run() }
            try await bobPack.waitUntilSynced()
            // The look at the baton ends the pass that uploaded the run.
            let deadline = ContinuousClock.now + .seconds(60)
            while await !bobPack.worker.isBatonYours, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(await bobPack.worker.isBatonYours, "bruno's pack heard the baton is his")
            await bobPack.worker.stop()
            await bobWorker.value
            let progress = try await store.progress(ada, group: group.id)
            let legs = progress.legs
            #expect(legs.last?.runner == "adele" && legs.last?.runs == 1)

            // Cyril learns his group online (Bruno holds the baton: solo), then starts offline: the
            // run claims the baton. Bruno releases it; the claim is accepted when the run syncs.
            #expect(await cydPack.worker.batonForStart(solo: false).mode?.mode == .solo)
            proxy.setFaults(true)
            let offline = await cydPack.worker.batonForStart(solo: false)
            #expect(offline.mode?.mode == .offline && offline.mode?.group == Int64(group.id))
            proxy.setFaults(false)
            #expect(try await store.call(.post, "/v1/groups/\(group.id)/baton/release", token: bob).status == 204)
            let cydRun = try cydPack.addRuns(1, first: nowWall.advanced(byNanoseconds: 2_000_000_000), random: &random)
            let cydSession = try #require(try cydPack.database.resolveRun(cydRun.keys.first!))
            try cydPack.database.setBaton(cydSession, group: Int64(group.id), mode: .offline)
            let cydWorker = Task { await cydPack.worker.run() }
            try await cydPack.waitUntilSynced()
            await cydPack.worker.stop()
            await cydWorker.value
            let status = try await cydPack.worker.batonStatus()
            #expect(status.youHold && status.holder == "cyril", "\(status.message)")
            let stored = try await store.call(.get, "/v1/runs/\(cydRun.keys.first!)", token: cyd)
            let run = try stored.decode(RunView.self)
            let summary = try JSONDecoder().decode(UploadSummary.self, from: JSONEncoder().encode(run.summary))
            #expect(summary.batonClaim?.groupID == Int64(group.id))
            #expect(run.countedIn?.first?.relayLeg != nil)
        }
    }
}
