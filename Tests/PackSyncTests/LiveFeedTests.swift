import Foundation
import HandoffAPI
import HandoffModel
import Testing

@testable import PackSync

/// Live tracking's queue on the pack: what the recorder offers, what goes, what is dropped.
@Suite("Live tracking's queue and updates (pure)")
struct LiveFeedTests {
    static let run = LiveFeed.Run(
        uuid: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", startWall: WallInstant(secondsSinceEpoch: 1_795_000_000),
        sport: .run)

    static func point(_ t: Int, lat: Double? = 48.2, lon: Double? = 16.37) -> RecordPoint {
        RecordPoint(
            elapsedSeconds: t, latitude: lat, longitude: lon, speedMetersPerSecond: 3, distanceMeters: Double(t) * 3,
            heartRateBPM: 150)
    }

    static func feed(enabled: Bool, interval: Int = 15, limit: Int = 8) -> LiveFeed {
        var settings = LiveSettings()
        settings.enabled = enabled
        settings.intervalSeconds = interval
        settings.queueLimit = limit
        return LiveFeed(settings: settings)
    }

    @Test(
        "Every interval of the run one point is queued; a full queue drops its oldest; the end goes with the last points"
    )
    func queue() {
        let feed = Self.feed(enabled: true, limit: 3)
        feed.begin(Self.run)
        for t in 0...100 { feed.offer(Self.point(t), run: Self.run.uuid) }
        // 0, 15, …, 90 were due: 7 points; the queue kept the newest 3.
        var batch = feed.take()
        #expect(batch?.points.map(\.elapsedSeconds) == [60, 75, 90] && batch?.ended == false)
        #expect(feed.counts.dropped == 4 && feed.counts.live)
        #expect(feed.take() == nil)
        // Another run's points are not this one's.
        feed.offer(Self.point(105), run: "another")
        #expect(feed.take() == nil)
        feed.offer(Self.point(105), run: Self.run.uuid)
        feed.end(run: Self.run.uuid)
        batch = feed.take()
        #expect(batch?.points.map(\.elapsedSeconds) == [105] && batch?.ended == true && batch?.run == Self.run)
        #expect(feed.take() == nil && !feed.counts.live)
        // After its end nothing of the run is queued.
        feed.offer(Self.point(120), run: Self.run.uuid)
        #expect(feed.take() == nil)
    }

    @Test("Off by default, `--live` turns one run on; `--no-live` turns it off and empties the queue")
    func choosing() {
        let off = Self.feed(enabled: false)
        off.begin(Self.run)
        off.offer(Self.point(0), run: Self.run.uuid)
        #expect(off.take() == nil)
        off.set(live: true, run: Self.run.uuid)
        off.offer(Self.point(1), run: Self.run.uuid)
        #expect(off.take()?.points.map(\.elapsedSeconds) == [1])
        off.end(run: Self.run.uuid)
        #expect(off.take()?.ended == true)

        let on = Self.feed(enabled: true)
        on.begin(Self.run)
        on.offer(Self.point(0), run: Self.run.uuid)
        on.set(live: false, run: Self.run.uuid)
        #expect(on.take() == nil)
        // A run that was not live ends without telling the store.
        on.end(run: Self.run.uuid)
        #expect(on.take() == nil)
    }

    @Test("An update carries each point at its time on the run's clock; inside a privacy zone without its position")
    func update() throws {
        let home = PrivacyZone(name: "home", latitude: 48.2, longitude: 16.37, radiusMeters: 250)
        let batch = LiveFeed.Batch(
            run: Self.run,
            points: [Self.point(0), Self.point(15, lat: 48.21), Self.point(30, lat: nil, lon: nil)], ended: false)
        // The hand-written JSON, read back by Foundation's decoder as the store's `LiveUpdate`.
        let body = LiveSender.body(batch, zones: [home])
        let update = try JSONDecoder().decode(LiveUpdate.self, from: Data(body.utf8))
        #expect(
            body.hasPrefix(#"{"sport":"run","started_at":"2026-11-18T11:06:40Z","points":[{"elapsed_s":0,"#), "\(body)")
        #expect(update.startedAt == "2026-11-18T11:06:40Z" && update.sport == "run" && update.ended == nil)
        var ended = batch
        ended.ended = true
        #expect(
            try JSONDecoder().decode(LiveUpdate.self, from: Data(LiveSender.body(ended, zones: []).utf8)).ended == true)
        #expect(update.points.map(\.at) == ["2026-11-18T11:06:40Z", "2026-11-18T11:06:55Z", "2026-11-18T11:07:10Z"])
        #expect(update.points[0].lat == nil && update.points[0].lon == nil && update.points[0].distanceM == 0)
        #expect(update.points[1].lat == 48.21 && update.points[1].lon == 16.37 && update.points[1].heartRate == 150)
        #expect(update.points[2].lat == nil && update.points[2].distanceM == 90 && update.points[2].speedMps == 3)
    }
}
