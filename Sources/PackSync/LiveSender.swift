import Foundation
import HandoffAPI
import HandoffModel
import Logging

/// Sends what `LiveFeed` queues to the store (`POST /v1/live/{run}`), one update at a time, on
/// whatever network the pack has (a phone's hotspot too, not only home Wi-Fi). Best effort: an
/// update that fails is dropped, never retried, and the next goes when its time comes; the
/// store's live page then shows a gap. Points inside a privacy zone go without their position.
public actor LiveSender {
    let feed: LiveFeed
    let worker: SyncWorker
    let zones: [PrivacyZone]
    let logger: Logger
    let now: @Sendable () -> WallInstant
    /// The client for live updates: the link's, with a short time-out of its own.
    private var client: StoreClient?
    private var failing = false
    private var stopping = false

    public init(
        feed: LiveFeed, worker: SyncWorker, zones: [PrivacyZone], logger: Logger,
        now: @escaping @Sendable () -> WallInstant = { WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970) }
    ) {
        self.feed = feed
        self.worker = worker
        self.zones = zones
        self.logger = logger
        self.now = now
    }

    /// Waits for points and sends them, until `stop()`.
    public func run() async {
        while !stopping {
            await feed.wakeup.wait(seconds: nil)
            while !stopping, let batch = feed.take() { await send(batch) }
        }
    }

    public func stop() {
        stopping = true
        feed.wakeup.poke()
    }

    /// Seconds one live update may take: a run's update is worth nothing a minute late.
    static let timeoutSeconds = 10.0

    private func send(_ batch: LiveFeed.Batch) async {
        guard let linked = await worker.client else {
            feed.noteDropped(batch.points.count, because: "the pack is not linked to a store")
            return
        }
        if client?.base != linked.base || client?.token != linked.token {
            client = StoreClient(base: linked.base, token: linked.token, timeoutSeconds: Self.timeoutSeconds)
        }
        guard let client else { return }
        let update = Self.update(batch, zones: zones)
        do throws(SyncFailure) {
            _ = try await client.sendLive(uuid: batch.run.uuid, update: update)
            feed.noteSent(batch.points.count, at: now())
            if failing {
                logger.info("Live tracking reaches the store again", metadata: ["session.uuid": "\(batch.run.uuid)"])
                failing = false
            }
        } catch {
            feed.noteDropped(batch.points.count, because: error.message)
            if !failing {
                logger.notice(
                    "Live tracking cannot reach the store; positions are dropped until it can (the run records as ever): \(error.message)",
                    metadata: ["session.uuid": "\(batch.run.uuid)"])
                failing = true
            }
        }
    }

    /// The update for a batch: each point at its time on the run's clock; a point inside a
    /// privacy zone without its position.
    static func update(_ batch: LiveFeed.Batch, zones: [PrivacyZone]) -> LiveUpdate {
        let points = batch.points.map { point in
            var lat = point.latitude
            var lon = point.longitude
            if let la = lat, let lo = lon, zones.contains(where: { $0.contains(latitude: la, longitude: lo) }) {
                lat = nil
                lon = nil
            }
            if lat == nil || lon == nil { (lat, lon) = (nil, nil) }
            let at = batch.run.startWall.advanced(byNanoseconds: Int64(point.elapsedSeconds) * 1_000_000_000)
            return LivePoint(
                elapsedS: point.elapsedSeconds, at: CivilTime(at).iso8601(), lat: lat, lon: lon,
                distanceM: point.distanceMeters, speedMps: point.speedMetersPerSecond, heartRate: point.heartRateBPM)
        }
        return LiveUpdate(
            sport: batch.run.sport.rawValue, startedAt: CivilTime(batch.run.startWall).iso8601(), points: points,
            ended: batch.ended ? true : nil)
    }
}
