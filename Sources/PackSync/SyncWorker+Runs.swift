import Foundation
import HandoffAPI
import HandoffModel
import PackStorage

/// `handoff delete`, which tells the store before the pack forgets a run the store has, and the
/// summary the store keeps beside each uploaded file.
extension SyncWorker {
    /// Whether this run is being uploaded at this moment.
    public func isUploading(_ run: SessionID) -> Bool { passes.current?.run == run.rawValue }

    /// Deletes a synced run on the store. Any failure (not linked, unreachable, refused) is a
    /// `SyncError` whose sentence says that nothing was deleted and what to do.
    public func deleteFromStore(uuid: String, run: Int64) async throws(SyncError) {
        let refused = { (why: String) in
            SyncError(
                code: "store_not_told",
                message:
                    "run \(run) is on the store, and \(why): nothing was deleted. Try again when the store answers, or `handoff delete \(run) --local-only` deletes it on the pack only (it stays on the store and in its groups' totals)"
            )
        }
        guard let client, health.unlinkedByStore == nil else {
            throw refused(health.unlinkedByStore ?? "this pack is not linked to a store any more")
        }
        do {
            try await client.deleteRun(uuid: uuid)
        } catch {
            throw refused(
                "the store could not be told (\(error.message.replacingOccurrences(of: "; trying again later", with: "")))"
            )
        }
        logger.info("Run \(run) deleted on the store", metadata: ["session.uuid": "\(uuid)"])
    }

    /// The JSON the store keeps beside the file: what the pack knows that FIT does not say.
    func uploadSummary(_ session: SessionID) throws -> Data {
        guard let record = try database.run(session) else { return Data("{}".utf8) }
        var summary = UploadSummary(
            pack: "handoff \(HandoffVersion.current)", run: session.rawValue, clockSource: record.clockSource.rawValue,
            recovered: record.recovered, source: record.source.hasPrefix("replay:") ? "replay" : record.source)
        if let baton = try database.baton(of: session), baton.mode == .offline, let group = baton.group {
            summary.batonClaim = UploadSummary.BatonClaim(groupID: group)
        }
        if let s = record.summary {
            summary.distanceM = s.statistics.distanceMeters
            summary.elapsedS = s.elapsedSeconds
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(summary)
    }
}
