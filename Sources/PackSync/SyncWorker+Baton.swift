import Foundation
import HandoffModel
import PackStorage

/// What `handoff start` did about the baton.
public enum BatonAtStart: Sendable, Hashable {
    /// Taken online: the run is the holder's relay leg.
    case held(group: Int64, message: String)
    /// The store could not be reached: the run carries a claim, settled at upload.
    case offline(group: Int64, message: String)
    /// Without the baton: asked for (`--solo`), or another member holds it.
    case solo(group: Int64?, message: String)
    /// Not linked: the baton does not apply.
    case none

    public var message: String? {
        switch self {
        case .held(_, let m), .offline(_, let m), .solo(_, let m): m
        case .none: nil
        }
    }

    /// How the journal notes it (`session.baton_mode`).
    public var mode: (group: Int64?, mode: BatonMode)? {
        switch self {
        case .held(let g, _): (g, .held)
        case .offline(let g, _): (g, .offline)
        case .solo(let g, _): (g, .solo)
        case .none: nil
        }
    }
}

/// The baton from the pack: taken at the start of a run, shown, passed on after the run synced.
extension SyncWorker {
    /// A client that gives up quickly: starting a run must not wait for a slow network.
    var quickClient: StoreClient? {
        guard let link, let url = try? StoreClient.url(link.store) else { return nil }
        return StoreClient(base: url, token: link.token, timeoutSeconds: configuration.batonTimeoutSeconds)
    }

    /// The group whose baton this pack carries: `[sync] group`, else the account's only group
    /// (remembered in the link file, for starts without a network).
    func batonGroup(_ client: StoreClient) async throws(SyncFailure) -> Int64 {
        if let configured = configuration.batonGroup { return configured }
        let groups = try await client.groups()
        guard groups.count == 1, let group = groups.first else {
            throw SyncFailure(
                .refused, code: groups.isEmpty ? "no_group" : "which_group",
                message: groups.isEmpty
                    ? "your account is in no group: join one on the store (an invite code) to carry its baton"
                    : "your account is in \(groups.count) groups (\(groups.map { "\($0.id) \($0.name)" }.joined(separator: ", "))): set [sync] group = ID in handoff.toml"
            )
        }
        connection.remember(group: group.id, path: configuration.linkPath)
        return group.id
    }

    /// At `handoff start`: takes the baton when the pack is online and it is free; runs solo
    /// when another member holds it; claims it when the store cannot be reached.
    public func batonForStart(solo: Bool) async -> BatonAtStart {
        let known = configuration.batonGroup ?? link?.groupID
        if solo { return .solo(group: known, message: "Running solo, without the baton.") }
        guard let client = quickClient, health.unlinkedByStore == nil else { return .none }
        do {
            let group = try await batonGroup(client)
            switch try await client.takeBaton(group: group) {
            case .taken:
                passes.baton = BatonSeen(yours: true, asked: now())
                return .held(group: group, message: "You hold the baton: this run is your relay leg.")
            case .held(let message): return .solo(group: group, message: "Running solo: \(message).")
            }
        } catch {
            if error.action == .retry, let group = known {
                return .offline(
                    group: group,
                    message:
                        "The store cannot be reached: the run claims the baton, and the store settles the claim when the run syncs."
                )
            }
            return .solo(group: known, message: "Running solo: \(error.message).")
        }
    }

    /// `handoff baton`; `recording` is the run being recorded now, if one is.
    public func batonStatus(recording: Int64? = nil) async throws(SyncError) -> BatonStatus {
        guard let client, let link else {
            throw SyncError(
                code: "not_linked", message: "this pack is not linked to a store: `handoff link --store URL`")
        }
        do {
            let group = try await batonGroup(client)
            let (state, legs) = try await client.baton(group: group)
            var report = Self.report(group: group, state: state, legs: legs, username: link.username)
            passes.baton = BatonSeen(yours: report.youHold, asked: now())
            if let recording, report.youHold {
                report.message = "You hold the baton: run \(recording), being recorded, is your relay leg."
            } else if let recording, state.holder == nil {
                // Free on the store, but this pack is out with a run: say what that run is.
                let mode = (try? database.baton(of: SessionID(recording)))??.mode
                report.message =
                    mode == .offline
                    ? "The baton is free on the store; run \(recording), being recorded, claimed it offline: it becomes your leg when the run uploads, if nobody took it meanwhile."
                    : "The baton is free; run \(recording) is being recorded without it (solo), so the next run can take it."
            }
            return report
        } catch {
            throw SyncError(code: error.code, message: error.message)
        }
    }

    /// `handoff baton pass [MEMBER]`: only once the pack's runs are on the store, so that the leg
    /// being handed on has its distance.
    public func passBaton(to member: String?) async throws(SyncError) -> BatonStatus {
        guard let client, let link else {
            throw SyncError(
                code: "not_linked", message: "this pack is not linked to a store: `handoff link --store URL`")
        }
        let waiting: [OutboxEntry]
        do { waiting = try database.outboxWaiting() } catch {
            throw SyncError(code: "storage", message: "could not read the outbox: \(error)")
        }
        if let first = waiting.first {
            throw SyncError(
                code: "not_synced",
                message:
                    "run \(first.session) has not reached the store yet: `handoff sync`, then pass the baton (so your leg's distance counts)"
            )
        }
        do {
            let group = try await batonGroup(client)
            let state = try await client.passBaton(group: group, to: member)
            var report = Self.report(group: group, state: state, legs: [], username: link.username)
            passes.baton = BatonSeen(yours: report.youHold, asked: now())
            report.message = "Passed the baton to \(state.holder ?? member ?? "the next runner")."
            return report
        } catch {
            throw SyncError(code: error.code, message: error.message)
        }
    }

    /// How often a pack that is home with nothing to upload asks the store whose the baton is.
    static let batonLookSeconds: Int64 = 300

    /// After a look at the outbox: asks the store whose the baton is, when the look uploaded runs
    /// or the last answer is older than `batonLookSeconds`, so the LED says when the baton was
    /// passed to this runner. Quietly nothing when the store cannot say (no group, no network).
    func lookAtBaton(uploaded: Bool) async {
        guard let client = quickClient, let link, (configuration.batonGroup ?? link.groupID) != nil || uploaded
        else { return }
        let now = now()
        if !uploaded, let asked = passes.baton.asked,
            now.nanosecondsSinceEpoch - asked.nanosecondsSinceEpoch < Self.batonLookSeconds * 1_000_000_000
        {
            return
        }
        guard let group = try? await batonGroup(client), let state = try? await client.baton(group: group).0
        else { return }
        let yours = state.holder != nil && state.holder == link.username
        if yours && !passes.baton.yours { logger.info("The baton is this runner's: the LED says so") }
        passes.baton = BatonSeen(yours: yours, asked: now)
    }

    static func report(
        group: Int64, state: StoreClient.BatonState, legs: [[String: String]], username: String?
    ) -> BatonStatus {
        let mine = state.holder != nil && state.holder == username
        let message =
            switch state.holder {
            case .some(let holder): mine ? "You hold the baton." : "\(holder) holds the baton."
            case .none: "The baton is free: `handoff start` takes it."
            }
        return BatonStatus(
            group: group, holder: state.holder, since: state.since, expiresAt: state.expiresAt, youHold: mine,
            legs: legs, message: message)
    }
}
