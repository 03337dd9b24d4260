import HandoffModel
import PackControl
import PackSync

// The sync worker's answers (module PackSync's own types) as the control API's replies: the one
// place that knows both. docs/control-api.md documents what these encode to.

extension SyncStatusReport {
    public init(_ status: SyncStatus) {
        let network = status.network
        let outbox = status.outbox
        self.init(
            state: SyncState(status.phase), message: status.message,
            link: LinkPart(linked: status.store != nil, store: status.store?.store, username: status.store?.username),
            network: NetworkPart(
                home: network.home, summary: network.description, detail: network.detail,
                homeNetworks: network.homeNetworks, wifi: network.wifi, uploadsByItself: network.uploadsByItself,
                advice: network.advice),
            outbox: OutboxPart(
                current: outbox.current.map(SyncProgressReport.init), queued: outbox.queued.map(QueuedRunReport.init),
                synced: outbox.synced, lastSyncedAt: outbox.lastSynced.map(iso8601)),
            contact: ContactPart(
                lastAttemptAt: status.contact.lastAttempt.map(iso8601), lastError: status.contact.lastError,
                nextAttemptAt: status.contact.nextAttempt.map(iso8601)),
            activity: ActivityPart(
                uploaded: status.activity.uploaded, alreadyStored: status.activity.alreadyStored,
                passes: status.activity.passes, looking: status.activity.looking,
                recent: status.activity.recent.map {
                    UploadedRunReport(run: $0.run, uuid: $0.uuid, status: $0.status, counting: $0.counting)
                }))
        lastRequest = status.lastRequest.map(SyncRequestReport.init)
    }
}

private func iso8601(_ instant: WallInstant) -> String { CivilTime(instant).iso8601() }

extension SyncState {
    public init(_ phase: SyncStatus.Phase) {
        self =
            switch phase {
            case .notLinked: .notLinked
            case .unlinkedByStore: .unlinkedByStore
            case .away: .away
            case .idle: .idle
            case .waiting: .waiting
            case .checking: .checking
            case .uploading: .uploading
            case .held: .held
            }
    }
}

extension SyncProgressReport {
    public init(_ progress: UploadProgress) {
        self.init(run: progress.run, uuid: progress.uuid, index: progress.index, of: progress.of, bytes: progress.bytes)
    }
}

extension QueuedRunReport {
    public init(_ queued: QueuedRun) {
        let entry = queued.entry
        self.init(
            run: entry.session.rawValue, uuid: entry.uuid, startTime: iso8601(entry.startWall),
            distanceM: (entry.distanceMeters * 10).rounded() / 10, attempts: entry.attempts, held: entry.held)
        lastAttemptAt = entry.lastAttempt.map(iso8601)
        lastError = entry.lastError
        errorCode = entry.errorCode
        nextRetryAt = queued.nextRetry.map(iso8601)
        bytes = entry.payloadBytes
    }
}

extension SyncRequestReport {
    public init(_ outcome: RequestOutcome) {
        self.init(request: outcome.request)
        uploaded = outcome.uploaded
        alreadyStored = outcome.alreadyStored
        failed = outcome.failed.map(SyncFailureReport.init)
        notTried = outcome.notTried
        problem = outcome.problem.map(SyncFailureReport.init)
    }
}

extension SyncFailureReport {
    public init(_ failure: UploadFailure) {
        let kind: SyncFailureKind =
            switch failure.kind {
            case .unreachable: .unreachable
            case .storeFailed: .storeFailed
            case .busy: .busy
            case .refused: .refused
            case .unlinked: .unlinked
            case .notLinked: .notLinked
            case .pack: .pack
            }
        self.init(run: failure.run, uuid: failure.uuid, kind: kind, code: failure.code, message: failure.message)
    }
}

extension LinkReport {
    public init(_ status: LinkStatus) {
        let state: StoreLinkState =
            switch status.phase {
            case .waiting: .waiting
            case .linked: .linked
            case .expired: .expired
            case .denied: .denied
            case .failed: .failed
            case .unlinked: .unlinked
            case .unlinkedByStore: .unlinkedByStore
            }
        self.init(state: state, message: status.message)
        store = status.store
        username = status.username
        userCode = status.code?.userCode
        verificationUri = status.code?.verificationURI
        verificationUriComplete = status.code?.verificationURIComplete
        expiresAt = status.code.map { iso8601($0.expires) }
    }
}

extension HomeReport {
    public init(_ status: HomeNetworksStatus) {
        let network = status.network
        self.init(
            homeNetworks: network.homeNetworks, configured: network.configured, wifi: network.wifi, home: network.home,
            uploadsByItself: network.uploadsByItself, message: status.message)
    }
}

extension BatonReport {
    public init(_ status: BatonStatus) {
        self.init(group: status.group, youHold: status.youHold, message: status.message)
        holder = status.holder
        since = status.since
        expiresAt = status.expiresAt
        legs = status.legs
    }
}

extension DoctorCheck {
    public init(_ check: SyncCheck) {
        let status: Status =
            switch check.level {
            case .ok: .ok
            case .warning: .warning
            case .problem: .problem
            }
        self.init(check.name, status, check.summary, action: check.action)
    }
}
