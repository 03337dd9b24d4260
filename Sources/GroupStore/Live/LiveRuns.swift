import Foundation
import HandoffAPI
import HandoffModel

/// A run as it happens (issue 35): the pack's live updates under the run's UUID (the one its
/// upload will carry), kept until a week after the store last heard of it.
struct LiveRun: Sendable, Equatable {
    var id: Int64
    var account: Int64
    var runner: String
    var uuid: String
    var sport: String
    var started: WallInstant
    /// The store's time of the latest update.
    var contact: WallInstant
    var ended: WallInstant?
    var pointCount: Int
    /// The runner's choices for new runs: who sees a run, and who its map.
    var audience: StoredRun.Audience

    /// A run not heard of for this long is over, whatever its pack last said (a pack that died).
    static let givenUpAfterSeconds: Int64 = 6 * 3600
    /// Once no update came for this long the pages say "last seen": two of the pack's usual
    /// 15-second updates missed, and a margin for a slow network.
    static let quietAfterSeconds: Int64 = 45
    /// Live runs are kept this long after their last update, then go with the runner's next one.
    static let keptSeconds: Int64 = 7 * 86_400
    /// The points one update may carry, and a run may gather (a day at one every 5 s is 17,280).
    static let pointsPerUpdate = 120
    static let pointsPerRun = 20_000
    /// A share link lasts at most this long.
    static let linkHours = 1...48

    /// Whether the run is over at `now`: ended by its pack or its upload, or given up.
    func isOver(at now: WallInstant) -> Bool {
        ended != nil
            || now.nanosecondsSinceEpoch - contact.nanosecondsSinceEpoch > Self.givenUpAfterSeconds * 1_000_000_000
    }

    /// Seconds since the store last heard of the run.
    func silentSeconds(at now: WallInstant) -> Int64 {
        max(0, (now.nanosecondsSinceEpoch - contact.nanosecondsSinceEpoch) / 1_000_000_000)
    }
}

/// One stored moment of a live run, in the store's integers: positions in 10⁻⁷ degrees,
/// distances in millimetres, speeds in mm/s.
struct LiveSample: Sendable, Equatable {
    var elapsed: Int
    var at: WallInstant
    var latE7: Int64?
    var lonE7: Int64?
    var distanceMM: Int64
    var speedMMPS: Int64?
    var heartRate: Int?

    var position: (latitude: Double, longitude: Double)? {
        guard let latE7, let lonE7 else { return nil }
        return (Double(latE7) / 1e7, Double(lonE7) / 1e7)
    }

    /// A point as the pack sent it, checked: every number finite and in its range.
    init(_ point: LivePoint) throws(StoreError) {
        func refuse(_ what: String) -> StoreError {
            StoreError(
                .unprocessableContent, "invalid_live",
                "point at \(point.elapsedS) s: \(what). Each point has elapsed_s (0 to a week), at (ISO 8601), distance_m (0 or more), and may have lat and lon (together), speed_mps and heart_rate"
            )
        }
        guard (0...(7 * 86_400)).contains(point.elapsedS) else { throw refuse("elapsed_s is out of range") }
        guard let at = WallInstant(iso8601: point.at) else { throw refuse("at is not an ISO 8601 time") }
        guard point.distanceM.isFinite, (0...10_000_000).contains(point.distanceM) else {
            throw refuse("distance_m is out of range")
        }
        switch (point.lat, point.lon) {
        case (nil, nil): break
        case (let lat?, let lon?):
            guard lat.isFinite, lon.isFinite, (-90...90).contains(lat), (-180...180).contains(lon) else {
                throw refuse("lat and lon are not a position")
            }
            latE7 = Int64((lat * 1e7).rounded())
            lonE7 = Int64((lon * 1e7).rounded())
        default: throw refuse("lat and lon come together or not at all")
        }
        if let speed = point.speedMps {
            guard speed.isFinite, (0...200).contains(speed) else { throw refuse("speed_mps is out of range") }
            speedMMPS = Int64((speed * 1000).rounded())
        }
        if let heartRate = point.heartRate {
            guard (20...255).contains(heartRate) else { throw refuse("heart_rate is out of range") }
            self.heartRate = heartRate
        }
        elapsed = point.elapsedS
        self.at = at
        distanceMM = Int64((point.distanceM * 1000).rounded())
    }

