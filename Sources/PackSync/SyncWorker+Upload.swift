import ActivityFormats
import Crypto
import Foundation
import HandoffModel
import PackStorage

/// One look at the outbox, and each run's upload.
extension SyncWorker {
    /// Uploads what is due, if it may. `asked`: a person asked for this look (`requests.underWay`
    /// collects what it did for them).
    func pass(asked: Bool) async {
        guard let client, health.unlinkedByStore == nil, mayUpload else {
            if link == nil {
                requests.underWay?.problem = UploadFailure(
                    run: nil, uuid: nil, kind: .notLinked, code: "not_linked", message: SyncWorker.notLinked)
            } else if let reason = health.unlinkedByStore {
                requests.underWay?.problem = UploadFailure(
                    run: nil, uuid: nil, kind: .unlinked, code: "unauthorized", message: reason)
            }
            return
        }
        let start = now()
        if asked {
            // A person asked: runs the store refused get another try, and no retry time waits.
            do { try database.releaseOutbox() } catch {
                logger.error("Could not release the outbox: \(error)")
            }
            health.forgiveFailures()
        }
        if health.waits(at: start) { return }
        let due: [OutboxEntry]
        do { due = try database.outboxDue(now: start) } catch {
            logger.error("Could not read the outbox: \(error)")
            requests.underWay?.problem = UploadFailure(
                run: nil, uuid: nil, kind: .pack, code: "storage", message: "could not read the outbox: \(error)")
            return
        }
        guard !due.isEmpty else {
            await uploadSteps(client: client)
            await lookAtBaton(uploaded: false)
            prune()
            return
        }
        // Home means the store answers too: one cheap request before any upload.
        passes.checking = true
        do {
            _ = try await client.health()
            passes.checking = false
        } catch {
            passes.checking = false
            storeFailed(error)
            if asked { noteUnanswered(due, error, at: start) }
            return
        }
        for (index, entry) in due.enumerated() {
            if passes.stopping || Task.isCancelled { break }
            guard await upload(entry, index: index + 1, of: due.count, client: client) else {
                requests.underWay?.notTried = due.dropFirst(index + 1).map(\.session.rawValue)
                passes.current = nil
                return
            }
        }
        passes.current = nil
        await uploadSteps(client: client)
        await lookAtBaton(uploaded: true)
    }

    /// The store did not answer the look a person asked for: they read it per run, now and in
    /// `sync status` (each waiting run, and why it did not go).
    func noteUnanswered(_ due: [OutboxEntry], _ error: SyncFailure, at start: WallInstant) {
        requests.underWay?.failed = due.map { Self.uploadFailure(error, entry: $0) }
        for entry in due {
            do {
                try database.recordOutboxFailure(
                    entry.session, at: start, code: error.code, message: error.message, status: nil,
                    nextAttempt: health.contact.nextAttempt, held: false)
            } catch {
                logger.error("Could not note the failed upload in the journal: \(error)")
            }
        }
    }

    /// A failure as the person who asked reads it.
    static func uploadFailure(_ failure: SyncFailure, entry: OutboxEntry?) -> UploadFailure {
        let kind: UploadFailure.Kind =
            switch failure.cause {
            case .unreachable, .cancelled: .unreachable
            case .storeFailed: .storeFailed
            case .busy: .busy
            case .refused: .refused
            case .unlinked: .unlinked
            case .pack: .pack
            }
        return UploadFailure(
            run: entry?.session.rawValue, uuid: entry?.uuid, kind: kind, code: failure.code, message: failure.what)
    }

    /// Uploads one run; returns whether to go on with the next.
    func upload(_ entry: OutboxEntry, index: Int, of total: Int, client: StoreClient) async -> Bool {
        let payload: (bytes: [UInt8], sha256: String)
        let summary: Data
        do {
            payload = try database.outboxPayload(entry.session) { try makePayload(entry.session) }
            summary = try uploadSummary(entry.session)
        } catch {
            logger.error("Could not make the upload for run \(entry.session): \(error)")
            let failure = SyncFailure(
                .pack, code: "payload", message: "the run could not be read from the journal for upload: \(error)")
            requests.underWay?.failed.append(Self.uploadFailure(failure, entry: entry))
            record(entry, failure)
            return true
        }
        passes.current = UploadProgress(
            run: entry.session.rawValue, uuid: entry.uuid, index: index, of: total, bytes: payload.bytes.count)
        health.lastAttempt = now()
        let ack: StoreClient.Acknowledgement
        do {
            ack = try await client.uploadRun(
                uuid: entry.uuid, file: payload.bytes, sha256: payload.sha256, fileName: "\(entry.uuid).fit",
                summary: summary)
        } catch {
            // Stopping (SIGTERM) is not the store's fault: the run simply waits for the next start.
            if error.cause == .cancelled || Task.isCancelled { return false }
            requests.underWay?.failed.append(Self.uploadFailure(error, entry: entry))
            record(entry, error)
            return error.action == .needsPerson
        }
        do {
            try database.markSynced(entry.session, at: now(), status: ack.status, counting: ack.counting)
        } catch {
            // The store has it; the next attempt gets a 200 for the same bytes and marks it then.
            logger.error("The store acknowledged run \(entry.session) but the journal refused the mark: \(error)")
            return false
        }
        acknowledged(entry, ack)
        logger.info(
            "Run \(entry.session) synced (\(ack.status == 201 ? "stored" : "the store had it already"))",
            metadata: ["session.uuid": "\(entry.uuid)", "bytes": "\(payload.bytes.count)"])
        return true
    }

