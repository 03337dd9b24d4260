import HandoffModel
import PackStorage
import PackSystem

// The sync worker's state, in the parts it changes together. The actor wires them; each part
// keeps its own rules.

/// The store's side: whether it still accepts the pack, how many times in a row it failed, and
/// when the worker may ask it again.
struct StoreHealth {
    /// The store refused the link (401): nothing is tried until `handoff link`.
    var unlinkedByStore: String?
    /// Consecutive transient failures, and when to look again.
    private(set) var failures = 0
    private(set) var retryAt: WallInstant?
    var lastAttempt: WallInstant?
    private(set) var lastError: String?

    /// Whatever failed before is worth trying at once (back home, a person asked, a new link).
    mutating func forgiveFailures() {
        failures = 0
        retryAt = nil
    }

    /// The store did not answer, or failed: backs off. Returns the delay, in seconds.
    mutating func failed(_ failure: SyncFailure, backoff: Backoff, now: WallInstant) -> Double {
        failures += 1
        lastError = failure.message
        let delay = backoff.delay(afterFailures: failures, retryAfter: failure.retryAfter)
        retryAt = now.advanced(byNanoseconds: Int64(delay * 1e9))
        return delay
    }

    /// A failure that is the run's, not the store's: noted, with no back-off.
    mutating func noted(_ failure: SyncFailure) { lastError = failure.message }

    /// An upload went through.
    mutating func succeeded() {
        failures = 0
        lastError = nil
    }

    /// Whether the worker must still wait at `now`.
    func waits(at now: WallInstant) -> Bool { retryAt.map { $0 > now } ?? false }

    /// Worth a log line: the first failure, then every tenth.
    var worthLogging: Bool { failures == 1 || failures % 10 == 0 }

    var contact: StoreContact { StoreContact(lastAttempt: lastAttempt, lastError: lastError, nextAttempt: retryAt) }
}

/// The loop's looks at the outbox: the one under way, what it is doing, and what the looks did
/// since handoffd started.
struct Passes {
    /// The upload under way, and whether the store is being asked whether it answers.
    var current: UploadProgress?
    var checking = false
    var stopping = false
    private(set) var underWay = false
    /// One look away from home, when a person asked for it: the next one, and this one.
    private var anywhereNext = false
    private(set) var anywhere = false
    /// Finished looks, and the uploads they made.
    private(set) var finished = 0
    private(set) var uploaded = 0
    private(set) var alreadyStored = 0
    /// The runs uploaded in the latest look that uploaded any, and that look's number.
    private(set) var recent: [UploadedRun] = []
    private var recentPass = -1
    /// What the store last said of the baton: this runner's or not, and when it was asked.
    var baton = BatonSeen()

    mutating func allowAnywhereOnce() { anywhereNext = true }

    /// The next look may upload away from home: either asked for it.
    var anywhereAllowed: Bool { anywhereNext || anywhere }

    mutating func begin() {
        underWay = true
        anywhere = anywhereNext
        anywhereNext = false
    }

    mutating func end() {
        underWay = false
        anywhere = false
        current = nil
        finished += 1
    }

    /// The store acknowledged a run (201 stored now, 200 had it already); where it counted is
    /// kept with the runs of this look (`finished` names the look under way).
    mutating func acknowledged(_ run: UploadedRun?, status: Int) {
        uploaded += 1
        if status == 200 { alreadyStored += 1 }
        if recentPass != finished {
            recent = []
            recentPass = finished
        }
        if let run { recent.append(run) }
    }

    /// Checking the store or uploading now.
    var talkingToStore: Bool { current != nil || checking }

    var activity: PassActivity {
        PassActivity(
            uploaded: uploaded, alreadyStored: alreadyStored, passes: finished, looking: underWay, recent: recent)
    }
}

/// Whether the baton was this runner's when the store last said (at a sync, at `handoff baton`,
/// at a start), for the LED (issue 35: the pack hears that the baton was passed to its runner).
struct BatonSeen {
    var yours = false
    var asked: WallInstant?
}

/// The looks a person asked for (`handoff sync`): the latest number given out, the one the next
/// look answers, what the look under way has done, and what the latest one did.
struct SyncRequests {
    private var issued = 0
    private var pending: Int?
    /// The outcome of the look under way, when a person asked for it.
    var underWay: RequestOutcome?
    private(set) var last: RequestOutcome?

    /// A person asked: the number `last` will carry once the look that answers has ended.
    mutating func ask() -> Int {
        issued += 1
        pending = issued
        return issued
    }

    /// A look begins: it answers the pending request, if any. Returns whether a person asked.
    mutating func begin() -> Bool {
        underWay = pending.map(RequestOutcome.init(request:))
        pending = nil
        return underWay != nil
    }

    mutating func end() {
        if let underWay { last = underWay }
        underWay = nil
    }
}

/// The pack's link to a store, and the client that talks to it with the link's token.
struct StoreConnection {
    private(set) var link: StoreLink?
    private(set) var client: StoreClient?
    let timeoutSeconds: Double

    init(_ link: StoreLink?, timeoutSeconds: Double) {
        self.timeoutSeconds = timeoutSeconds
        self.link = nil
        set(link)
    }

    mutating func set(_ link: StoreLink?) {
        self.link = link
        client = link.flatMap { link in
            (try? StoreClient.url(link.store)).map {
                StoreClient(base: $0, token: link.token, timeoutSeconds: timeoutSeconds)
            }
        }
    }

    /// Keeps the group learned online in the link file, for starts without a network.
    mutating func remember(group: Int64, path: String) {
        guard var link, link.groupID != group else { return }
        link.groupID = group
        try? link.save(path: path)
        self.link = link
    }

    var linked: LinkedStore? { link.map { LinkedStore(store: $0.store, username: $0.username) } }
}
