import Foundation
import HandoffModel

extension SyncWorker {
    /// What `handoff doctor` says about the store: linked, reachable, and the token still good.
    /// It asks the store (health, then the account's groups with the pack's token), so it takes
    /// up to the request time-out.
    public func doctorStoreCheck() async -> SyncCheck {
        guard let link, let client else {
            if let reason = health.unlinkedByStore {
                return SyncCheck(
                    "store", .problem, "the store refused the pack's link: \(reason)",
                    action: "link again: `handoff link --store URL`")
            }
            return SyncCheck(
                "store", .warning, "not linked to a group store: finished runs stay on the pack",
                action: "`handoff link --store URL` (the store's address, e.g. https://runs.example.org)")
        }
        let home = configuration.policy.allowsUpload(network)
        do {
            _ = try await client.health()
        } catch {
            // Away from home the store is not expected to answer.
            return SyncCheck(
                "store", home ? .problem : .warning, "\(link.store) does not answer: \(error.message)",
                action: home
                    ? "check that the store is up and its address in \(configuration.linkPath) is right; runs wait in the outbox"
                    : "runs go when the pack is home (\(configuration.policy.describe(network)))")
        }
        do {
            _ = try await client.groups()
        } catch {
            if error.action == .unlinked {
                return SyncCheck(
                    "store", .problem, "\(link.store) refused the pack's token (revoked or expired)",
                    action: "link again: `handoff link --store \(link.store)`")
            }
            return SyncCheck(
                "store", .problem, "\(link.store) answers but the token could not be checked: \(error.message)",
                action: "try `handoff sync status`; if it persists, link again")
        }
        let who = link.username.map { " as \($0)" } ?? ""
        return SyncCheck("store", .ok, "\(link.store) answers; the pack is linked\(who) and its token is valid")
    }

    /// What `handoff doctor` says about home networks.
    public func doctorNetworkCheck() -> SyncCheck {
        let policy = configuration.policy
        if policy.source == .always {
            return SyncCheck("network.home", .ok, "uploads on any network (sync.network = \"always\")")
        }
        if policy.ssids.isEmpty && !policy.uploadAway {
            return SyncCheck(
                "network.home", .problem, "no home Wi-Fi is set, so runs will not upload by themselves",
                action:
                    "on your home Wi-Fi run `handoff sync home` (elsewhere `handoff sync home NAME`, or set sync.home_ssids in handoff.toml); until then `handoff sync` uploads when you ask"
            )
        }
        let homes = policy.ssids.map { "\"\($0)\"" }.joined(separator: ", ")
        let detail = network.detail
        if detail.hasPrefix("cannot") || detail.contains("failed") || detail.contains("does not answer") {
            return SyncCheck(
                "network.home", .problem, "cannot read the Wi-Fi state: \(network.detail)",
                action: "check that wpa_supplicant runs or that iw is installed; see docs/sync.md#home")
        }
        return SyncCheck(
            "network.home", .ok, "home is \(homes); now \(policy.describe(network))")
    }
}
