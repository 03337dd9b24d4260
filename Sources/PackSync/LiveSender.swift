import CLiveHTTP
import Foundation
import HandoffModel
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Sends what `LiveFeed` queues to the store (`POST /v1/live/{run}`), one update at a time, on
/// whatever network the pack has (a phone's hotspot too, not only home Wi-Fi), from a thread of
/// its own. Best effort: an update that fails is dropped, never retried, and the next goes when
/// its time comes; the store's live page then shows a gap. Points inside a privacy zone go
/// without their position.
///
/// It posts through one libcurl handle kept from one update to the next (its connection stays
/// open), with the JSON written by hand: a URLSession task, and Foundation's JSON coders, cost
/// about 900,000 instructions an update, +27 % on a recorded hour's (BENCHMARKS.md).
public final class LiveSender: Sendable {
    let feed: LiveFeed
    /// The link file: the store's address and the pack's token (read again when it changes).
    let linkPath: String
    let zones: [PrivacyZone]
    let logger: Logger
    let now: @Sendable () -> WallInstant
    private let stopping = Atomic<Bool>(false)

    /// Seconds one live update may take: a run's update is worth nothing a minute late.
    static let timeoutSeconds = 10

    public init(
        feed: LiveFeed, linkPath: String, zones: [PrivacyZone], logger: Logger,
        now: @escaping @Sendable () -> WallInstant = { WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970) }
    ) {
        self.feed = feed
        self.linkPath = linkPath
        self.zones = zones
        self.logger = logger
        self.now = now
    }

    /// Starts the sending thread; it ends after `stop()` (at most an update's time-out later).
    public func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "live-sender"
        thread.start()
    }

    public func stop() {
        stopping.store(true, ordering: .releasing)
        feed.ready.signal()
    }

    private func loop() {
        // No signal is delivered to this thread: SIGTERM is handled by the service group, and a
        // thread that let it in would have it ignored there, so handoffd would never stop.
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
        let connection = LiveConnection(linkPath: linkPath)
        var failing = false
        while !stopping.load(ordering: .acquiring) {
            feed.ready.wait()
            while !stopping.load(ordering: .acquiring), let batch = feed.take() {
                let outcome = connection.post(
                    run: batch.run.uuid, body: Self.body(batch, zones: zones), timeoutSeconds: Self.timeoutSeconds)
                switch outcome {
                case .success:
                    feed.noteSent(batch.points.count, at: now())
                    if failing {
                        logger.info(
                            "Live tracking reaches the store again", metadata: ["session.uuid": "\(batch.run.uuid)"])
                        failing = false
                    }
                case .failure(let failure):
                    feed.noteDropped(batch.points.count, because: failure.message)
                    if !failing {
                        logger.notice(
                            "Live tracking cannot reach the store; positions are dropped until it can (the run records as ever): \(failure.message)",
                            metadata: ["session.uuid": "\(batch.run.uuid)"])
                        failing = true
                    }
                }
            }
        }
    }

    /// The update for a batch, as `LiveUpdate`'s JSON: each point at its time on the run's clock;
    /// a point inside a privacy zone without its position.
    static func body(_ batch: LiveFeed.Batch, zones: [PrivacyZone]) -> String {
        var json = #"{"sport":""# + batch.run.sport.rawValue + #"","started_at":""#
        json += CivilTime(batch.run.startWall).iso8601() + #"","points":["#
        for (index, point) in batch.points.enumerated() {
            let at = batch.run.startWall.advanced(byNanoseconds: Int64(point.elapsedSeconds) * 1_000_000_000)
            json += (index == 0 ? "" : ",") + #"{"elapsed_s":"# + String(point.elapsedSeconds)
            json += #","at":""# + CivilTime(at).iso8601() + #"","distance_m":"# + number(point.distanceMeters)
            if let lat = point.latitude, let lon = point.longitude, lat.isFinite, lon.isFinite,
                !zones.contains(where: { $0.contains(latitude: lat, longitude: lon) })
            {
                json += #","lat":"# + number(lat) + #","lon":"# + number(lon)
            }
            if let speed = point.speedMetersPerSecond, speed.isFinite, speed >= 0 {
                json += #","speed_mps":"# + number(speed)
            }
            if let heartRate = point.heartRateBPM { json += #","heart_rate":"# + String(heartRate) }
            json += "}"
        }
        return json + "]" + (batch.ended ? #","ended":true}"# : "}")
    }

    /// A finite number as JSON writes it (Swift's shortest form is valid JSON: `48.2`, `1e-05`).
    static func number(_ value: Double) -> String { value.isFinite ? String(describing: value) : "0" }
}

/// The sending thread's own state: its libcurl handle, and the link as last read.
final class LiveConnection {
    struct Failure: Error {
        var message: String
    }

    let linkPath: String
    private let http: OpaquePointer?
    private var link: StoreLink?
    private var linkChanged: timespec?
    private let userAgent = "handoff/\(HandoffVersion.current)"

    init(linkPath: String) {
        self.linkPath = linkPath
        http = handoff_live_http_new()
    }

    deinit { handoff_live_http_free(http) }

    /// The link, read again only when its file changed (a `stat`, not a JSON decode, per update).
    private func currentLink() -> StoreLink? {
        var info = stat()
        guard stat(linkPath, &info) == 0 else {
            link = nil
            return nil
        }
        if let seen = linkChanged, seen.tv_sec == info.st_mtim.tv_sec, seen.tv_nsec == info.st_mtim.tv_nsec {
            return link
        }
        linkChanged = info.st_mtim
        link = try? StoreLink.load(path: linkPath)
        return link
    }

    func post(run uuid: String, body: String, timeoutSeconds: Int) -> Result<Void, Failure> {
        guard let http else { return .failure(Failure(message: "libcurl could not make a handle")) }
        guard let link = currentLink() else { return .failure(Failure(message: "the pack is not linked to a store")) }
        var store = link.store
        while store.hasSuffix("/") { store.removeLast() }
        let url = store + "/v1/live/" + uuid
        var status = 0
        var error = [CChar](repeating: 0, count: 256)
        let code = body.withCString { text in
            handoff_live_http_post(
                http, url, "Authorization: Bearer " + link.token, userAgent, text, strlen(text),
                timeoutSeconds * 1000, &status, &error, error.count)
        }
        guard code == 0 else {
            let words = error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return .failure(Failure(message: "the store at \(store) did not answer (\(words))"))
        }
        guard status == 200 else {
            return .failure(Failure(message: "the store at \(store) answered \(status) to a live update"))
        }
        return .success(())
    }
}
