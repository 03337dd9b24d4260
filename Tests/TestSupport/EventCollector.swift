import Foundation
import HandoffModel

/// Collects what a live source emits from its own thread, for a test to look at.
public final class EventCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [CaptureEvent] = []

    public init() {}

    public func add(_ e: CaptureEvent) { lock.withLock { events.append(e) } }
    public var all: [CaptureEvent] { lock.withLock { events } }

    /// The text payloads of `kind`, in order.
    public func texts(_ kind: PayloadKind) -> [String] {
        all.compactMap { if case .payload(_, let k, .text(let t)) = $0.body, k == kind { t } else { nil } }
    }

    /// The link changes, in order.
    public var links: [LinkState] {
        all.compactMap { if case .link(_, let state, _) = $0.body { state } else { nil } }
    }
}