    /// The store has the run: counted for `status()` and for the person who asked.
    func acknowledged(_ entry: OutboxEntry, _ ack: StoreClient.Acknowledgement) {
        // An older store does not say where a run counted: then there is nothing to tell.
        let run = ack.counting.map {
            UploadedRun(run: entry.session.rawValue, uuid: entry.uuid, status: ack.status, counting: $0)
        }
        passes.acknowledged(run, status: ack.status)
        if ack.status == 200 {
            requests.underWay?.alreadyStored.append(entry.session.rawValue)
        } else {
            requests.underWay?.uploaded.append(entry.session.rawValue)
        }
        health.succeeded()
        if let counting = ack.counting {
            logger.info("Run \(entry.session): \(counting.sentence)", metadata: ["session.uuid": "\(entry.uuid)"])
        }
    }

    /// Notes a failure on the run and decides what comes next.
    func record(_ entry: OutboxEntry, _ failure: SyncFailure) {
        health.noted(failure)
        var next: WallInstant?
        switch failure.action {
        case .retry:
            storeFailed(failure)
            next = health.contact.nextAttempt
        case .needsPerson:
            logger.error(
                "The store refused run \(entry.session): \(failure.message)",
                metadata: ["session.uuid": "\(entry.uuid)", "code": "\(failure.code)"])
        case .unlinked:
            health.unlinkedByStore = failure.message
            logger.error("\(failure.message)")
        }
        do {
            try database.recordOutboxFailure(
                entry.session, at: now(), code: failure.code, message: failure.message, status: nil,
                nextAttempt: next, held: failure.action == .needsPerson)
        } catch {
            logger.error("Could not note the failed upload in the journal: \(error)")
        }
    }

    /// The store did not answer, or failed: back off before the next look.
    func storeFailed(_ failure: SyncFailure) {
        let delay = health.failed(failure, backoff: configuration.backoff, now: now())
        if health.worthLogging {
            logger.warning(
                "Sync: \(failure.message)",
                metadata: ["failures": "\(health.failures)", "retry_in_s": "\(Int(delay.rounded()))"])
        }
    }

    func prune() {
        guard let after = configuration.pruneRawAfterSeconds else { return }
        let current = now()
        do {
            let pruned = try database.pruneRawData(
                syncedBefore: current.advanced(byNanoseconds: -Int64(after * 1e9)), now: current)
            if pruned > 0 { logger.info("Pruned the raw data of \(pruned) synced run(s)") }
        } catch {
            logger.warning("Could not prune synced runs' raw data: \(error)")
        }
    }

    // MARK: The file

    /// The run as FIT, without what lies in a privacy zone.
    func makePayload(_ session: SessionID) throws -> (bytes: [UInt8], sha256: String) {
        let activity = try Self.activity(session, database: database)
        let filtered = PrivacyFilter(zones: configuration.zones).apply(activity)
        if filtered.removedPoints > 0 {
            logger.info(
                "Run \(session): \(filtered.removedPoints) point(s) in privacy zones stay on the pack",
                metadata: ["zones": "\(filtered.zonesTouched.joined(separator: ", "))"])
        }
        let bytes = ActivityFormat.fit.write(filtered.activity)
        return (bytes, Self.sha256(bytes))
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// A finished run, as the writers take it.
    public static func activity(_ session: SessionID, database: PackDatabase) throws -> Activity {
        guard let record = try database.run(session), let summary = record.summary else {
            throw SyncFailure(.pack, code: "not_finished", message: "run \(session) is not finished")
        }
        return Activity(
            start: record.startWall, sport: Activity.Sport(record.sport), points: try database.points(of: session),
            events: try database.events(of: session),
            laps: try database.laps(of: session), rrIntervals: try database.rrIntervals(of: session), summary: summary)
    }
}
