import Foundation
import HandoffModel

extension PackDatabase {
    /// The store acknowledged the run, and said where it counted.
    public func markSynced(_ session: SessionID, at now: WallInstant, status: Int, counting: RunCounting?) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = try counting.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        try markSynced(session, at: now, status: status, counted: text)
    }

    /// Where the store said the run counted, if it said; `nil` also for a note this version cannot
    /// read (the run stays synced: only the note is lost).
    public func counting(_ session: SessionID) throws -> RunCounting? {
        try counted(session).flatMap { try? JSONDecoder().decode(RunCounting.self, from: Data($0.utf8)) }
    }
}
