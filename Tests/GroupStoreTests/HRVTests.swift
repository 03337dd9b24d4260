import ActivityFormats
import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import TestSupport
import Testing
import Training

@testable import GroupStore

/// Issue 34's `hrv` on `GET /v1/runs/{uuid}` and the run's page: a pack's run (the simulator's
/// strap sends RR intervals) carries it, worked out from the file the pack wrote; a file without
/// RR has none; whoever sees the run sees it, nobody else; a strap whose beats are mostly
/// artifacts is said to be so, with no numbers. (The numbers themselves are checked against
/// neurokit2 in TrainingTests.)
@Suite("Heart-rate variability in the store")
struct HRVTests {
    /// The pack's file with a missed beat in every 10 (two intervals sent as one): over 5 % of
    /// beats need correcting. (Artifacts much denser than that raise the detector's own
    /// thresholds, which are quartiles of the beats around: Lipponen & Tarvainen assume them sparse.)
    static func irregular(_ file: [UInt8]) throws -> [UInt8] {
        var activity = try ActivityFormat.fit.read(file)
        var count = 0
        for b in activity.rrIntervals.indices {
            var values: [UInt16] = []
            for value in activity.rrIntervals[b].intervals1024ths {
                count += 1
                if count % 10 == 0, let last = values.popLast() {
                    values.append(last + value)
                } else {
                    values.append(value)
                }
            }
            activity.rrIntervals[b].intervals1024ths = values
        }
        return ActivityFormat.fit.write(activity)
    }

    @Test(
        "A pack's run carries hrv as its file says; a file without RR has none; friends see it, strangers see no run",
        arguments: Backend.available)
    func api(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let eve = try await client.signUp("eve")
            _ = try await client.call(.post, "/v1/friends", token: ada, json: ["username": "bob"])
            _ = try await client.call(.post, "/v1/friends/ada/accept", token: bob)
            let start = harness.clock.now.advanced(byNanoseconds: -3 * 3_600 * nanosecondsPerSecond)
            let file = TogetherTests.packRun(seed: 7, start: start, minutes: 20)
            let activity = try ActivityFormat.fit.read(file)
            let expected = try #require(HeartRateVariability(batches: activity.rrIntervals, laps: activity.laps))
            let uuid = UUID().uuidString.lowercased()
            #expect(try await client.upload(ada, uuid: uuid, file: file).status == .created)

            let own = try await client.call(.get, "/v1/runs/\(uuid)", token: ada)
            let hrv = try #require(try own.decode(RunView.self).hrv, "\(own.text)")
            #expect(hrv.trusted && hrv.beats == expected.beats && hrv.beats > 1_500)
            #expect(
                hrv.rmssdMs == expected.rmssd && hrv.sdnnMs == expected.sdnn
                    && hrv.artifactShare == expected.artifactShare)
            #expect(hrv.dfaAlpha1.count == expected.alpha1.count && hrv.dfaAlpha1.count > 100)
            #expect(hrv.dfaAlpha1.allSatisfy { $0.count == 2 && (0.1...2).contains($0[1]) })
            #expect(hrv.aerobicThresholdBpm == expected.aerobicThreshold)
            // The pack's laps (auto-laps each kilometre) each get their own numbers.
            #expect(hrv.laps.count == activity.laps.count && hrv.laps.count >= 2)
            #expect(hrv.laps.map(\.rmssdMs) == expected.laps.map(\.rmssd) && hrv.laps.allSatisfy { $0.rmssdMs != nil })
            #expect(hrv.method.contains("Lipponen"))
            // Every field is written, null included, as openapi.json says.
            for key in ["\"rmssd_ms\"", "\"aerobic_threshold_bpm\"", "\"anaerobic_threshold_bpm\"", "\"dfa_alpha1\""] {
                #expect(own.text.contains(key))
            }

            let friend = try await client.call(.get, "/v1/runs/\(uuid)", token: bob)
            #expect(try friend.decode(RunView.self).hrv == hrv)
            #expect(try await client.call(.get, "/v1/runs/\(uuid)", token: eve).status == .notFound)

            let plain = UUID().uuidString.lowercased()
            let noRR = RunFiles.fit(start: start.advanced(byNanoseconds: 3_600 * nanosecondsPerSecond))
            #expect(try await client.upload(ada, uuid: plain, file: noRR).status == .created)
            let reply = try await client.call(.get, "/v1/runs/\(plain)", token: ada)
            #expect(reply.status == .ok && !reply.text.contains("\"hrv\""), "\(reply.text)")
        }
    }

    @Test(
        "The run's page: RMSSD, SDNN and the α1 chart with its levels; a strap over 5 % artifacts is said to be, without numbers",
        arguments: Backend.available)
    func page(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let cookie = try await client.webSignIn("ada").cookie
            let start = harness.clock.now.advanced(byNanoseconds: -3 * 3_600 * nanosecondsPerSecond)
            let file = TogetherTests.packRun(seed: 8, start: start, minutes: 20)
            let good = UUID().uuidString.lowercased()
            let bad = UUID().uuidString.lowercased()
            #expect(try await client.upload(ada, uuid: good, file: file).status == .created)
            let later = TogetherTests.packRun(
                seed: 9, start: start.advanced(byNanoseconds: 3_600 * nanosecondsPerSecond), minutes: 20)
            #expect(try await client.upload(ada, uuid: bad, file: try Self.irregular(later)).status == .created)

            let page = try await client.call(.get, "/runs/\(good)", headers: [.cookie: cookie]).text
            #expect(page.contains(">RMSSD<") && page.contains(">SDNN<") && page.contains(">Beats corrected<"))
            #expect(page.contains("id=\"chart-dfa-alpha1\""))
            #expect(page.contains("class=\"level\"") && page.contains("α1 0.75: aerobic threshold"))
            #expect(!page.contains("not shown"))

            let badPage = try await client.call(.get, "/runs/\(bad)", headers: [.cookie: cookie]).text
            #expect(
                badPage.contains(">not shown<") && badPage.contains("beats needed correcting, more than the 5 %"),
                "\(badPage)")
            #expect(!badPage.contains(">RMSSD<") && !badPage.contains("chart-dfa-alpha1"))
            let api = try await client.call(.get, "/v1/runs/\(bad)", token: ada).decode(RunView.self)
            let hrv = try #require(api.hrv)
            #expect(!hrv.trusted && hrv.artifactShare > 0.05 && hrv.rmssdMs == nil && hrv.dfaAlpha1.isEmpty)
        }
    }
}
