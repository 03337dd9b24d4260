import PackSync

/// `[sync]`: uploads to the group store: where the link file is (default: beside the journal),
/// which Wi-Fi is home and how to read it, retries and time-outs. `[privacy]` is read into
/// `privacy`: its zones only matter to uploads.
public struct SyncSection: ConfigurationSection {
    static let name = "sync"
    public var enabled = true
    public var linkPath: String?
    /// Which Wi-Fi is home and how the pack reads it.
    public var home = Home()
    public var retryMinimumSeconds = 30.0
    public var retryMaximumSeconds = 3600.0
    public var timeoutSeconds = 60.0
    /// How long `handoff start` waits for the store to hand over the baton.
    public var batonTimeoutSeconds = 4.0
    /// The pack's name on the store (default: the host name).
    public var deviceName: String?
    /// The group whose baton the pack carries (`[sync] group`; default: the account's only one).
    public var group: Int64?
    /// `[privacy]`.
    public var privacy = PrivacySection()
    /// `[live]`.
    public var live = LiveSection()

    /// The home Wi-Fi keys of `[sync]`.
    public struct Home: Sendable {
        public var ssids: [String] = []
        public var network: NetworkSource = .auto
        public var interface = "wlan0"
        public var wpaDirectory = "/run/wpa_supplicant"
        public var uploadAway = false

        public init() {}
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let v = try s.bool("enabled") { enabled = v }
        if let v = try s.string("link_file"), !v.isEmpty { linkPath = v }
        if let v = try s.strings("home_ssids") { home.ssids = v }
        if let v = try s.string("network") {
            guard let source = NetworkSource(rawValue: v) else {
                throw s.error(
                    "network", "must be one of \(NetworkSource.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            home.network = source
        }
        if let v = try s.string("interface") {
            guard !v.isEmpty, v.count < 16, !v.contains("/") else {
                throw s.error("interface", "must name a network interface such as wlan0")
            }
            home.interface = v
        }
        if let v = try s.string("wpa_supplicant_dir") { home.wpaDirectory = v }
        if let v = try s.bool("upload_away") { home.uploadAway = v }
        if let v = try s.number("retry_min_s", in: 0.01...86_400) { retryMinimumSeconds = v }
        if let v = try s.number("retry_max_s", in: 0.01...86_400) { retryMaximumSeconds = v }
        if let v = try s.number("timeout_s", in: 1...3600) { timeoutSeconds = v }
        if let v = try s.number("baton_timeout_s", in: 1...60) { batonTimeoutSeconds = v }
        if let v = try s.string("device_name") {
            guard (1...64).contains(v.count) else { throw s.error("device_name", "must be 1 to 64 characters") }
            deviceName = v
        }
        if let v = try s.number("group", in: 1...9e15) {
            guard v == v.rounded() else { throw s.error("group", "must be a group's id, a whole number") }
            group = Int64(v)
        }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {
        if retryMaximumSeconds < retryMinimumSeconds {
            throw .key("sync.retry_max_s", "must not be less than retry_min_s")
        }
    }
}

/// `[live]`: sending a run as it happens to the store (issue 35), whenever the pack has a network.
public struct LiveSection: ConfigurationSection {
    static let name = "live"
    public var settings = LiveSettings()

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let v = try s.bool("enabled") { settings.enabled = v }
        if let v = try s.number("interval_s", in: 5...300) {
            guard v == v.rounded() else { throw s.error("interval_s", "must be whole seconds, 5 to 300") }
            settings.intervalSeconds = Int(v)
        }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {}
}

/// `[privacy]`: circles whose points never leave the pack.
public struct PrivacySection: ConfigurationSection {
    static let name = "privacy"
    public var zones: [PrivacyZone] = []

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let entries = try s.tables("zones", of: ZoneEntry.self) {
            zones = []
            for (i, entry) in entries.enumerated() {
                zones.append(try entry.zone(i, s))
            }
        }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {}

    /// One table of `zones`, as written.
    struct ZoneEntry: Decodable {
        static let fields = ["name", "lat", "lon", "radius_m"]
        var keys: [String]
        var name: String?
        var numbers: [String: Double] = [:]

        init(from decoder: any Decoder) throws {
            let table = try decoder.container(keyedBy: TOMLKey.self)
            keys = table.allKeys.map(\.stringValue)
            name = try? table.decode(String.self, forKey: TOMLKey("name"))
            for field in Self.fields.dropFirst() {
                let key = TOMLKey(field)
                numbers[field] =
                    (try? table.decode(Double.self, forKey: key))
                    ?? (try? table.decode(Int.self, forKey: key)).map(Double.init)
            }
        }

        /// The zone, the `i`th of the list: every number there and in range, no other key.
        func zone(_ i: Int, _ s: SectionReader) throws(ConfigurationError) -> PrivacyZone {
            let key = "zones[\(i)]"
            func number(_ field: String, _ range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
                guard let d = numbers[field] else { throw s.error("\(key).\(field)", "must be a number") }
                guard range.contains(d) else {
                    throw s.error(
                        "\(key).\(field)", "is \(d); it must be between \(range.lowerBound) and \(range.upperBound)")
                }
                return d
            }
            for field in keys where !Self.fields.contains(field) {
                throw s.error(key, "has an unknown key \(field) (known: name, lat, lon, radius_m)")
            }
            return PrivacyZone(
                name: name ?? "zone \(i + 1)", latitude: try number("lat", -90...90),
                longitude: try number("lon", -180...180), radiusMeters: try number("radius_m", 1...100_000))
        }
    }
}
