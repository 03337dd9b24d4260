import Foundation
import HandoffModel
import PackControl
import PackService
import PackStorage
import PackSync
import TestSupport
import Testing

/// Issue 29: the store's answer to an upload (where the run counted, and why not elsewhere) is
/// kept in the journal with the run, and the worker's status carries it for `handoff sync`.
@Suite(.serialized)
struct CountedSyncTests {
    @Test("The acknowledgement's counted_in and not_counted are kept in the journal and in the status's recent runs")
    func acknowledgementKept() async throws {
        try await LiveStore.run { store in
            let token = try await store.signUp("ada")
            _ = try await store.createGroup(token)
            let pack = try TestPack("counted")
            try await pack.link(to: store, approvingWith: token)
            var random = SeededRandom(seed: 29)
            // One run from two hours before ada joined the group, one from now.
            let early = try pack.addRuns(
                1, first: nowWall.advanced(byNanoseconds: -7200 * 1_000_000_000), random: &random)
            let late = try pack.addRuns(1, first: nowWall.advanced(byNanoseconds: 1_000_000_000), random: &random)
            let worker = Task { await pack.worker.run() }
            try await pack.waitUntilSynced()
            await pack.worker.stop()
            await worker.value

            func counting(_ uuid: String) throws -> CountingReport? {
                let run = try #require(try pack.database.runs().first { $0.uuid == uuid })
                return try pack.database.counted(run.id).map { try ControlJSON.decode(CountingReport.self, from: $0) }
            }
            let earlyUUID = try #require(early.keys.first)
            let lateUUID = try #require(late.keys.first)
            let earlyCounting = try #require(try counting(earlyUUID))
            #expect(earlyCounting.countedIn.isEmpty)
            #expect(
                earlyCounting.notCounted == [
                    NotCountedReport(
                        group: "Relay club", groupID: earlyCounting.notCounted.first?.groupID,
                        reasonCode: "started_before_joining", reason: "it started before you joined")
                ])
            #expect(earlyCounting.sentence == "counted in no group; not in Relay club: it started before you joined")
            let lateCounting = try #require(try counting(lateUUID))
            #expect(lateCounting == CountingReport(countedIn: ["Relay club"], notCounted: []))
            #expect(lateCounting.sentence == "counted in Relay club")

            // The status names both, by run number, as `handoff sync` prints them.
            let status = SyncStatusReport(await pack.worker.status())
            #expect(Set(status.activity.recent.map(\.uuid)) == Set(early.keys).union(late.keys))
            #expect(status.activity.recent.allSatisfy { $0.status == 201 })
            #expect(status.activity.recent.first { early[$0.uuid] != nil }?.counting == earlyCounting)
            let earlyRun = try #require(status.activity.recent.first { early[$0.uuid] != nil }?.run)
            #expect(
                status.countedLines.contains(
                    "Run \(earlyRun): counted in no group; not in Relay club: it started before you joined"),
                "\(status.countedLines)")
            let json = try ControlJSON.encode(status)
            #expect(
                json.contains(#""reason_code":"started_before_joining""#)
                    && json.contains(#""counted_in":["Relay club"]"#))
        }
    }
}
