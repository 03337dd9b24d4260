import Logging
import Synchronization

/// A log handler that keeps every message with its level and metadata, for tests that read the
/// log (what a store wrote about an upload, a source's warning that it will retry).
public final class CapturedLog: LogHandler, @unchecked Sendable {
    private let lines = Mutex<[(level: Logger.Level, text: String)]>([])
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init() {}

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.withLock { $0.append((event.level, "\(event.level) \(event.message) \(all)")) }
    }

    /// Every message so far, one a line: its level, the message, its metadata.
    public var text: String { lines.withLock { $0.map(\.text).joined(separator: "\n") } }

    /// How many messages so far had `level`.
    public func count(_ level: Logger.Level) -> Int { lines.withLock { $0.count { $0.level == level } } }
}
