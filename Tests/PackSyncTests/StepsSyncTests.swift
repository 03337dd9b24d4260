import Foundation
import HandoffAPI
import HandoffModel
import PackStorage
import PackSync
import Testing

/// The steps a pack counted outside runs reach the store with the next sync (issue 34), after the
/// runs, and a count sent again replaces the one before: the store counts each step once.
@Suite("Steps outside runs sync (real time: the worker and a store on loopback)")
struct StepsSyncTests {
    static func waitUntilSent(_ pack: TestPack) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try !pack.database.stepDaysToUpload().isEmpty {
            guard ContinuousClock.now < deadline else {
                Issue.record("the steps were not sent in time")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test(
        "Each day's steps go with the sync after the run; a day that grew is sent again and replaces, not adds; the store counts them on the day"
    )
    func stepsSync() async throws {
        try await LiveStore.run { store in
            let token = try await store.signUp("ada")
            let pack = try TestPack("steps")
            try await pack.link(to: store, approvingWith: token)
            let today = String(CivilTime(nowWall).iso8601().prefix(10))
            let yesterday = String(
                CivilTime(nowWall.advanced(byNanoseconds: -86_400 * 1_000_000_000)).iso8601().prefix(10))
            try pack.database.addSteps([yesterday: 8_000, today: 4_210])
            // A run waiting too: the steps go after it, in the same pass.
            let run = TestPack.activity(seconds: 300, speed: 3, origin: (48.2, 16.37))
            _ = try pack.database.importRun(
                uuid: UUID().uuidString.lowercased(), source: "test",
                startWall: nowWall.advanced(byNanoseconds: -3_600_000_000_000),
                points: run.points, rrIntervals: [], events: [], laps: [], summary: run.summary, now: nowWall)
            let worker = Task { await pack.worker.run() }
            defer { worker.cancel() }
            try await pack.waitUntilSynced()
            try await Self.waitUntilSent(pack)
            var days = try await store.call(.get, "/v1/me/steps", token: token).decode(StepsView.self).days
            // The store's calendar is UTC for a new account, as `today` here.
            #expect(days.last?.date == today && days.last?.outsideRuns == 4_210, "\(days.suffix(2))")
            #expect(days.dropLast().last?.outsideRuns == 8_000)

            // The day grew by 100: the next sync sends 4,310, which replaces 4,210.
            try pack.database.addSteps([today: 100])
            _ = await pack.worker.requestSync(now: true, anywhere: false)
            try await Self.waitUntilSent(pack)
            days = try await store.call(.get, "/v1/me/steps", token: token).decode(StepsView.self).days
            #expect(days.last?.outsideRuns == 4_310 && days.dropLast().last?.outsideRuns == 8_000)
            #expect(try pack.database.stepDays().map(\.uploaded) == [8_000, 4_310])

            // Linked again (a new device token): the pack's id keeps its count of today one count.
            _ = await pack.worker.unlink()
            try await pack.link(to: store, approvingWith: token)
            // A day from a clock gone wrong is set aside, and does not hold back the others.
            try pack.database.addSteps([today: 90, "1970-01-01": 500])
            _ = await pack.worker.requestSync(now: true, anywhere: false)
            try await Self.waitUntilSent(pack)
            days = try await store.call(.get, "/v1/me/steps", token: token).decode(StepsView.self).days
            #expect(days.last?.outsideRuns == 4_400, "replaced by the same pack's count, not added to")
            await pack.worker.stop()
            await worker.value
        }
    }
}
