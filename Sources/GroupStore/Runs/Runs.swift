import HandoffModel
import Training

/// A run as stored: its identity, what the file said, and where it counted.
public struct StoredRun: Sendable {
    public let id: Int64
    public let uuid: String
    public let accountID: Int64
    public let started: WallInstant
    public let elapsedMS: Int64
    public let timerMS: Int64
    public let distanceMM: Int64
    public let sport: String
    /// The uploaded file's format, SHA-256 and size.
    public let file: StoredFile
    /// The pack's summary as sent (JSON), and when the store received the run.
    public let upload: (summary: String, at: WallInstant)
    /// Beats per minute over the run, when its file has heart rates (and it was stored after
    /// schema version 8).
    public let averageHeartRate: Int64?
    /// Who sees the run, and who its map (Friends/Visibility.swift).
    public let audience: Audience

    public var summary: String { upload.summary }
    public var uploaded: WallInstant { upload.at }
    public var format: String { file.format }
    public var sha256: String { file.sha256 }
    public var size: Int64 { file.size }

    /// What the store keeps to know an upload again (the bytes themselves are read apart).
    public struct Audience: Sendable, Equatable {
        public let run: RunVisibility
        public let map: RunVisibility

        public init(run: RunVisibility, map: RunVisibility) {
            self.run = run
            self.map = map
        }
    }

    public struct StoredFile: Sendable {
        public let format: String
        public let sha256: String
        public let size: Int64
    }

    init(_ row: SQLRow) throws(SQLError) {
        id = try row.int("id")
        uuid = try row.text("uuid")
        accountID = try row.int("account_id")
        started = WallInstant(nanosecondsSinceEpoch: try row.int("started_ns"))
        elapsedMS = try row.int("elapsed_ms")
        timerMS = try row.int("timer_ms")
        distanceMM = try row.int("distance_mm")
        sport = try row.text("sport")
        file = try StoredFile(format: row.text("format"), sha256: row.text("sha256"), size: row.int("size"))
        upload = (try row.text("summary"), WallInstant(nanosecondsSinceEpoch: try row.int("uploaded_ns")))
        averageHeartRate = try row.intOrNil("heart_rate_avg")
        // A level this store does not know (written by a newer one) shows the run to nobody else.
        audience = StoreRepository.audience(try row.text("visibility"), try row.text("map_visibility"))
    }
}

/// Where a run counted: a group, and the relay leg when it was run holding the baton.
public struct RunCount: Sendable {
    public let groupID: Int64
    public let groupName: String
    public let legID: Int64?
    public let distanceMM: Int64
}

/// A group of the runner's that a run did not count in, and why: the counting rules of
/// `count(_:_:now:)` (joined before the run started; the run started before the deadline), each
/// with a stable code for programs and a sentence for the runner.
public struct RunNotCounted: Sendable, Hashable {
    public enum Reason: String, Sendable, Hashable {
        /// The run started before the runner joined the group.
        case startedBeforeJoining = "started_before_joining"
        /// The run started at or after the group's deadline.
        case afterDeadline = "after_deadline"
        /// The group does not count the run's sport (its owner says which count).
        case sportNotCounted = "sport_not_counted"
        /// None of the rules explains it (the runner joined while the run was being stored).
        case notCounted = "not_counted"

        public var sentence: String {
            switch self {
            case .startedBeforeJoining: "it started before you joined"
            case .afterDeadline: "it started after the group's deadline"
            case .sportNotCounted: "the group does not count its sport"
            case .notCounted: "the store did not count it there"
            }
        }
    }

    public let groupID: Int64
    public let groupName: String
    public let reason: Reason
}

/// A parsed upload, ready to store.
struct NewRun: Sendable {
    let uuid: String
    let started: WallInstant
    let elapsedMS: Int64
    let timerMS: Int64
    let distanceMM: Int64
    let sport: String
    let format: String
    let sha256: String
    let file: [UInt8]
    let summary: String
    /// Beats per minute over the run, when the file has heart rates.
    var averageHeartRate: Int64? = nil
    /// What its page shows (`RunFacts.encoded`), kept beside the file, and the feed's small
    /// route (`RunFacts.thumbnail`); none from a test's run.
    /// Its best efforts and steps (`RunDerived`) come with them.
    var facts: (bytes: [UInt8], thumbnail: String?, derived: RunDerived)? = nil

    /// The group whose baton the pack claimed (in `summary`), having started the run offline.
    var batonClaim: Int64? { RunRoutes.batonClaim(summary) }
}
