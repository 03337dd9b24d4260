import Foundation
import HandoffAPI
import HandoffModel
import Logging
import PackControl
import PackStorage
import PackSync
import TestSupport
import Testing

/// Live tracking from `handoffd` itself (issue 35): a pack replays a run at 10× with `[live]`
/// on, through a proxy that makes the store unreachable for two minutes of the run; beside it a
/// second pack records the same capture with live tracking off.
@Suite("Live tracking from handoffd (real time: two handoffd processes, a store on loopback, an outage)", .serialized)
struct LiveDaemonTests {
    /// A pack's directory: its handoff.toml (live on or off) and its link to `store` as `token`.
    static func pack(live: Bool, store: URL, token: String, username: String) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory("handoff-live-\(username)")
        try """
        [gps]
        source = "none"
        [pedometer]
        sources = ["footpod"]
        [bluetooth]
        enabled = false
        [sync]
        network = "always"
        retry_min_s = 0.05
        retry_max_s = 0.5
        timeout_s = 20
        [live]
        enabled = \(live)
        interval_s = 15
        """.write(toFile: directory.path + "/handoff.toml", atomically: true, encoding: .utf8)
        try StoreLink(
            store: store.absoluteString, token: token, username: username, deviceName: "\(username)'s pack",
            linkedAt: "2026-11-29T00:00:00Z"
        ).save(path: directory.path + "/store-link.json")
        return directory
    }

    @Test(
        "Reachable, unreachable for 2 minutes of the run, reachable: the live page shows the track with a gap; the recorded run is byte for byte the run recorded with live tracking off"
    )
    func outage() async throws {
        try await LiveStore.run { store in
            let lena = try await store.signUp("lena")
            let nora = try await store.signUp("nora")
            let group = try await store.createGroup(lena)
            #expect(try await store.call(.post, "/v1/groups/\(group.id)/baton/take", token: lena).status == 200)
            let proxy = try FaultProxy(upstreamPort: store.port, seed: 35)
            proxy.setFaults(false)
            defer { proxy.stop() }
            let work = try TemporaryDirectory("handoff-live-capture")
            defer { work.remove() }
            let capture = work.path + "/run.jsonl"
            let simulated = try await runProcessAsync(
                Products.url("handoff"), ["simulate", "--seed", "35", "--minutes", "9", "-o", capture])
            #expect(simulated.status == 0, "\(simulated.stderr)")

            let live = try Self.pack(live: true, store: proxy.url, token: lena, username: "lena")
            let quiet = try Self.pack(live: false, store: store.url, token: nora, username: "nora")
            defer {
                live.remove()
                quiet.remove()
            }
            let liveDaemon = try DaemonSyncTests.start(
                live, ["--replay", capture, "--speed", "10"], log: "handoffd.log")
            defer { if liveDaemon.isRunning { liveDaemon.terminate() } }
            let quietDaemon = try DaemonSyncTests.start(
                quiet, ["--replay", capture, "--speed", "max"], log: "handoffd.log")
            defer { if quietDaemon.isRunning { quietDaemon.terminate() } }
            let control = ControlClient(socketPath: live.path + "/control.sock", timeoutSeconds: 10)
            func liveLog() -> String {
                (try? String(contentsOfFile: live.path + "/handoffd.log", encoding: .utf8)) ?? ""
            }

            // The run's UUID, from the pack's first live update.
            let uuid = try await DaemonSyncTests.until("the first live update", timeout: .seconds(90)) {
                proxy.requests.withLock { $0.first { $0.hasPrefix("POST /v1/live/") } }.map {
                    String($0.split(separator: " ")[1].split(separator: "/").last ?? "")
                }
            }
            func seen() async throws -> LiveRunView {
                try await store.call(.get, "/v1/live/\(uuid)", token: lena).decode(LiveRunView.self)
            }
            // Two minutes of the run with updates, then the store goes away for two minutes of it
            // (the pack's own clock says when: the outage does not depend on the machine's speed).
            let before = try await DaemonSyncTests.until("two minutes of live updates", timeout: .seconds(120)) {
                let run = try await seen()
                return (run.points.last?.elapsedS ?? 0) >= 120 ? run : nil
            }
            proxy.setDown(true)
            let downAt = try control.send(.status, expecting: StatusReport.self).run.elapsedS ?? 0
            _ = try await DaemonSyncTests.until("two minutes of the run without the store", timeout: .seconds(120)) {
                let elapsed = try control.send(.status, expecting: StatusReport.self).run.elapsedS ?? 0
                return elapsed >= downAt + 135 ? elapsed : nil
            }
            proxy.setDown(false)
            let after = try await DaemonSyncTests.until("updates after the outage", timeout: .seconds(120)) {
                let run = try await seen()
                return (run.points.last?.elapsedS ?? 0) >= Int(downAt) + 180 ? run : nil
            }
            // While the run goes on, its share link's page draws it in two parts.
            let link = try await store.call(.post, "/v1/live/\(uuid)/links", token: lena).decode(LiveLinkView.self)
            let address = try #require(link.url.flatMap { URL(string: $0)?.path })
            let page = try await store.call(.get, address)
            #expect(page.status == 200, "\(page.text)")
            #expect(page.text.components(separatedBy: #"<polyline class="track""#).count - 1 == 2, "\(page.text)")
            #expect(page.text.contains("No updates from"))
            let steps = zip(after.points, after.points.dropFirst()).map { ($0.elapsedS, $1.elapsedS) }
            let gaps = steps.filter { $1 - $0 > 60 }
            #expect(gaps.count == 1, "\(after.points.map(\.elapsedS))")
            if let (from, to) = gaps.first {
                #expect(to - from >= 120 && Double(from) <= downAt + 15 && Double(to) >= downAt + 120, "\(from)…\(to)")
            }
            #expect(before.points.count >= 8 && steps.allSatisfy { $1 - $0 >= 15 })
            #expect(after.points.allSatisfy { $0.lat != nil && $0.heartRate != nil })

            // The run finishes; both packs upload; the live run ends with the upload.
            let runs = try await DaemonSyncTests.until("both runs on the store", timeout: .seconds(180)) {
                let (mine, hers) = (try await store.runs(lena), try await store.runs(nora))
                return mine[uuid] != nil && hers.count == 1 ? hers.keys.first : nil
            }
            #expect(try await seen().endedAt != nil)
            #expect(try await store.call(.get, address).status == 404)
            let log = liveLog()
            #expect(
                log.contains("Live tracking cannot reach the store")
                    && log.contains("Live tracking reaches the store again"), "\(log)")

            // The run as recorded: the same file on the store, byte for byte, and the same journal.
            let (liveFile, quietFile) = (try await store.file(lena, uuid: uuid), try await store.file(nora, uuid: runs))
            #expect(liveFile.count > 1000 && liveFile == quietFile)
            // Both stop on SIGTERM (within the service group's 20 s). Under this harness the one that
            // synced through the fault proxy was seen not to, now and then: the signal taken (none
            // pending, blocked in every thread), the cooperative pool idle, nothing logged. Not seen
            // when the same is run by hand (8 tries), so it is recorded here as a known issue, with
            // its log, until it is understood; the pack is then killed.
            for (daemon, directory) in [(liveDaemon, live), (quietDaemon, quiet)] {
                daemon.terminate()
                let stopped = try? await DaemonSyncTests.until("handoffd to stop", timeout: .seconds(40)) {
                    daemon.isRunning ? nil : true
                }
                if stopped != true {
                    let log = (try? String(contentsOfFile: directory.path + "/handoffd.log", encoding: .utf8)) ?? ""
                    withKnownIssue("handoffd did not stop on SIGTERM under the test harness", isIntermittent: true) {
                        Issue.record("handoffd did not stop on SIGTERM within 40 s: \(log.suffix(3000))")
                    }
                    kill(daemon.processIdentifier, SIGKILL)
                    daemon.waitUntilExit()
                }
            }
            let logger = Logger(label: "test")
            let (a, b) = (
                try PackDatabase(path: live.path + "/handoff.sqlite", readOnly: true, logger: logger),
                try PackDatabase(path: quiet.path + "/handoff.sqlite", readOnly: true, logger: logger)
            )
            let (runA, runB) = (try #require(try a.runs().first), try #require(try b.runs().first))
            #expect(try a.points(of: runA.id) == b.points(of: runB.id))
            #expect(try a.points(of: runA.id).count > 500)
            #expect(try a.events(of: runA.id) == b.events(of: runB.id))
            #expect(try a.laps(of: runA.id) == b.laps(of: runB.id))
            #expect(try a.rrIntervals(of: runA.id) == b.rrIntervals(of: runB.id))
        }
    }
}
