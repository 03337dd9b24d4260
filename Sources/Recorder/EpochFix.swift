import HandoffModel

/// One fix that drives the distance filter: one per receiver epoch.
struct EpochFix: Hashable, Sendable {
    var time: MonotonicInstant
    var hasFix: Bool
    var latitude: Double
    var longitude: Double
    var speed: Double?
    var hdop: Double?
}
