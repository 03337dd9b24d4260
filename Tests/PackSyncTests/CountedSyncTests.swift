import Foundation
import HandoffAPI
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

/// Issue 34: a ride recorded on the pack reaches the store as a ride and counts by the group's
/// sports.
@Suite(.serialized)
struct RideSyncTests {
    @Test(
        "A pack's ride is a bike ride on the store, not counted where the group counts runs and walks, with the crank's cadence"
    )
    func rideUploads() async throws {
        try await LiveStore.run { store in
            let token = try await store.signUp("ada")
            let group = try await store.createGroup(token)
            let pack = try TestPack("ride")
            try await pack.link(to: store, approvingWith: token)
            var ride = TestPack.activity(seconds: 600, speed: 8, origin: (48.2, 16.37))
            for i in ride.points.indices {
                ride.points[i].cadenceSPM = nil
                ride.points[i].cadenceRPM = 80 + i % 10
                ride.points[i].bikeSensor = "bike0"
            }
            ride.summary.statistics.averageCadence = nil
            ride.summary.statistics.averageCrankCadence = 84.5
            let uuid = UUID().uuidString.lowercased()
            _ = try pack.database.importRun(
                uuid: uuid, source: "test", startWall: nowWall.advanced(byNanoseconds: 1_000_000_000),
                points: ride.points, rrIntervals: [], events: [], laps: [], summary: ride.summary, now: nowWall,
                sport: .bike)
            let worker = Task { await pack.worker.run() }
            try await pack.waitUntilSynced()
            await pack.worker.stop()
            await worker.value

            let run = try #require(try pack.database.runs().first { $0.uuid == uuid })
            let counting = try #require(
                try pack.database.counted(run.id).map { try ControlJSON.decode(CountingReport.self, from: $0) })
            #expect(counting.countedIn.isEmpty)
            #expect(counting.notCounted.map(\.reasonCode) == ["sport_not_counted"], "\(counting)")
            #expect(try await store.progress(token, group: group.id).group.totalM == 0)

            let view = try await store.call(.get, "/v1/runs/\(uuid)", token: token)
            #expect(view.status == 200)
            #expect(try view.decode(RunView.self).sport == "bike")
            let details = try await store.call(.get, "/v1/runs/\(uuid)/details", token: token)
            #expect(details.status == 200)
            let series = try details.decode(RunDetails.self).series
            let cadence = (series.cadenceRpm ?? []).compactMap { $0 }
            #expect(!cadence.isEmpty && cadence.allSatisfy { (80...89).contains($0) }, "rpm, not doubled: \(cadence)")
            #expect(series.cadenceSpm.allSatisfy { $0 == nil }, "a ride's cadence is never given as steps")
        }
    }
}
