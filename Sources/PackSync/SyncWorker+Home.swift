import Foundation

/// The home networks a person added from the CLI (`handoff link`, `handoff sync home`).
///
/// They live in a small file of their own beside the link, not in handoff.toml: that file is the
/// person's (installed, root's), and the service's user must not rewrite it. The networks it
/// names and handoff.toml's `sync.home_ssids` together are home.
struct AddedHomeNetworks: Codable {
    var homeSSIDs: [String]

    enum CodingKeys: String, CodingKey { case homeSSIDs = "home_ssids" }

    /// The added networks; none when the file is absent. A damaged file is reported, not fatal.
    static func load(path: String) throws(SyncFailure) -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        guard let data = FileManager.default.contents(atPath: path),
            let file = try? JSONDecoder().decode(AddedHomeNetworks.self, from: data)
        else {
            throw SyncFailure(
                .pack, code: "home_networks_unreadable",
                message: "\(path) cannot be read: add the home network again with `handoff sync home NAME`")
        }
        return file.homeSSIDs
    }

    static func save(_ ssids: [String], path: String) throws(SyncError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try AtomicFile.replace(path, with: try encoder.encode(AddedHomeNetworks(homeSSIDs: ssids)), mode: 0o640)
        } catch {
            throw SyncError(code: "storage", message: "could not write \(path): \(error)")
        }
    }
}

/// handoff.toml's home networks and those added from the CLI.
struct HomeNetworks {
    let configured: [String]
    private(set) var added: [String] = []

    init(configured: [String]) { self.configured = configured }

    mutating func load(path: String) throws(SyncFailure) { added = try AddedHomeNetworks.load(path: path) }

    /// handoff.toml's networks and the added ones, in that order, each once.
    var all: [String] {
        var seen = Set<String>()
        return (configured + added).filter { seen.insert($0).inserted }
    }

    /// Adds `ssid`, kept in the file at `path` first.
    mutating func add(_ ssid: String, path: String) throws(SyncError) {
        try AddedHomeNetworks.save(added + [ssid], path: path)
        added.append(ssid)
    }

    /// Removes an added network; handoff.toml's cannot be removed from the CLI.
    mutating func remove(_ name: String, path: String) throws(SyncError) {
        guard added.contains(name) else {
            if configured.contains(name) {
                throw SyncError(
                    code: "configured",
                    message: "\"\(name)\" is home because handoff.toml says so: remove it from sync.home_ssids there")
            }
            throw SyncError(code: "not_found", message: "\"\(name)\" is not a home network")
        }
        let rest = added.filter { $0 != name }
        try AddedHomeNetworks.save(rest, path: path)
        added = rest
    }
}

extension SyncWorker {
    /// Whether finished runs upload without anyone asking: some network is home.
    var uploadsByItself: Bool {
        let policy = configuration.policy
        return policy.source == .always || policy.uploadAway || !policy.ssids.isEmpty
    }

    /// Why runs will not upload by themselves, and what to do; `nil` when they will.
    var homeAdvice: String? {
        guard !uploadsByItself else { return nil }
        let how =
            network.ssid.map {
                "If \"\($0)\", the Wi-Fi the pack is on now, is home, run `handoff sync home`; otherwise run `handoff sync home NAME` with your home Wi-Fi's name"
            } ?? "Run `handoff sync home NAME` with your home Wi-Fi's name"
        return
            "runs will not upload by themselves: no home Wi-Fi is set. \(how) (or set sync.home_ssids in handoff.toml). Until then `handoff sync` uploads when you ask"
    }

    /// The home networks, the Wi-Fi the pack is on, and whether runs upload by themselves.
    var networkStatus: NetworkStatus {
        let policy = configuration.policy
        return NetworkStatus(
            home: policy.allowsUpload(network), description: policy.describe(network), detail: network.detail,
            wifi: network.associated ? network.ssid : nil, homeNetworks: policy.ssids, configured: homes.configured,
            uploadsByItself: uploadsByItself, advice: homeAdvice)
    }

    /// The home networks, and whether the pack is on one now.
    public func homeNetworks(message: String? = nil) -> HomeNetworksStatus {
        let policy = configuration.policy
        let list = policy.ssids.map { "\"\($0)\"" }.joined(separator: ", ")
        let text: String
        if let message {
            text = message
        } else if policy.source == .always {
            text = "every network is home (sync.network = \"always\"): runs upload by themselves"
        } else if let advice = homeAdvice {
            text = advice
        } else {
            text = "runs upload by themselves on \(list); now \(policy.describe(network))"
        }
        return HomeNetworksStatus(network: networkStatus, message: text)
    }

    /// Makes `name` (default: the Wi-Fi the pack is on now) a home network.
    public func addHome(_ name: String?) throws(SyncError) -> HomeNetworksStatus {
        guard let ssid = name ?? (network.associated ? network.ssid : nil) else {
            throw SyncError(
                code: "no_wifi",
                message:
                    "the pack is not on Wi-Fi now (\(network.detail)): give the network's name, `handoff sync home NAME`"
            )
        }
        guard !ssid.isEmpty, ssid.utf8.count <= 32 else {
            throw SyncError(
                code: "bad_request", message: "\"\(ssid)\" cannot be a Wi-Fi name: a name has 1 to 32 bytes")
        }
        if configuration.policy.ssids.contains(ssid) {
            return homeNetworks(message: "\"\(ssid)\" is already a home network: runs upload by themselves on it")
        }
        try homes.add(ssid, path: configuration.homeNetworksPath)
        applyHomeNetworks()
        logger.notice("Home network added", metadata: ["ssid": "\(ssid)"])
        return homeNetworks(
            message:
                "\"\(ssid)\" is a home network: finished runs upload by themselves whenever the pack is on it"
                + (configuration.policy.allowsUpload(network) ? " (it is now)" : ""))
    }

    /// Stops treating `name` as home (only a network added from the CLI).
    public func removeHome(_ name: String) throws(SyncError) -> HomeNetworksStatus {
        try homes.remove(name, path: configuration.homeNetworksPath)
        applyHomeNetworks()
        logger.notice("Home network removed", metadata: ["ssid": "\(name)"])
        return homeNetworks(message: "\"\(name)\" is no longer a home network")
    }

    /// The policy follows the home networks; joining home forgives earlier failures.
    func applyHomeNetworks() {
        let wasHome = configuration.policy.allowsUpload(network)
        configuration.policy.ssids = homes.all
        if !wasHome && configuration.policy.allowsUpload(network) { health.forgiveFailures() }
        wakeup.poke()
    }
}