    init(
        elapsed: Int, at: WallInstant, latE7: Int64?, lonE7: Int64?, distanceMM: Int64, speedMMPS: Int64?,
        heartRate: Int?
    ) {
        self.elapsed = elapsed
        self.at = at
        self.latE7 = latE7
        self.lonE7 = lonE7
        self.distanceMM = distanceMM
        self.speedMMPS = speedMMPS
        self.heartRate = heartRate
    }

    func view(withPosition: Bool) -> LivePoint {
        LivePoint(
            elapsedS: elapsed, at: iso(at), lat: withPosition ? position?.latitude : nil,
            lon: withPosition ? position?.longitude : nil, distanceM: metres(distanceMM),
            speedMps: speedMMPS.map { Double($0) / 1000 }, heartRate: heartRate)
    }
}

/// What a viewer may see of a live run: everything (its runner), or the run without its first
/// metres, with or without positions (a group-mate by the runner's choices; a share link's holder).
struct LiveSight: Sendable, Equatable {
    var isRunner: Bool
    var mapShown: Bool

    static let runner = LiveSight(isRunner: true, mapShown: true)
    static let link = LiveSight(isRunner: false, mapShown: true)

    /// A group-mate's sight of the run, by the runner's choices for new runs; nil: nothing.
    static func groupMate(_ audience: StoredRun.Audience) -> LiveSight? {
        guard audience.run >= .groups else { return nil }
        return LiveSight(isRunner: false, mapShown: audience.map >= .groups)
    }

    /// The samples this viewer sees: others lose those within the first metres of the start, as a
    /// finished run's map hides its ends from them (privacy zones were applied on the pack).
    func samples(_ all: [LiveSample]) -> [LiveSample] {
        guard !isRunner else { return all }
        let hidden = Int64(RunFacts.hiddenEnds * 1000)
        return all.map { sample in
            var sample = sample
            if !mapShown || sample.distanceMM < hidden {
                sample.latE7 = nil
                sample.lonE7 = nil
            }
            return sample
        }
    }

    func view(_ run: LiveRun, _ samples: [LiveSample]) -> LiveRunView {
        let shown = self.samples(samples)
        return LiveRunView(
            run: run.uuid, runner: run.runner, sport: run.sport, startedAt: iso(run.started),
            lastSeenAt: iso(run.contact), endedAt: run.ended.map(iso), distanceM: metres(samples.last?.distanceMM ?? 0),
            mapShown: mapShown, points: shown.map { $0.view(withPosition: mapShown) })
    }
}

/// A live update, checked: at most `pointsPerUpdate` points, in order of their seconds.
struct LiveBatch: Sendable {
    var sport: String
    var started: WallInstant
    var samples: [LiveSample]
    var ended: Bool

    init(_ update: LiveUpdate) throws(StoreError) {
        guard update.points.count <= LiveRun.pointsPerUpdate else {
            throw StoreError(
                .contentTooLarge, "too_many_points",
                "an update carries at most \(LiveRun.pointsPerUpdate) points: send them more often, in smaller updates")
        }
        guard let started = WallInstant(iso8601: update.startedAt) else {
            throw StoreError(
                .unprocessableContent, "invalid_live", "started_at is the run's start as an ISO 8601 time")
        }
        let sport = update.sport ?? RunSport.run.rawValue
        guard RunSport(rawValue: sport) != nil else {
            throw StoreError(.unprocessableContent, "invalid_live", "sport is \(RunSport.names)")
        }
        var samples: [LiveSample] = []
        for point in update.points { samples.append(try LiveSample(point)) }
        self.sport = sport
        self.started = started
        self.samples = samples.sorted { $0.elapsed < $1.elapsed }
        ended = update.ended ?? false
    }
}
