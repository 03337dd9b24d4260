/// `GET /v1/runs/{uuid}`'s `hrv`: what the strap's beat-to-beat (RR) intervals say, when the run
/// has at least a minute of them. Intervals are corrected first (Lipponen & Tarvainen 2019);
/// when more than 5 % of beats needed it, `trusted` is false and only the counts are given.
public struct HRVView: Codable, Sendable, Hashable {
    /// One lap's RMSSD and SDNN (null with fewer than 30 beats in it).
    public struct Lap: Codable, Sendable, Hashable {
        public var lap: Int
        public var rmssdMs: Double?
        public var sdnnMs: Double?

        public init(lap: Int, rmssdMs: Double?, sdnnMs: Double?) {
            self.lap = lap
            self.rmssdMs = rmssdMs
            self.sdnnMs = sdnnMs
        }

        enum CodingKeys: String, CodingKey {
            case lap
            case rmssdMs = "rmssd_ms"
            case sdnnMs = "sdnn_ms"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(lap, forKey: .lap)
            try c.encode(rmssdMs, forKey: .rmssdMs)
            try c.encode(sdnnMs, forKey: .sdnnMs)
        }
    }

    public var beats: Int
    /// Corrected beats over all beats, 0 to 1.
    public var artifactShare: Double
    public var trusted: Bool
    public var rmssdMs: Double?
    public var sdnnMs: Double?
    /// `[t_s, value]`: DFA-α1 over the 2 minutes before `t_s` seconds from the start, every 5 s.
    public var dfaAlpha1: [[Double]]
    /// The heart rate where α1 crosses 0.75 (Rogers et al. 2021), when the run crossed it.
    public var aerobicThresholdBpm: Double?
    /// The heart rate where α1 crosses 0.5, when the run crossed it.
    public var anaerobicThresholdBpm: Double?
    public var laps: [Lap]
    /// The correction's name.
    public var method: String

    public init(
        beats: Int, artifactShare: Double, trusted: Bool, rmssdMs: Double?, sdnnMs: Double?, dfaAlpha1: [[Double]],
        aerobicThresholdBpm: Double?, anaerobicThresholdBpm: Double?, laps: [Lap], method: String
    ) {
        self.beats = beats
        self.artifactShare = artifactShare
        self.trusted = trusted
        self.rmssdMs = rmssdMs
        self.sdnnMs = sdnnMs
        self.dfaAlpha1 = dfaAlpha1
        self.aerobicThresholdBpm = aerobicThresholdBpm
        self.anaerobicThresholdBpm = anaerobicThresholdBpm
        self.laps = laps
        self.method = method
    }

    enum CodingKeys: String, CodingKey {
        case beats, trusted, laps, method
        case artifactShare = "artifact_share"
        case rmssdMs = "rmssd_ms"
        case sdnnMs = "sdnn_ms"
        case dfaAlpha1 = "dfa_alpha1"
        case aerobicThresholdBpm = "aerobic_threshold_bpm"
        case anaerobicThresholdBpm = "anaerobic_threshold_bpm"
    }

    /// Every field is written; what cannot be trusted or was not reached is null.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(beats, forKey: .beats)
        try c.encode(artifactShare, forKey: .artifactShare)
        try c.encode(trusted, forKey: .trusted)
        try c.encode(rmssdMs, forKey: .rmssdMs)
        try c.encode(sdnnMs, forKey: .sdnnMs)
        try c.encode(dfaAlpha1, forKey: .dfaAlpha1)
        try c.encode(aerobicThresholdBpm, forKey: .aerobicThresholdBpm)
        try c.encode(anaerobicThresholdBpm, forKey: .anaerobicThresholdBpm)
        try c.encode(laps, forKey: .laps)
        try c.encode(method, forKey: .method)
    }
}
