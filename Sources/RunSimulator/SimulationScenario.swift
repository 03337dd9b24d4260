import HandoffModel
import SensorCodecs

/// What run to simulate. The defaults make the demo capture committed in the repository.
public struct SimulationScenario: Hashable, Sendable {
    public var seed: UInt64
    /// Loops of the ~5 km route to run (ignored when `minutes` is set).
    public var loops: Int
    /// Run for this long, then slow down and stop wherever the runner is.
    public var minutes: Double?
    /// The wall-clock time at the capture's first moment.
    public var startWall: WallInstant
    /// Whether the receiver sends RMC (with its Doppler speed) besides GGA; some send GGA alone.
    public var gpsSendsRMC: Bool
    /// A run (strap, footpod, GPS) or a ride (strap, the bike's CSC sensor, GPS); a walk is not simulated.
    public var sport: RunSport
    /// A ride's wheel, in metres (a 700×25C road tyre).
    public var wheelCircumferenceMeters: Double

    public init(
        seed: UInt64 = 7, loops: Int = 1, minutes: Double? = nil, startWall: WallInstant? = nil,
        gpsSendsRMC: Bool = true, sport: RunSport = .run, wheelCircumferenceMeters: Double = 2.105
    ) {
        self.sport = sport == .bike ? .bike : .run
        self.wheelCircumferenceMeters = wheelCircumferenceMeters
        self.seed = seed
        self.loops = max(1, loops)
        self.minutes = minutes
        self.gpsSendsRMC = gpsSendsRMC
        self.startWall =
            startWall
            ?? CivilTime(year: 2026, month: 6, day: 14, hour: 6, minute: 29, second: 18, nanosecond: 350_000_000)
            .instant
    }
}

/// A simulated run: a capture (header and events) and what is true about it.
public struct SimulatedRun: Sendable {
    public var header: CaptureHeader
    public var events: [CaptureEvent]

    public var truth: SimulationTruth { header.simulation! }

    /// The capture as JSON Lines, ending with a newline.
    public var captureText: String {
        var text = CaptureCodec.encode(header) + "\n"
        text.reserveCapacity(events.count * 96)
        for event in events {
            text += CaptureCodec.encode(event)
            text += "\n"
        }
        return text
    }
}
