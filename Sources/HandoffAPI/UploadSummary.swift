/// The `summary` part of a run's upload (`PUT /v1/runs/{uuid}`, multipart/form-data): what the
/// pack knows that the FIT file does not say. The store keeps the part as sent, whatever object
/// it is; it reads only `baton_claim`. Reading is lenient: a field of another type reads as
/// absent, so one odd field never hides the others.
public struct UploadSummary: Codable, Sendable, Hashable {
    /// A run started offline while the pack held, or claimed, the group's baton
    /// (docs/group-store.md, "Offline baton claims"): `{"group_id": N}`.
    public struct BatonClaim: Codable, Sendable, Hashable {
        public var groupID: Int64

        public init(groupID: Int64) { self.groupID = groupID }

        enum CodingKeys: String, CodingKey { case groupID = "group_id" }

        /// Any JSON number that is a whole, positive id (`3` and `3.0` alike).
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let number = try c.decode(Double.self, forKey: .groupID)
            guard number == number.rounded(), number > 0, number < 9e15 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .groupID, in: c, debugDescription: "group_id is a positive whole number")
            }
            groupID = Int64(number)
        }
    }

    /// `handoff VERSION`.
    public var pack: String?
    /// The pack's session number.
    public var run: Int64?
    public var clockSource: String?
    /// The run was recovered after the pack stopped mid-run.
    public var recovered: Bool?
    /// The run's source (`replay` for a replayed capture).
    public var source: String?
    public var batonClaim: BatonClaim?
    public var distanceM: Double?
    public var elapsedS: Double?

    public init(
        pack: String? = nil, run: Int64? = nil, clockSource: String? = nil, recovered: Bool? = nil,
        source: String? = nil, batonClaim: BatonClaim? = nil, distanceM: Double? = nil, elapsedS: Double? = nil
    ) {
        self.pack = pack
        self.run = run
        self.clockSource = clockSource
        self.recovered = recovered
        self.source = source
        self.batonClaim = batonClaim
        self.distanceM = distanceM
        self.elapsedS = elapsedS
    }

    enum CodingKeys: String, CodingKey {
        case pack, run, recovered, source
        case clockSource = "clock_source"
        case batonClaim = "baton_claim"
        case distanceM = "distance_m"
        case elapsedS = "elapsed_s"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func field<T: Decodable>(_ key: CodingKeys) -> T? { (try? c.decodeIfPresent(T.self, forKey: key)) ?? nil }
        pack = field(.pack)
        run = field(.run)
        clockSource = field(.clockSource)
        recovered = field(.recovered)
        source = field(.source)
        batonClaim = field(.batonClaim)
        distanceM = field(.distanceM)
        elapsedS = field(.elapsedS)
    }
}
