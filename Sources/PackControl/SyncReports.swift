/// What `link` and `link_status` return: where linking the pack to a store stands.
public struct LinkReport: Codable, Hashable, Sendable {
    /// `waiting` (for the code to be entered), `linked`, `expired`, `denied`, `failed`, `unlinked`,
    /// `unlinked_by_store`.
    public var state: StoreLinkState
    public var store: String?
    public var username: String?
    /// The code to enter, and where.
    public var userCode: String?
    public var verificationUri: String?
    public var verificationUriComplete: String?
    public var expiresAt: String?
    public var message: String

    public init(state: StoreLinkState, message: String) {
        self.state = state
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case state, store, username, message
        case userCode = "user_code", verificationUri = "verification_uri"
        case verificationUriComplete = "verification_uri_complete", expiresAt = "expires_at"
    }
}

/// A run waiting in the outbox, as `sync status` lists it.
public struct QueuedRunReport: Codable, Hashable, Sendable {
    public var run: Int64
    public var uuid: String
    public var startTime: String
    public var distanceM: Double
    public var attempts: Int
    public var lastAttemptAt: String?
    public var lastError: String?
    public var errorCode: String?
    /// When the worker tries again; absent when it will as soon as the pack is home, or when held.
    public var nextRetryAt: String?
    /// The store refused the run: `handoff sync --now` tries again once the cause is fixed.
    public var held: Bool
    public var bytes: Int?

    public init(run: Int64, uuid: String, startTime: String, distanceM: Double, attempts: Int, held: Bool) {
        self.run = run
        self.uuid = uuid
        self.startTime = startTime
        self.distanceM = distanceM
        self.attempts = attempts
        self.held = held
    }

    enum CodingKeys: String, CodingKey {
        case run, uuid, attempts, held, bytes
        case startTime = "start_time", distanceM = "distance_m", lastAttemptAt = "last_attempt_at"
        case lastError = "last_error", errorCode = "error_code", nextRetryAt = "next_retry_at"
    }
}

/// The upload in progress.
public struct SyncProgressReport: Codable, Hashable, Sendable {
    public var run: Int64
    public var uuid: String
    /// This run is the `index`-th of `of` due in this pass (1-based).
    public var index: Int
    public var of: Int
    public var bytes: Int?

    public init(run: Int64, uuid: String, index: Int, of: Int, bytes: Int?) {
        self.run = run
        self.uuid = uuid
        self.index = index
        self.of = of
        self.bytes = bytes
    }
}

/// Why a run (or, without `run`, the whole attempt) did not upload when a person asked.
public struct SyncFailureReport: Codable, Hashable, Sendable {
    public var run: Int64?
    public var uuid: String?
    /// `unreachable` (the store did not answer), `store_failed` (it answered with a 5xx or with
    /// something that is not a store's reply), `busy` (it asked to wait: 408, 425, 429),
    /// `refused` (it refused this run: a 4xx), `unlinked` (it no longer accepts the pack),
    /// `not_linked`, `pack` (the pack could not read the run).
    public var kind: SyncFailureKind
    /// The store's or the pack's error code.
    public var code: String
    /// What happened, without what comes next.
    public var message: String

    public init(run: Int64?, uuid: String?, kind: SyncFailureKind, code: String, message: String) {
        self.run = run
        self.uuid = uuid
        self.kind = kind
        self.code = code
        self.message = message
    }
}

/// What the look a person asked for (`handoff sync`) did, once it has ended.
public struct SyncRequestReport: Codable, Hashable, Sendable {
    /// The number `sync` returned to the person who asked.
    public var request: Int
    /// Runs the store stored now, and runs it already had (a re-upload of the same bytes).
    public var uploaded: [Int64]
    public var alreadyStored: [Int64]
    public var failed: [SyncFailureReport]
    /// Runs not tried because the store stopped answering, or asked to wait, before their turn.
    public var notTried: [Int64]
    /// Nothing was tried: the pack is not linked, or the store did not answer its health check.
    public var problem: SyncFailureReport?

    public init(request: Int) {
        self.request = request
        uploaded = []
        alreadyStored = []
        failed = []
        notTried = []
    }

    enum CodingKeys: String, CodingKey {
        case request, uploaded, failed, problem
        case alreadyStored = "already_stored", notTried = "not_tried"
    }
}

/// What `sync_status` returns.
public struct SyncStatusReport: Codable, Hashable, Sendable {
    /// `not_linked`, `unlinked_by_store`, `away`, `idle` (nothing to do), `waiting` (for a retry),
    /// `checking` (the store), `uploading`, `held` (only refused runs wait).
    public var state: SyncState
    public var message: String
    public var linked: Bool
    public var store: String?
    public var username: String?
    public var home: Bool
    public var network: String
    public var networkDetail: String
    public var current: SyncProgressReport?
    public var queued: [QueuedRunReport]
    public var synced: Int
    public var lastSyncedAt: String?
    public var lastAttemptAt: String?
    public var lastError: String?
    public var nextAttemptAt: String?
    /// Uploads made since handoffd started, and how many of them the store already had.
    public var uploaded: Int
    public var alreadyStored: Int
    /// Looks at the outbox finished since handoffd started, and whether one is under way:
    /// `handoff sync` waits until a look that began after its request has ended.
    public var passes: Int
    public var looking: Bool
    /// The home networks (configured in handoff.toml, and added with `handoff sync home`), the
    /// Wi-Fi the pack is on now, and whether finished runs upload without anyone asking.
    public var homeNetworks: [String]
    public var wifi: String?
    public var uploadsByItself: Bool
    /// When runs will not upload by themselves: why, and how to fix it.
    public var advice: String?
    /// `sync`: the number of the look this request will be answered by.
    public var request: Int?
    /// The latest look a person asked for, once ended.
    public var lastRequest: SyncRequestReport?
    /// The runs uploaded in the latest pass that uploaded any, with where each counted.
    public var recent: [UploadedRunReport]

