import ActivityFormats
import Dispatch
import Foundation
import HandoffModel
import Logging
import PackStorage
import PackSync
import PackSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// handoff-bench sync prepare DB N | run DB LINKFILE | bytes
///
///   prepare  makes a pack journal DB with N finished 30-minute runs (1 Hz GPS, heart rate with RR,
///            cadence) queued for upload: not measured;
///   run      syncs DB's outbox to the store LINKFILE names (a `store-link.json`) with the pack's
///            sync worker, home assumed, until every run is acknowledged: what callgrind counts;
///   bytes    prints the size of one hour of that run as FIT, as the upload's whole request body,
///            and as GPX.
enum SyncBench {
    static func run(_ arguments: [String]) throws {
        switch arguments.first {
        case "prepare" where arguments.count == 3:
            try prepare(path: arguments[1], count: Int(arguments[2]) ?? 0)
        case "run" where arguments.count == 3:
            try sync(path: arguments[1], link: arguments[2])
        case "bytes":
            bytes()
        default:
            FileHandle.standardError.write(
                Data("usage: handoff-bench sync prepare DB N | run DB LINKFILE | bytes\n".utf8))
            exit(64)
        }
    }

    static func prepare(path: String, count: Int) throws {
        let database = try PackDatabase(path: path)
        let now = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970.rounded(.down))
        for i in 0..<count {
            let start = now.advanced(byNanoseconds: -Int64(count - i) * 3600 * nanosecondsPerSecond)
            let activity = ActivityBench.marathon(seconds: 1800, start: start)
            _ = try database.importRun(
                uuid: UUID().uuidString.lowercased(), source: "bench", startWall: start, points: activity.points,
                rrIntervals: activity.rrIntervals, events: activity.events, laps: activity.laps,
                summary: activity.summary, now: now)
        }
        try database.checkpoint()
        print("\(count) runs queued in \(path)")
    }

    static func sync(path: String, link: String) throws {
        let database = try PackDatabase(path: path)
        var configuration = SyncConfiguration(
            linkPath: link, policy: HomePolicy(ssids: [], source: .always), deviceName: "bench")
        configuration.backoff = Backoff(minimumSeconds: 0.1, maximumSeconds: 1)
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let worker = SyncWorker(database: database, configuration: configuration, logger: logger)
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<SyncStatusSummary?>(nil)
        Task.detached {
            let running = Task { await worker.run() }
            while ((try? database.outboxTotals().waiting) ?? 1) > 0 {
                try? await Task.sleep(for: .milliseconds(20))
            }
            let status = await worker.status()
            await worker.stop()
            await running.value
            result.withLock { $0 = SyncStatusSummary(uploaded: status.activity.uploaded, synced: status.outbox.synced) }
            done.signal()
        }
        done.wait()
        let summary = result.withLock { $0! }
        print("uploaded \(summary.uploaded), \(summary.synced) synced in all")
    }

    struct SyncStatusSummary: Sendable {
        let uploaded: Int
        let synced: Int
    }

    static func bytes() {
        let activity = ActivityBench.marathon(seconds: 3600)
        let fit = ActivityFormat.fit.write(activity)
        let gpx = ActivityFormat.gpx.write(activity)
        let summary = Data(
            #"{"clock_source":"system","distance_m":12345.6,"elapsed_s":3600,"pack":"handoff 0.1.0","recovered":false,"run":1,"source":"live"}"#
                .utf8)
        let body = StoreClient.uploadBody(
            boundary: "handoff-" + UUID().uuidString.lowercased(), file: fit, fileName: UUID().uuidString + ".fit",
            summary: summary)
        print("fit \(fit.count) upload_body \(body.count) gpx \(gpx.count)")
    }
}
