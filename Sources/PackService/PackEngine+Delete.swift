import HandoffModel
import PackControl
import PackStorage

extension PackEngine {
    /// The run `handoff delete` names, and whether the store has it; a run still being recorded
    /// (or one the journal has not finished) cannot be deleted.
    func deletionTarget(_ reference: String) throws(ControlError) -> (id: SessionID, uuid: String, synced: Bool) {
        do {
            let (id, record) = try record(reference)
            guard record.state == .finished, session?.id != id else {
                throw ControlError(
                    code: "recording",
                    message:
                        "run \(id.rawValue) is still being recorded: `handoff stop` it first (a short one is discarded then)"
                )
            }
            return (id, record.uuid, try database.isSynced(id))
        } catch let error as ControlError {
            throw error
        } catch {
            throw ControlError(code: "storage", message: "could not read the run: \(error)")
        }
    }

    /// Deletes a finished run from the journal.
    func deleteRun(_ id: SessionID) throws(ControlError) {
        guard session?.id != id else {
            throw ControlError(code: "recording", message: "run \(id.rawValue) is still being recorded")
        }
        do {
            guard try database.deleteRun(id) else {
                throw ControlError(code: "no_such_run", message: "run \(id.rawValue) is gone already")
            }
        } catch let error as ControlError {
            throw error
        } catch {
            throw ControlError(code: "storage", message: "could not delete run \(id.rawValue): \(error)")
        }
        logger.notice("Run \(id.rawValue) deleted on request", metadata: ["session.id": "\(id.rawValue)"])
    }
}
