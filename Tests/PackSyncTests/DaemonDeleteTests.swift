import ActivityFormats
import Foundation
import HandoffAPI
import HandoffModel
import PackControl
import TestSupport
import Testing

/// Issue 29 with `handoffd` and `handoff` themselves, linked to a real store: where a run counted
/// (`show`, `sync status`), and `handoff delete` telling the store first. In DaemonSyncTests'
/// serialized suite: two tests spawning handoffd beside each other's fault proxies time out
/// (a spawned daemon inherits the other proxy's open connections, which then never close).
extension DaemonSyncTests {
    /// A FIT file of a steady run starting at `start`.
    static func deleteTestFIT(start: WallInstant, seconds: Int) -> [UInt8] {
        var activity = TestPack.activity(seconds: seconds, speed: 3, origin: (48.2, 16.37))
        activity.start = start
        return ActivityFormat.fit.write(activity)
    }

    @Test(
        "show and sync status say where a synced run counted; delete removes it on the store too (the group total drops); with the store down delete refuses and keeps the run, unless --local-only"
    )
    func deleteTellsTheStore() async throws {
        try await LiveStore.run { store in
            let token = try await store.signUp("dora")
            let group = try await store.createGroup(token)
            let proxy = try FaultProxy(upstreamPort: store.port, seed: 29)
            proxy.setFaults(false)
            defer { proxy.stop() }
            let directory = try TemporaryDirectory("handoff-sync-delete")
            defer { directory.remove() }
            try """
            [gps]
            source = "none"
            [bluetooth]
            enabled = false
            [sync]
            network = "always"
            retry_min_s = 0.05
            retry_max_s = 0.5
            timeout_s = 30
            """.write(toFile: directory.path + "/handoff.toml", atomically: true, encoding: .utf8)
            let socket = directory.path + "/control.sock"
            let daemon = try Self.start(directory, [], log: "handoffd.log")
            defer {
                if daemon.isRunning { daemon.terminate() }
                daemon.waitUntilExit()
            }
            let client = ControlClient(socketPath: socket, timeoutSeconds: 10)
            _ = try await Self.until("handoffd") {
                try client.send(.status, expecting: StatusReport.self)
            }
            let link = try await runProcessAsync(
                Products.url("handoff"),
                ["link", "--store", proxy.url.absoluteString, "--no-wait", "--json", "--socket", socket])
            #expect(link.status == 0, "\(link.stderr)")
            let started = try ControlJSON.decode(LinkReport.self, from: link.stdout)
            try await store.approve(token, userCode: try #require(started.userCode))
            _ = try await Self.until("the link") {
                let report = try client.send(.linkStatus, expecting: LinkReport.self)
                return report.state == .linked ? report : nil
            }

            // Two runs from after dora made the group (the store takes starts up to 10 minutes ahead).
            var ids: [Int64] = []
            for (index, offset) in [5, 65].enumerated() {
                let path = directory.path + "/run\(index).fit"
                try Data(
                    Self.deleteTestFIT(
                        start: nowWall.advanced(byNanoseconds: Int64(offset) * 1_000_000_000), seconds: 300)
                )
                .write(to: URL(fileURLWithPath: path))
                let imported = try await runProcessAsync(
                    Products.url("handoff"), ["import", path, "--json", "--socket", socket])
                #expect(imported.status == 0, "\(imported.stderr)")
                ids.append(try ControlJSON.decode(RunReport.self, from: imported.stdout).id)
            }
            let status = try await Self.until("both runs to sync") {
                let status = try client.send(.syncStatus, expecting: SyncStatusReport.self)
                return status.outbox.synced == 2 && status.outbox.queued.isEmpty ? status : nil
            }
            #expect(
                !status.activity.recent.isEmpty && status.activity.recent.allSatisfy { $0.countedIn == ["Relay club"] })

            let shown = try await runProcessAsync(
                Products.url("handoff"), ["show", String(ids[0]), "--socket", socket])
            #expect(shown.stdout.contains("counted in Relay club"), "\(shown.stdout)")
            let json = try await runProcessAsync(
                Products.url("handoff"), ["show", String(ids[0]), "--json", "--socket", socket])
            let report = try ControlJSON.decode(RunReport.self, from: json.stdout)
            #expect(report.detail.countedIn == ["Relay club"] && report.detail.notCounted == [])
            #expect(json.stdout.contains(#""counted_in":["Relay club"]"#) && json.stdout.contains(#""not_counted":[]"#))

            func total() async throws -> Double {
                (try? await store.progress(token, group: group.id))?.group.totalM ?? -1
            }
            let stored = try await store.runs(token)
            #expect(stored.count == 2)
            let before = try await total()
            #expect(abs(before - stored.values.reduce(0, +)) < 0.01)

            // Synced: deleted on the store first, then on the pack; its distance leaves the total.
            let deleted = try await runProcessAsync(
                Products.url("handoff"), ["delete", String(ids[0]), "--yes", "--json", "--socket", socket])
            #expect(deleted.status == 0, "\(deleted.stderr)")
            let answer = try ControlJSON.decode(DeleteReport.self, from: deleted.stdout)
            #expect(answer.deletedOnStore && answer.run == ids[0])
            let left = try await store.runs(token)
            #expect(left.count == 1 && left[answer.uuid] == nil)
            #expect(abs(try await total() - (left.values.first ?? 0)) < 0.01)

            // The store cannot be reached: nothing is deleted, and the sentence says what to do.
            proxy.stop()
            let refused = try await runProcessAsync(
                Products.url("handoff"), ["delete", String(ids[1]), "--yes", "--socket", socket])
            #expect(refused.status != 0)
            #expect(
                refused.stderr.contains("nothing was deleted") && refused.stderr.contains("--local-only"),
                "\(refused.stderr)")
            let runs = try await runProcessAsync(Products.url("handoff"), ["runs", "--json", "--socket", socket])
            #expect(try ControlJSON.decode([RunReport].self, from: runs.stdout).map(\.id) == [ids[1]])

            let local = try await runProcessAsync(
                Products.url("handoff"), ["delete", String(ids[1]), "--yes", "--local-only", "--socket", socket])
            #expect(local.status == 0 && local.stdout.contains("on the pack only"), "\(local.stderr)")
            let none = try await runProcessAsync(Products.url("handoff"), ["runs", "--json", "--socket", socket])
            #expect(try ControlJSON.decode([RunReport].self, from: none.stdout).isEmpty)
            #expect(try await store.runs(token).count == 1, "--local-only leaves the store's copy")
        }
    }
}
