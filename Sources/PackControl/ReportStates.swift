import HandoffModel

// The states reports carry, as enums with the control API's names (docs/control-api.md).
// `status`, `runs`, `show` and the session commands use `SessionState` (idle, recording,
// paused, finished) from HandoffModel.

extension SessionState {
    /// A run is open: recording or paused.
    public var isOpen: Bool { self == .recording || self == .paused }
}

/// A sensor's link, as `status`, `sensor` and the paired-sensor reports give it.
public enum SensorLink: String, Codable, Hashable, Sendable {
    case connected, disconnected
    /// Paired, not heard from since handoffd started.
    case connecting
    /// Replayed: the capture has ended.
    case ended
}

/// Where linking the pack to a store stands (`link`, `link_status`, `unlink`).
public enum StoreLinkState: String, Codable, Hashable, Sendable {
    /// For the code to be entered.
    case waiting
    case linked, expired, denied, failed, unlinked
    case unlinkedByStore = "unlinked_by_store"
}

/// What the sync worker is doing (`sync_status`).
public enum SyncState: String, Codable, Hashable, Sendable {
    case notLinked = "not_linked"
    case unlinkedByStore = "unlinked_by_store"
    case away
    /// Nothing to do.
    case idle
    /// For a retry.
    case waiting
    /// Asking the store.
    case checking
    case uploading
    /// Only runs the store refused wait.
    case held
}

/// Why a run, or a whole look, did not upload (`last_request`'s `failed` and `problem`).
public enum SyncFailureKind: String, Codable, Hashable, Sendable {
    /// The store did not answer.
    case unreachable
    /// It answered with a 5xx, or with something that is not a store's reply.
    case storeFailed = "store_failed"
    /// It asked to wait: 408, 425, 429.
    case busy
    /// It refused this run: a 4xx.
    case refused
    /// It no longer accepts the pack.
    case unlinked
    case notLinked = "not_linked"
    /// The pack could not read the run.
    case pack
}

extension SensorLink {
    /// A live sensor's link, as the model has it.
    public init(_ state: LinkState) {
        switch state {
        case .connected: self = .connected
        case .disconnected: self = .disconnected
        }
    }
}

/// A GPS fix as `status` gives it (`gps.fix`).
public enum GPSFix: String, Codable, Hashable, Sendable {
    case none
    case twoD = "2d"
    case threeD = "3d"

    public init(_ mode: GPSFixMode) {
        switch mode {
        case .none: self = .none
        case .twoD: self = .twoD
        case .threeD: self = .threeD
        }
    }

    /// "no fix", "2D fix", "3D fix".
    public var phrase: String { self == .none ? "no fix" : "\(rawValue.uppercased()) fix" }
}

/// Where a run's times come from (`clock` in runs and in `status`'s `gps`).
public enum RunClock: String, Codable, Hashable, Sendable {
    /// The system clock, synchronised.
    case system
    /// GPS time: the system clock was not synchronised.
    case gps
    /// The system clock while it was not synchronised, with no GPS time: may be wrong.
    case unsynchronized
}
