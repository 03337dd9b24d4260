import HandoffModel

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

/// What `sync_status` returns. On the wire it is one flat object (docs/control-api.md); here its
/// fields are grouped in the parts below, each encoded into that one object.
public struct SyncStatusReport: Codable, Hashable, Sendable {
    /// `not_linked`, `unlinked_by_store`, `away`, `idle` (nothing to do), `waiting` (for a retry),
    /// `checking` (the store), `uploading`, `held` (only refused runs wait).
    public var state: SyncState
    public var message: String
    public var link: LinkPart
    public var network: NetworkPart
    public var outbox: OutboxPart
    public var contact: ContactPart
    public var activity: ActivityPart
    /// `sync`: the number of the look this request will be answered by.
    public var request: Int?
    /// The latest look a person asked for, once ended.
    public var lastRequest: SyncRequestReport?

    /// Whether the pack is linked, to which store, as whom.
    public struct LinkPart: Codable, Hashable, Sendable {
        public var linked: Bool
        public var store: String?
        public var username: String?

        public init(linked: Bool, store: String?, username: String?) {
            self.linked = linked
            self.store = store
            self.username = username
        }
    }

    /// The home networks (configured in handoff.toml, and added with `handoff sync home`), the
    /// Wi-Fi the pack is on now, and whether finished runs upload without anyone asking.
    public struct NetworkPart: Codable, Hashable, Sendable {
        public var home: Bool
        /// The network as a person reads it (`network` on the wire), and its detail.
        public var summary: String
        public var detail: String
        public var homeNetworks: [String]
        public var wifi: String?
        public var uploadsByItself: Bool
        /// When runs will not upload by themselves: why, and how to fix it.
        public var advice: String?

        public init(
            home: Bool, summary: String, detail: String, homeNetworks: [String], wifi: String?, uploadsByItself: Bool,
            advice: String?
        ) {
            self.home = home
            self.summary = summary
            self.detail = detail
            self.homeNetworks = homeNetworks
            self.wifi = wifi
            self.uploadsByItself = uploadsByItself
            self.advice = advice
        }

        enum CodingKeys: String, CodingKey {
            case home, wifi, advice
            case summary = "network", detail = "network_detail", homeNetworks = "home_networks"
            case uploadsByItself = "uploads_by_itself"
        }
    }

    /// The upload in progress, the runs waiting, and how many are on the store.
    public struct OutboxPart: Codable, Hashable, Sendable {
        public var current: SyncProgressReport?
        public var queued: [QueuedRunReport]
        public var synced: Int
        public var lastSyncedAt: String?

        public init(current: SyncProgressReport?, queued: [QueuedRunReport], synced: Int, lastSyncedAt: String?) {
            self.current = current
            self.queued = queued
            self.synced = synced
            self.lastSyncedAt = lastSyncedAt
        }

        enum CodingKeys: String, CodingKey {
            case current, queued, synced
            case lastSyncedAt = "last_synced_at"
        }
    }

    /// The latest talk with the store, and when the worker looks again.
    public struct ContactPart: Codable, Hashable, Sendable {
        public var lastAttemptAt: String?
        public var lastError: String?
        public var nextAttemptAt: String?

        public init(lastAttemptAt: String?, lastError: String?, nextAttemptAt: String?) {
            self.lastAttemptAt = lastAttemptAt
            self.lastError = lastError
            self.nextAttemptAt = nextAttemptAt
        }

        enum CodingKeys: String, CodingKey {
            case lastAttemptAt = "last_attempt_at", lastError = "last_error", nextAttemptAt = "next_attempt_at"
        }
    }

    /// Uploads made since handoffd started (and how many of them the store already had), looks
    /// at the outbox finished and whether one is under way (`handoff sync` waits until a look
    /// that began after its request has ended), and the runs uploaded in the latest pass that
    /// uploaded any, with where each counted.
    public struct ActivityPart: Codable, Hashable, Sendable {
        public var uploaded: Int
        public var alreadyStored: Int
        public var passes: Int
        public var looking: Bool
        public var recent: [UploadedRunReport]

        public init(uploaded: Int, alreadyStored: Int, passes: Int, looking: Bool, recent: [UploadedRunReport]) {
            self.uploaded = uploaded
            self.alreadyStored = alreadyStored
            self.passes = passes
            self.looking = looking
            self.recent = recent
        }

        enum CodingKeys: String, CodingKey {
            case uploaded, passes, looking, recent
            case alreadyStored = "already_stored"
        }
    }

    public init(
        state: SyncState, message: String, link: LinkPart, network: NetworkPart, outbox: OutboxPart,
        contact: ContactPart, activity: ActivityPart
    ) {
        self.state = state
        self.message = message
        self.link = link
        self.network = network
        self.outbox = outbox
        self.contact = contact
        self.activity = activity
    }

    enum CodingKeys: String, CodingKey {
        case state, message, request
        case lastRequest = "last_request"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        state = try container.decode(SyncState.self, forKey: .state)
        message = try container.decode(String.self, forKey: .message)
        request = try container.decodeIfPresent(Int.self, forKey: .request)
        lastRequest = try container.decodeIfPresent(SyncRequestReport.self, forKey: .lastRequest)
        link = try LinkPart(from: decoder)
        network = try NetworkPart(from: decoder)
        outbox = try OutboxPart(from: decoder)
        contact = try ContactPart(from: decoder)
        activity = try ActivityPart(from: decoder)
    }

    /// One flat object: the parts' fields beside the report's own.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(message, forKey: .message)
        try container.encodeIfPresent(request, forKey: .request)
        try container.encodeIfPresent(lastRequest, forKey: .lastRequest)
        try link.encode(to: encoder)
        try network.encode(to: encoder)
        try outbox.encode(to: encoder)
        try contact.encode(to: encoder)
        try activity.encode(to: encoder)
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
    public var countedLines: [String] { activity.recent.map { "Run \($0.run): \($0.counting.sentence)" } }
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

/// Where the store counted a run (HandoffModel's `RunCounting`, sent as it is).
public typealias CountingReport = RunCounting
public typealias NotCountedReport = RunCounting.NotCounted

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
