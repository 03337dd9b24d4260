import Foundation
import HandoffAPI
import HandoffModel
import PackControl
import PackStorage

/// Issue 29: where an uploaded run counted (for `handoff sync`), and `handoff delete`, which tells
/// the store before the pack forgets a run the store has.
extension SyncWorker {
    /// Keeps where an uploaded run counted for `status().recent`: the runs of this pass (`passes`
    /// counts finished passes, so it names the pass under way).
    func noteUploaded(_ entry: OutboxEntry, _ ack: StoreClient.Acknowledgement) {
        if recentPass != passes {
            recent = []
            recentPass = passes
        }
        // An older store does not say where a run counted: then there is nothing to tell.
        guard let counting = ack.counting else { return }
        recent.append(
            UploadedRunReport(run: entry.session.rawValue, uuid: entry.uuid, status: ack.status, counting: counting))
        logger.info("Run \(entry.session): \(counting.sentence)", metadata: ["session.uuid": "\(entry.uuid)"])
    }

    /// Whether this run is being uploaded at this moment.
    public func isUploading(_ run: SessionID) -> Bool { current?.run == run.rawValue }

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
        guard let client, unlinkedByStore == nil else {
            throw refused(unlinkedByStore ?? "this pack is not linked to a store any more")
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