    public init(state: SyncState, message: String, linked: Bool, home: Bool, network: String, networkDetail: String) {
        self.state = state
        self.message = message
        self.linked = linked
        self.home = home
        self.network = network
        self.networkDetail = networkDetail
        queued = []
        synced = 0
        uploaded = 0
        alreadyStored = 0
        passes = 0
        looking = false
        homeNetworks = []
        uploadsByItself = false
        recent = []
    }

    enum CodingKeys: String, CodingKey {
        case state, message, linked, store, username, home, network, current, queued, synced, uploaded, passes, looking
        case wifi, advice, request
        case recent
        case networkDetail = "network_detail", lastSyncedAt = "last_synced_at", lastAttemptAt = "last_attempt_at"
        case lastError = "last_error", nextAttemptAt = "next_attempt_at", alreadyStored = "already_stored"
        case homeNetworks = "home_networks", uploadsByItself = "uploads_by_itself", lastRequest = "last_request"
    }
}

/// What `home`, `home_add` and `home_remove` return: the networks on which runs upload by themselves.
public struct HomeReport: Codable, Hashable, Sendable {
    /// Every home network, and which of them handoff.toml names (the rest were added with
    /// `handoff sync home` or `handoff link`; handoff.toml's cannot be removed from the CLI).
    public var homeNetworks: [String]
    public var configured: [String]
    /// The Wi-Fi the pack is on now.
    public var wifi: String?
    public var home: Bool
    public var uploadsByItself: Bool
    public var message: String

    public init(
        homeNetworks: [String], configured: [String], wifi: String?, home: Bool, uploadsByItself: Bool, message: String
    ) {
        self.homeNetworks = homeNetworks
        self.configured = configured
        self.wifi = wifi
        self.home = home
        self.uploadsByItself = uploadsByItself
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case configured, wifi, home, message
        case homeNetworks = "home_networks", uploadsByItself = "uploads_by_itself"
    }
}

extension SyncStatusReport {
    /// One line per run of `recent`: "Run 12: counted in Danube relay; not in Club 10k: it
    /// started before you joined".
    public var countedLines: [String] { recent.map { "Run \($0.run): \($0.counting.sentence)" } }
}

/// What `baton` and `baton_pass` return: the group's baton as the store sees it.
public struct BatonReport: Codable, Hashable, Sendable {
    public var group: Int64?
    public var holder: String?
    public var since: String?
    public var expiresAt: String?
    /// This pack's account holds it.
    public var youHold: Bool
    /// The latest relay legs, newest first, as the store lists them (`runner`, `taken_at`,
    /// `ended_at`, `ended`, `passed_to`, `distance_m`, `runs`).
    public var legs: [[String: String]]
    public var message: String

    public init(group: Int64?, youHold: Bool, message: String) {
        self.group = group
        self.youHold = youHold
        self.message = message
        legs = []
    }

    enum CodingKeys: String, CodingKey {
        case group, holder, since, legs, message
        case expiresAt = "expires_at", youHold = "you_hold"
    }
}

/// A group of the runner's that a run did not count in, and why, as the store said it
/// (`reason_code`: `started_before_joining`, `after_deadline`, `not_counted`).
public struct NotCountedReport: Codable, Hashable, Sendable {
    public var group: String
    public var groupId: Int64?
    public var reasonCode: String
    public var reason: String

    public init(group: String, groupId: Int64?, reasonCode: String, reason: String) {
        self.group = group
        self.groupId = groupId
        self.reasonCode = reasonCode
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case group, reason
        case groupId = "group_id", reasonCode = "reason_code"
    }
}

/// Where the store counted a run: the groups it counted in (by name) and those it did not, with
/// why. Kept in the journal with the run when the store acknowledges it.
public struct CountingReport: Codable, Hashable, Sendable {
    public var countedIn: [String]
    public var notCounted: [NotCountedReport]

    public init(countedIn: [String], notCounted: [NotCountedReport]) {
        self.countedIn = countedIn
        self.notCounted = notCounted
    }

    enum CodingKeys: String, CodingKey {
        case countedIn = "counted_in", notCounted = "not_counted"
    }

    /// "counted in Danube relay; not in Club 10k: it started before you joined".
    public var sentence: String {
        var parts = [countedIn.isEmpty ? "counted in no group" : "counted in " + countedIn.joined(separator: ", ")]
        parts += notCounted.map { "not in \($0.group): \($0.reason)" }
        if countedIn.isEmpty && notCounted.isEmpty {
            parts = ["on the store; you are in no group, so it counted in none"]
        }
        return parts.joined(separator: "; ")
    }
}

/// A run the sync worker uploaded in its latest pass that uploaded anything, with where it counted.
public struct UploadedRunReport: Codable, Hashable, Sendable {
    public var run: Int64
    public var uuid: String
    /// 201: stored now; 200: the store had it already.
    public var status: Int
    public var countedIn: [String]
    public var notCounted: [NotCountedReport]

    public init(run: Int64, uuid: String, status: Int, counting: CountingReport) {
        self.run = run
        self.uuid = uuid
        self.status = status
        countedIn = counting.countedIn
        notCounted = counting.notCounted
    }

    public var counting: CountingReport { CountingReport(countedIn: countedIn, notCounted: notCounted) }

    enum CodingKeys: String, CodingKey {
        case run, uuid, status
        case countedIn = "counted_in", notCounted = "not_counted"
    }
}
