import Foundation
import HandoffModel
import Logging
import PackStorage
import PackSystem

/// How the pack syncs: `[sync]` and `[privacy]` in handoff.toml.
public struct SyncConfiguration: Sendable {
    /// The link file (store address and device token), 0600.
    public var linkPath: String
    /// The home networks added from the CLI (default: `home-networks.json` beside the link file).
    public var homeNetworksPath: String
    public var policy: HomePolicy
    public var backoff = Backoff()
    public var zones: [PrivacyZone] = []
    public var timeoutSeconds = 60.0
    /// Raw data (RR intervals, the uploaded file) of runs synced this long ago may go; `nil` keeps it.
    public var pruneRawAfterSeconds: Double?
    /// The name the pack gives itself on the store.
    public var deviceName: String
    /// The group whose baton the pack carries (default: the account's only group).
    public var batonGroup: Int64?
    /// How long `handoff start` waits for the store to hand over the baton before it starts the
    /// run with an offline claim.
    public var batonTimeoutSeconds = 4.0

    public init(linkPath: String, policy: HomePolicy, deviceName: String) {
        self.linkPath = linkPath
        self.policy = policy
        self.deviceName = deviceName
        let directory = (linkPath as NSString).deletingLastPathComponent
        homeNetworksPath = (directory.isEmpty ? "." : directory) + "/home-networks.json"
    }
}

