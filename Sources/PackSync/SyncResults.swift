import HandoffModel
import PackStorage

// What the sync worker answers, in its own types. PackService words them as the control API's
// replies (PackService/SyncReplies.swift); nothing here knows the socket's JSON.

/// Where syncing stands: what `SyncWorker.status()` returns.
public struct SyncStatus: Sendable, Hashable {
    public enum Phase: Sendable, Hashable {
        case notLinked, unlinkedByStore, away, idle
        /// Runs wait for a retry.
        case waiting
        /// Asking the store whether it answers.
        case checking
        case uploading
        /// Only runs the store refused wait.
        case held
    }

    public var phase: Phase
    public var message: String
    /// The store the pack is linked to; `nil` when it is not.
    public var store: LinkedStore?
    public var network: NetworkStatus
    public var outbox: OutboxStatus
    public var contact: StoreContact
    public var activity: PassActivity
    /// The latest look a person asked for, once ended.
    public var lastRequest: RequestOutcome?
}

/// The store a pack is linked to, and the account it is linked as.
public struct LinkedStore: Sendable, Hashable {
    public var store: String
    public var username: String?
}

/// The home networks, the Wi-Fi the pack is on, and whether finished runs upload by themselves.
public struct NetworkStatus: Sendable, Hashable {
    /// Uploads may go now.
    public var home: Bool
    /// The network as a person reads it ("home: on \"Home\"").
    public var description: String
    public var detail: String
    public var wifi: String?
    /// Every home network; `configured` are handoff.toml's (the rest were added from the CLI).
    public var homeNetworks: [String]
    public var configured: [String]
    public var uploadsByItself: Bool
    /// When runs will not upload by themselves: why, and how to fix it.
    public var advice: String?
}

/// What `addHome`, `removeHome` and `homeNetworks` return.
public struct HomeNetworksStatus: Sendable, Hashable {
    public var network: NetworkStatus
    public var message: String
}

/// The runs waiting to upload, and the one uploading now.
public struct OutboxStatus: Sendable, Hashable {
    public var current: UploadProgress?
    public var queued: [QueuedRun]
    public var synced: Int
    public var lastSynced: WallInstant?
}

/// The upload in progress: the `index`-th of `of` runs due in this pass (1-based).
public struct UploadProgress: Sendable, Hashable {
    public var run: Int64
    public var uuid: String
    public var index: Int
    public var of: Int
    public var bytes: Int?
}

/// A run waiting in the outbox, and when the worker tries it next (`nil`: as soon as the pack is
/// home, or never by itself when the store refused it).
public struct QueuedRun: Sendable, Hashable {
    public var entry: OutboxEntry
    public var nextRetry: WallInstant?
}

/// The latest talk with the store: when, what went wrong, and when the worker looks again.
public struct StoreContact: Sendable, Hashable {
    public var lastAttempt: WallInstant?
    public var lastError: String?
    public var nextAttempt: WallInstant?
}

/// What the worker did since handoffd started.
public struct PassActivity: Sendable, Hashable {
    /// Uploads made, and how many of them the store already had.
    public var uploaded: Int
    public var alreadyStored: Int
    /// Looks at the outbox finished, and whether one is under way.
    public var passes: Int
    public var looking: Bool
    /// The runs uploaded in the latest pass that uploaded any, with where each counted.
    public var recent: [UploadedRun]
}

/// A run the store acknowledged, and where it counted.
public struct UploadedRun: Sendable, Hashable {
    public var run: Int64
    public var uuid: String
    /// 201: stored now; 200: the store had it already.
    public var status: Int
    public var counting: RunCounting
}

/// Why a run (or, without `run`, the whole attempt) did not upload when a person asked.
public struct UploadFailure: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// The store did not answer.
        case unreachable
        /// It answered with a 5xx, or with something that is not a store's reply.
        case storeFailed
        /// It asked to wait (408, 425, 429).
        case busy
        /// It refused this run (a 4xx).
        case refused
        /// It no longer accepts the pack.
        case unlinked
        case notLinked
        /// The pack could not read the run.
        case pack
    }

    public var run: Int64?
    public var uuid: String?
    public var kind: Kind
    /// The store's or the pack's error code.
    public var code: String
    /// What happened, without what comes next.
    public var message: String
}

/// What a look a person asked for (`handoff sync`) did, once it has ended.
public struct RequestOutcome: Sendable, Hashable {
    public var request: Int
    /// Runs the store stored now, and runs it already had.
    public var uploaded: [Int64] = []
    public var alreadyStored: [Int64] = []
    public var failed: [UploadFailure] = []
    /// Runs not tried because the store stopped answering, or asked to wait, before their turn.
    public var notTried: [Int64] = []
    /// Nothing was tried: the pack is not linked, or the store did not answer its health check.
    public var problem: UploadFailure?

    init(request: Int) { self.request = request }
}

/// Linking the pack to a store: what `beginLink`, `linkStatus` and `unlink` return.
public struct LinkStatus: Sendable, Hashable {
    public enum Phase: Sendable, Hashable {
        /// For the code to be entered.
        case waiting
        case linked, expired, denied, failed, unlinked, unlinkedByStore
    }

    /// The code a person enters on the store, and where.
    public struct Code: Sendable, Hashable {
        public var userCode: String
        public var verificationURI: String
        public var verificationURIComplete: String?
        public var expires: WallInstant
    }

    public var phase: Phase
    public var store: String?
    public var username: String?
    public var code: Code?
    public var message: String

    init(_ phase: Phase, _ message: String, store: LinkedStore? = nil) {
        self.phase = phase
        self.message = message
        self.store = store?.store
        self.username = store?.username
    }
}

/// The group's baton as the store sees it: what `batonStatus` and `passBaton` return.
public struct BatonStatus: Sendable, Hashable {
    public var group: Int64
    public var holder: String?
    public var since: String?
    public var expiresAt: String?
    /// This pack's account holds it.
    public var youHold: Bool
    /// The latest relay legs, newest first, as text (`runner`, `taken_at`, `ended_at`, `ended`,
    /// `passed_to`, `distance_m`, `runs`).
    public var legs: [[String: String]]
    public var message: String
}

/// What `handoff doctor` finds about the store or the home networks.
public struct SyncCheck: Sendable, Hashable {
    public enum Level: Sendable, Hashable { case ok, warning, problem }

    /// `store` or `network.home`.
    public var name: String
    public var level: Level
    public var summary: String
    public var action: String?

    init(_ name: String, _ level: Level, _ summary: String, action: String? = nil) {
        self.name = name
        self.level = level
        self.summary = summary
        self.action = level == .ok ? nil : action
    }
}
