import ActivityFormats
import Crypto
import Foundation
import HandoffModel
import Logging
import PackControl
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

    var link: StoreLink?
    var client: StoreClient?
    var network: WirelessState
    /// The store refused the link (401): nothing is tried until `handoff link`.
    var unlinkedByStore: String?
    /// Consecutive transient failures talking to the store, and when to look again.
    var storeFailures = 0
    var storeRetryAt: WallInstant?
    var lastAttempt: WallInstant?
    var lastError: String?
    var current: SyncProgressReport?
    var checking = false
    var stopping = false
    /// One pass away from home, when a person asked for it.
    var anywhereOnce = false
    var anywhereThisPass = false
    var uploaded = 0
    var alreadyStored = 0
    var passes = 0
    var inPass = false
    var linking: LinkFlow?
    /// handoff.toml's home networks, and those added from the CLI (`configuration.policy.ssids`
    /// holds both).
    let configuredSSIDs: [String]
    var addedSSIDs: [String] = []
    /// Looks a person asked for: the latest number given out, the one the next look answers,
    /// what the look under way has done, and what the latest one did.
    var requests = 0
    var pendingRequest: Int?
    var requestResult: SyncRequestReport?
    var lastRequest: SyncRequestReport?
    /// The runs uploaded in the latest pass that uploaded any, and that pass's number.
    var recent: [UploadedRunReport] = []
    var recentPass = -1

    public init(
        database: PackDatabase, configuration: SyncConfiguration, logger: Logger,
        now: @escaping @Sendable () -> WallInstant = { WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970) }
    ) {
        self.database = database
        self.configuration = configuration
        self.logger = logger
        self.now = now
        configuredSSIDs = configuration.policy.ssids
        network =
            configuration.policy.source == .always
            ? WirelessState(associated: true, detail: "always home")
            : WirelessState(associated: false, detail: "not read yet")
        do {
            link = try StoreLink.load(path: configuration.linkPath)
        } catch {
            logger.error("\(error.message)")
        }
        client = link.flatMap { Self.client(for: $0, timeout: configuration.timeoutSeconds) }
        do {
            addedSSIDs = try AddedHomeNetworks.load(path: configuration.homeNetworksPath)
        } catch {
            logger.error("\(error.message)")
        }
        var seen = Set<String>()
        self.configuration.policy.ssids = (configuredSSIDs + addedSSIDs).filter { seen.insert($0).inserted }
    }

    static func client(for link: StoreLink, timeout: Double) -> StoreClient? {
        guard let url = try? StoreClient.url(link.store) else { return nil }
        return StoreClient(base: url, token: link.token, timeoutSeconds: timeout)
    }

    // MARK: Inputs

    /// The Wi-Fi changed (from the network monitor's thread).
    public func networkChanged(_ state: WirelessState) {
        let wasHome = configuration.policy.allowsUpload(network)
        network = state
        let home = configuration.policy.allowsUpload(state)
        if home != wasHome {
            logger.info("Network: \(configuration.policy.describe(state))", metadata: ["detail": "\(state.detail)"])
            if home {
                // Back home: whatever failed while away (or before) is worth trying at once.
                storeFailures = 0
                storeRetryAt = nil
            }
        }
        wakeup.poke()
    }

    /// A person asked to sync: the worker looks at once. With `now`, that look ignores retry
    /// times and tries runs the store refused again, and its outcome is kept for the person
    /// (returned: the number `lastRequest` will carry); with `anywhere`, it may upload away from
    /// home. The automatic looks keep their backoff.
    @discardableResult
    public func requestSync(now: Bool, anywhere: Bool) -> Int? {
        var number: Int?
        if now {
            requests += 1
            pendingRequest = requests
            number = requests
        }
        if anywhere { anywhereOnce = true }
        wakeup.poke()
        return number
    }

    public func stop() {
        stopping = true
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
        while !stopping && !Task.isCancelled {
            inPass = true
            await pass()
            inPass = false
            passes += 1
            if stopping || Task.isCancelled { break }
            await wakeup.wait(seconds: secondsUntilNextLook())
        }
    }

    /// How long to sleep: until the next retry falls due, or until poked when nothing can happen.
    func secondsUntilNextLook() -> Double? {
        guard client != nil, unlinkedByStore == nil, mayUpload else { return nil }
        var due = (try? database.outboxNextAttempt()) ?? nil
        guard due != nil else {
            return configuration.pruneRawAfterSeconds == nil ? nil : 6 * 3600
        }
        if let storeRetryAt, storeRetryAt > due! { due = storeRetryAt }
        return max(0.05, due!.secondsSinceEpoch - now().secondsSinceEpoch)
    }

    var mayUpload: Bool { anywhereOnce || anywhereThisPass || configuration.policy.allowsUpload(network) }

    /// One look at the outbox: uploads what is due, if it may.
    func pass() async {
        anywhereThisPass = anywhereOnce
        anywhereOnce = false
        let asked = pendingRequest
        pendingRequest = nil
        requestResult = asked.map(SyncRequestReport.init(request:))
        defer {
            anywhereThisPass = false
            if let requestResult { lastRequest = requestResult }
            requestResult = nil
        }
        guard let client, unlinkedByStore == nil, mayUpload else {
            if link == nil {
                requestResult?.problem = SyncFailureReport(
                    run: nil, uuid: nil, kind: .notLinked, code: "not_linked",
                    message: "this pack is not linked to a store: `handoff link --store URL`")
            } else if let unlinkedByStore {
                requestResult?.problem = SyncFailureReport(
                    run: nil, uuid: nil, kind: .unlinked, code: "unauthorized", message: unlinkedByStore)
            }
            return
        }
        let start = now()
        if asked != nil {
            // A person asked: runs the store refused get another try, and no retry time waits.
            do { try database.releaseOutbox() } catch {
                logger.error("Could not release the outbox: \(error)")
            }
            storeFailures = 0
            storeRetryAt = nil
        }
        if let storeRetryAt, storeRetryAt > start { return }
        let due: [OutboxEntry]
        do { due = try database.outboxDue(now: start) } catch {
            logger.error("Could not read the outbox: \(error)")
            requestResult?.problem = SyncFailureReport(
                run: nil, uuid: nil, kind: .pack, code: "storage", message: "could not read the outbox: \(error)")
            return
        }
        guard !due.isEmpty else {
            prune()
            return
        }
        // Home means the store answers too: one cheap request before any upload.
        checking = true
        do {
            _ = try await client.health()
            checking = false
        } catch {
            checking = false
            storeFailed(error)
            if asked != nil {
                // The person who asked reads it per run, now and in `sync status`: each waiting
                // run, and why it did not go.
                requestResult?.failed = due.map { Self.failureReport(error, entry: $0) }
                for entry in due {
                    do {
                        try database.recordOutboxFailure(
                            entry.session, at: start, code: error.code, message: error.message, status: nil,
                            nextAttempt: storeRetryAt, held: false)
                    } catch {
                        logger.error("Could not note the failed upload in the journal: \(error)")
                    }
                }
            }
            return
        }
        for (index, entry) in due.enumerated() {
            if stopping || Task.isCancelled { break }
            guard await upload(entry, index: index + 1, of: due.count, client: client) else {
                requestResult?.notTried = due.dropFirst(index + 1).map(\.session.rawValue)
                break
            }
        }
        current = nil
    }

    /// A failure as the person who asked reads it.
    static func failureReport(_ failure: SyncFailure, entry: OutboxEntry?) -> SyncFailureReport {
        let kind: SyncFailureKind
        switch (failure.action, failure.code) {
        case (.unlinked, _): kind = .unlinked
        case (.needsPerson, "payload"), (.needsPerson, "not_finished"): kind = .pack
        case (.needsPerson, _): kind = .refused
        case (.retry, "server_error"), (.retry, "bad_reply"): kind = .storeFailed
        case (.retry, "network"), (.retry, "timeout"), (.retry, "tls"), (.retry, "cancelled"): kind = .unreachable
        case (.retry, _): kind = .busy
        }
        return SyncFailureReport(
            run: entry?.session.rawValue, uuid: entry?.uuid, kind: kind, code: failure.code, message: failure.what)
    }

    /// Uploads one run; returns whether to go on with the next.
    func upload(_ entry: OutboxEntry, index: Int, of total: Int, client: StoreClient) async -> Bool {
        let payload: (bytes: [UInt8], sha256: String)
        let summary: Data
        do {
            payload = try database.outboxPayload(entry.session) { try makePayload(entry.session) }
            summary = try uploadSummary(entry.session)
        } catch {
            logger.error("Could not make the upload for run \(entry.session): \(error)")
            let failure = SyncFailure(
                .needsPerson, code: "payload",
                message: "the run could not be read from the journal for upload: \(error)")
            requestResult?.failed.append(Self.failureReport(failure, entry: entry))
            record(entry, failure)
            return true
        }
        current = SyncProgressReport(
            run: entry.session.rawValue, uuid: entry.uuid, index: index, of: total, bytes: payload.bytes.count)
        let attempt = now()
        lastAttempt = attempt
        let ack: StoreClient.Acknowledgement
        do {
            ack = try await client.uploadRun(
                uuid: entry.uuid, file: payload.bytes, sha256: payload.sha256, fileName: "\(entry.uuid).fit",
                summary: summary)
        } catch {
            // Stopping (SIGTERM) is not the store's fault: the run simply waits for the next start.
            if error.code == "cancelled" || Task.isCancelled { return false }
            requestResult?.failed.append(Self.failureReport(error, entry: entry))
            record(entry, error)
            return error.action == .needsPerson
        }
        let counted = ack.counting.flatMap { try? ControlJSON.encode($0) }
        do {
            try database.markSynced(entry.session, at: now(), status: ack.status, counted: counted)
        } catch {
            // The store has it; the next attempt gets a 200 for the same bytes and marks it then.
            logger.error("The store acknowledged run \(entry.session) but the journal refused the mark: \(error)")
            return false
        }
        uploaded += 1
        if ack.status == 200 { alreadyStored += 1 }
        if ack.status == 200 {
            requestResult?.alreadyStored.append(entry.session.rawValue)
        } else {
            requestResult?.uploaded.append(entry.session.rawValue)
        }
        noteUploaded(entry, ack)
        storeFailures = 0
        lastError = nil
        logger.info(
            "Run \(entry.session) synced (\(ack.status == 201 ? "stored" : "the store had it already"))",
            metadata: ["session.uuid": "\(entry.uuid)", "bytes": "\(payload.bytes.count)"])
        return true
    }

    /// Notes a failure on the run and decides what comes next.
    func record(_ entry: OutboxEntry, _ failure: SyncFailure) {
        lastError = failure.message
        var next: WallInstant?
        switch failure.action {
        case .retry:
            storeFailed(failure)
            next = storeRetryAt
        case .needsPerson:
            logger.error(
                "The store refused run \(entry.session): \(failure.message)",
                metadata: ["session.uuid": "\(entry.uuid)", "code": "\(failure.code)"])
        case .unlinked:
            unlinkedByStore = failure.message
            logger.error("\(failure.message)")
        }
        do {
            try database.recordOutboxFailure(
                entry.session, at: now(), code: failure.code, message: failure.message, status: nil,
                nextAttempt: next, held: failure.action == .needsPerson)
        } catch {
            logger.error("Could not note the failed upload in the journal: \(error)")
        }
    }

    /// The store did not answer, or failed: back off before the next look.
    func storeFailed(_ failure: SyncFailure) {
        storeFailures += 1
        lastError = failure.message
        let delay = configuration.backoff.delay(afterFailures: storeFailures, retryAfter: failure.retryAfter)
        storeRetryAt = now().advanced(byNanoseconds: Int64(delay * 1e9))
        if storeFailures == 1 || storeFailures % 10 == 0 {
            logger.warning(
                "Sync: \(failure.message)",
                metadata: ["failures": "\(storeFailures)", "retry_in_s": "\(Int(delay.rounded()))"])
        }
    }

    func prune() {
        guard let after = configuration.pruneRawAfterSeconds else { return }
        let current = now()
        do {
            let pruned = try database.pruneRawData(
                syncedBefore: current.advanced(byNanoseconds: -Int64(after * 1e9)), now: current)
            if pruned > 0 { logger.info("Pruned the raw data of \(pruned) synced run(s)") }
        } catch {
            logger.warning("Could not prune synced runs' raw data: \(error)")
        }
    }

    // MARK: The file

    /// The run as FIT, without what lies in a privacy zone.
    func makePayload(_ session: SessionID) throws -> (bytes: [UInt8], sha256: String) {
        let activity = try Self.activity(session, database: database)
        let filtered = PrivacyFilter(zones: configuration.zones).apply(activity)
        if filtered.removedPoints > 0 {
            logger.info(
                "Run \(session): \(filtered.removedPoints) point(s) in privacy zones stay on the pack",
                metadata: ["zones": "\(filtered.zonesTouched.joined(separator: ", "))"])
        }
        let bytes = ActivityFormat.fit.write(filtered.activity)
        return (bytes, Self.sha256(bytes))
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// A finished run, as the writers take it.
    public static func activity(_ session: SessionID, database: PackDatabase) throws -> Activity {
        guard let record = try database.run(session), let summary = record.summary else {
            throw SyncFailure(.needsPerson, code: "not_finished", message: "run \(session) is not finished")
        }
        return Activity(
            start: record.startWall, points: try database.points(of: session), events: try database.events(of: session),
            laps: try database.laps(of: session), rrIntervals: try database.rrIntervals(of: session), summary: summary)
    }

    // MARK: Status

    /// Checking the store or uploading now: the LED's "syncing" (asked twice a second, so it
    /// reads no journal, unlike `status()`).
    public var isTalkingToStore: Bool { current != nil || checking }

    public func status() -> SyncStatusReport {
        let policy = configuration.policy
        let home = policy.allowsUpload(network)
        let waiting = (try? database.outboxWaiting()) ?? []
        let totals = try? database.outboxTotals()
        let state: SyncState
        let message: String
        if link == nil {
            state = .notLinked
            message = "this pack is not linked to a store: `handoff link --store URL`"
        } else if let unlinkedByStore {
            state = .unlinkedByStore
            message = unlinkedByStore
        } else if let current {
            state = .uploading
            message = "uploading run \(current.run) (\(current.index) of \(current.of))"
        } else if checking {
            state = .checking
            message = "asking the store whether it answers"
        } else if waiting.isEmpty {
            state = .idle
            message = "every finished run is on the store"
        } else if !mayUpload {
            state = .away
            message =
                "\(Format.count(waiting.count, "run")) waiting until the pack is home: \(policy.describe(network))"
        } else if waiting.allSatisfy(\.held) {
            state = .held
            message =
                "\(Format.count(waiting.count, "run")) refused by the store waiting for you: see last_error, then `handoff sync`"
        } else {
            state = .waiting
            message = "\(Format.count(waiting.count, "run")) waiting for the next attempt"
        }
        var report = SyncStatusReport(
            state: state, message: message, linked: link != nil, home: home, network: policy.describe(network),
            networkDetail: network.detail)
        report.store = link?.store
        report.username = link?.username
        report.current = current
        report.queued = waiting.map { entry in
            var run = QueuedRunReport(
                run: entry.session.rawValue, uuid: entry.uuid, startTime: CivilTime(entry.startWall).iso8601(),
                distanceM: (entry.distanceMeters * 10).rounded() / 10, attempts: entry.attempts, held: entry.held)
            run.lastAttemptAt = entry.lastAttempt.map { CivilTime($0).iso8601() }
            run.lastError = entry.lastError
            run.errorCode = entry.errorCode
            run.nextRetryAt =
                entry.held
                ? nil : [entry.nextAttempt, storeRetryAt].compactMap { $0 }.max().map { CivilTime($0).iso8601() }
            run.bytes = entry.payloadBytes
            return run
        }
        report.synced = totals?.synced ?? 0
        report.lastSyncedAt = totals?.lastSynced.map { CivilTime($0).iso8601() }
        report.lastAttemptAt = lastAttempt.map { CivilTime($0).iso8601() }
        report.lastError = lastError
        report.nextAttemptAt = storeRetryAt.map { CivilTime($0).iso8601() }
        report.uploaded = uploaded
        report.alreadyStored = alreadyStored
        report.passes = passes
        report.looking = inPass
        report.homeNetworks = policy.ssids
        report.wifi = network.associated ? network.ssid : nil
        report.uploadsByItself = uploadsByItself
        report.advice = link == nil ? nil : homeAdvice
        report.lastRequest = lastRequest
        report.recent = recent
        return report
    }
}