/// Uploads finished runs from the outbox to the group store, exactly once each.
///
/// It sleeps until something changes (a run finished, the Wi-Fi, a link, a person asking, a
/// retry falling due). Then, when the pack is home and linked and the store answers, it uploads
/// each due run as FIT under the run's UUID, and marks it synced only when the store's reply
/// names that run and the file's SHA-256. Network errors, timeouts and 5xx are retried with
/// backoff; a 4xx holds the run (or, for a revoked link, the whole outbox) until a person acts.
/// The outbox is in the journal, so all of this survives a restart or a power cut.
public actor SyncWorker {
    let database: PackDatabase
    var configuration: SyncConfiguration
    let logger: Logger
    let now: @Sendable () -> WallInstant
    public nonisolated let wakeup = Wakeup()

    var connection: StoreConnection
    var network: WirelessState
    var health = StoreHealth()
    var passes = Passes()
    var requests = SyncRequests()
    var homes: HomeNetworks
    var linking: LinkFlow?

    public init(
        database: PackDatabase, configuration: SyncConfiguration, logger: Logger,
        now: @escaping @Sendable () -> WallInstant = { WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970) }
    ) {
        self.database = database
        self.configuration = configuration
        self.logger = logger
        self.now = now
        network =
            configuration.policy.source == .always
            ? WirelessState(associated: true, detail: "always home")
            : WirelessState(associated: false, detail: "not read yet")
        var link: StoreLink?
        do {
            link = try StoreLink.load(path: configuration.linkPath)
        } catch {
            logger.error("\(error.message)")
        }
        connection = StoreConnection(link, timeoutSeconds: configuration.timeoutSeconds)
        homes = HomeNetworks(configured: configuration.policy.ssids)
        do {
            try homes.load(path: configuration.homeNetworksPath)
        } catch {
            logger.error("\(error.message)")
        }
        self.configuration.policy.ssids = homes.all
    }

    var link: StoreLink? { connection.link }
    var client: StoreClient? { connection.client }

    // MARK: Inputs

    /// The Wi-Fi changed (from the network monitor's thread).
    public func networkChanged(_ state: WirelessState) {
        let wasHome = configuration.policy.allowsUpload(network)
        network = state
        let home = configuration.policy.allowsUpload(state)
        if home != wasHome {
            logger.info("Network: \(configuration.policy.describe(state))", metadata: ["detail": "\(state.detail)"])
            // Back home: whatever failed while away (or before) is worth trying at once.
            if home { health.forgiveFailures() }
        }
        wakeup.poke()
    }

    /// A person asked to sync: the worker looks at once. With `now`, that look ignores retry
    /// times and tries runs the store refused again, and its outcome is kept for the person
    /// (returned: the number `lastRequest` will carry); with `anywhere`, it may upload away from
    /// home. The automatic looks keep their backoff.
    @discardableResult
    public func requestSync(now: Bool, anywhere: Bool) -> Int? {
        let number = now ? requests.ask() : nil
        if anywhere { passes.allowAnywhereOnce() }
        wakeup.poke()
        return number
    }

    public func stop() {
        passes.stopping = true
        linking?.task?.cancel()
        wakeup.poke()
    }

    // MARK: The loop

    public func run() async {
        logger.info(
            "Sync worker ready",
            metadata: [
                "store": "\(link?.store ?? "not linked")", "network": "\(configuration.policy.source.rawValue)",
                "home_ssids": "\(configuration.policy.ssids.joined(separator: ","))",
            ])
        while !passes.stopping && !Task.isCancelled {
            passes.begin()
            let asked = requests.begin()
            await pass(asked: asked)
            requests.end()
            passes.end()
            if passes.stopping || Task.isCancelled { break }
            await wakeup.wait(seconds: secondsUntilNextLook())
        }
    }

    /// How long to sleep: until the next retry falls due, or until poked when nothing can happen.
    func secondsUntilNextLook() -> Double? {
        guard client != nil, health.unlinkedByStore == nil, mayUpload else { return nil }
        guard var due = (try? database.outboxNextAttempt()) ?? nil else {
            // Steps outside runs waiting for the store: look again within the hour.
            if (try? database.stepsWaiting()) == true { return Self.stepsLookSeconds }
            return configuration.pruneRawAfterSeconds == nil ? nil : 6 * 3600
        }
        if let retryAt = health.contact.nextAttempt, retryAt > due { due = retryAt }
        return max(0.05, due.secondsSinceEpoch - now().secondsSinceEpoch)
    }

    var mayUpload: Bool { passes.anywhereAllowed || configuration.policy.allowsUpload(network) }

    // MARK: Status

    /// Checking the store or uploading now: the LED's "syncing" (asked twice a second, so it
    /// reads no journal, unlike `status()`).
    public var isTalkingToStore: Bool { passes.talkingToStore }

    /// The baton is this runner's, as the store last said: the LED's "baton yours".
    public var isBatonYours: Bool { passes.baton.yours }

    public func status() -> SyncStatus {
        let waiting = (try? database.outboxWaiting()) ?? []
        let totals = try? database.outboxTotals()
        let (phase, message) = phase(waiting: waiting)
        let retryAt = health.contact.nextAttempt
        let queued = waiting.map { entry in
            QueuedRun(entry: entry, nextRetry: entry.held ? nil : [entry.nextAttempt, retryAt].compactMap { $0 }.max())
        }
        var network = networkStatus
        if link == nil { network.advice = nil }
        return SyncStatus(
            phase: phase, message: message, store: connection.linked, network: network,
            outbox: OutboxStatus(
                current: passes.current, queued: queued, synced: totals?.synced ?? 0, lastSynced: totals?.lastSynced),
            contact: health.contact, activity: passes.activity, lastRequest: requests.last)
    }

    /// What the worker is doing, in a word and a sentence.
    func phase(waiting: [OutboxEntry]) -> (SyncStatus.Phase, String) {
        let runs = "\(waiting.count) run\(waiting.count == 1 ? "" : "s")"
        if link == nil { return (.notLinked, SyncWorker.notLinked) }
        if let reason = health.unlinkedByStore { return (.unlinkedByStore, reason) }
        if let current = passes.current {
            return (.uploading, "uploading run \(current.run) (\(current.index) of \(current.of))")
        }
        if passes.checking { return (.checking, "asking the store whether it answers") }
        if waiting.isEmpty { return (.idle, "every finished run is on the store") }
        if !mayUpload {
            return (.away, "\(runs) waiting until the pack is home: \(configuration.policy.describe(network))")
        }
        if waiting.allSatisfy(\.held) {
            return (.held, "\(runs) refused by the store waiting for you: see last_error, then `handoff sync`")
        }
        return (.waiting, "\(runs) waiting for the next attempt")
    }

    static let notLinked = "this pack is not linked to a store: `handoff link --store URL`"
}
