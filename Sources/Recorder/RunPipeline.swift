import HandoffModel
import SensorCodecs

/// Raw capture events in, recorder outputs out: the codecs and the recorder together. Live
/// sensors and replayed captures both go through here, so a capture reproduces a run exactly.
public struct RunPipeline: Sendable {
    public private(set) var recorder: Recorder
    public private(set) var decoding: [SensorID: DecodeCounts] = [:]
    /// Each NMEA receiver's epoch assembly, and each gpsd device's TPV merging.
    private var nmea: [SensorID: NMEAFixAssembler] = [:]
    private var gpsd: [SensorID: GpsdFixMerger] = [:]
    /// Each Zephyr HxM's last frame, whose beats the next frame's RR intervals continue.
    private var hxm: [SensorID: HxMGeneralData] = [:]

    /// The latest event time seen, for `maximumJump`.
    private var latest: MonotonicInstant?

    /// The furthest one event may come after (or before) the latest before it: a day. A pack's
    /// monotonic clock cannot jump so far; a capture whose clock does is corrupt, and following
    /// it would make a point for every second of the jump (a stop at 2^63 ns once asked for 292
    /// years of points). Such an event is skipped, with the reason in `Step.decodeError`.
    public static let maximumJump: Int64 = 86_400 * 1_000_000_000

    public init(configuration: RecorderConfiguration = RecorderConfiguration(), sensors: [SensorDescriptor] = []) {
        recorder = Recorder(configuration: configuration)
        for sensor in sensors { recorder.register(sensor) }
    }

    /// The result of one event.
    public struct Step: Sendable {
        public var outputs: [RecorderOutput] = []
        /// The payload could not be decoded (it is counted, and time still advanced).
        public var decodeError: String?
        /// The command did not apply in the recorder's state.
        public var commandError: RecorderError?
    }

    /// How a sensor's payloads fared.
    public struct DecodeCounts: Hashable, Sendable {
        public var decoded = 0
        /// Valid but not for the recorder (proprietary or other NMEA sentences, unknown kinds).
        public var skipped = 0
        public var rejected = 0
        public var lastError: String?

        public init() {}
    }

    public mutating func register(_ sensor: SensorDescriptor) { recorder.register(sensor) }

    public mutating func process(_ event: CaptureEvent) -> Step {
        var step = Step()
        if let latest {
            let (jump, overflow) = event.monotonic.nanoseconds.subtractingReportingOverflow(latest.nanoseconds)
            if overflow || jump > Self.maximumJump || jump < -Self.maximumJump {
                let span = overflow ? "centuries" : "\(abs(jump) / 1_000_000_000) s"
                step.decodeError =
                    "an event \(span) \(jump < 0 ? "before" : "after") the latest was skipped: a pack's clock cannot jump so far"
                return step
            }
        }
        if event.monotonic > (latest ?? event.monotonic) || latest == nil { latest = event.monotonic }
        switch event.body {
        case .command(let command, let sport):
            do {
                step.outputs = try recorder.handle(command, at: event.monotonic, wall: event.wall, sport: sport ?? .run)
            } catch {
                step.commandError = error
                step.outputs = recorder.advance(to: event.monotonic)
            }
        case .clock(let synchronized):
            recorder.wallClockSynchronized = synchronized
            step.outputs = recorder.advance(to: event.monotonic)
        case .link(let sensor, let state, let reason):
            step.outputs = recorder.receive(
                SensorReading(time: event.monotonic, sensor: sensor, value: .link(state, reason: reason)))
        case .payload(let sensor, let kind, let payload):
            switch decode(kind: kind, payload: payload, sensor: sensor) {
            case .value(let value):
                decoding[sensor, default: DecodeCounts()].decoded += 1
                step.outputs = recorder.receive(SensorReading(time: event.monotonic, sensor: sensor, value: value))
            case .pending:
                decoding[sensor, default: DecodeCounts()].decoded += 1
                step.outputs = recorder.advance(to: event.monotonic)
            case .skipped:
                decoding[sensor, default: DecodeCounts()].skipped += 1
                step.outputs = recorder.advance(to: event.monotonic)
            case .rejected(let reason):
                decoding[sensor, default: DecodeCounts()].rejected += 1
                decoding[sensor]!.lastError = reason
                step.decodeError = reason
                step.outputs = recorder.advance(to: event.monotonic)
            }
        }
        return step
    }

    /// Moves the recorder's time on to `time` (the pack's clock ticking). A time more than
    /// `maximumJump` after the latest one is ignored, as an event would be.
    public mutating func advance(to time: MonotonicInstant) -> [RecorderOutput] {
        if let latest {
            let (jump, overflow) = time.nanoseconds.subtractingReportingOverflow(latest.nanoseconds)
            guard !overflow, jump <= Self.maximumJump else { return [] }
        }
        if time > (latest ?? time) || latest == nil { latest = time }
        return recorder.advance(to: time)
    }

    enum Decoded {
        case value(SensorReading.Value)
        /// Decoded, and part of a value still being assembled (an epoch's first sentences).
        case pending
        case skipped
        case rejected(String)
    }

    mutating func decode(kind: PayloadKind, payload: Payload, sensor: SensorID) -> Decoded {
        switch (kind, payload) {
        case (.heartRateMeasurement, .bytes(let bytes)):
            do { return .value(.heartRate(try HeartRateMeasurement(decoding: bytes))) } catch {
                return .rejected("heart rate measurement: \(error)")
            }
        case (.rscMeasurement, .bytes(let bytes)):
            do { return .value(.runningSpeedCadence(try RSCMeasurement(decoding: bytes))) } catch {
                return .rejected("RSC measurement: \(error)")
            }
        case (.cscMeasurement, .bytes(let bytes)):
            do { return .value(.cyclingSpeedCadence(try CSCMeasurement(decoding: bytes))) } catch {
                return .rejected("CSC measurement: \(error)")
            }
        case (.batteryLevel, .bytes(let bytes)):
            do { return .value(.battery(try BatteryLevel(decoding: bytes).percent)) } catch {
                return .rejected("battery level: \(error)")
            }
        case (.zephyrHxM, .bytes(let bytes)):
            guard let frame = ZephyrFramer.frame(exactly: bytes), let packet = try? HxMGeneralData(frame: frame) else {
                return .rejected("HxM frame: not one whole General Data frame with a valid CRC (\(bytes.count) bytes)")
            }
            let rr = packet.newRRIntervalsMilliseconds(since: hxm[sensor])
            hxm[sensor] = packet
            return .value(.heartRate(Self.heartRate(Int(packet.heartRate), rrMilliseconds: rr)))
        case (.polarWearLink, .bytes(let bytes)):
            guard let packet = PolarWearLinkPacket(packet: bytes) else {
                return .rejected("Polar packet: not one valid WearLink+ packet (\(bytes.count) bytes)")
            }
            return .value(
                .heartRate(Self.heartRate(Int(packet.heartRate), rrMilliseconds: packet.rrIntervalsMilliseconds)))
        case (.nmea, .text(let line)):
            let report: NMEAReport
            let address: String
            do {
                let sentence = try NMEASentence(parsing: line)
                address = sentence.isProprietary ? "P" + sentence.type : sentence.talker + sentence.type
                report = try NMEAReport(sentence)
            } catch {
                switch error {
                case .proprietary, .unsupported: return .skipped
                default: return .rejected("NMEA: \(error)")
                }
            }
            guard let fix = nmea[sensor, default: NMEAFixAssembler()].add(report, address: address) else {
                return .pending
            }
            return .value(.gnss(fix))
        case (.gpsd, .text(let line)):
            let report: GpsdReport
            do { report = try GpsdReport(line: line) } catch { return .rejected("gpsd: \(error)") }
            switch report {
            case .tpv, .sky:
                guard let fix = gpsd[sensor, default: GpsdFixMerger()].add(report) else { return .pending }
                return .value(.gnss(fix))
            case .devices, .other, .error: return .skipped
            }
        case (.steps, .text(let text)):
            guard let count = Int(text), count >= 0 else { return .rejected("steps: '\(text)' is not a count") }
            return .value(.steps(count))
        case (.heartRateMeasurement, .text), (.rscMeasurement, .text), (.cscMeasurement, .text), (.batteryLevel, .text),
            (.zephyrHxM, .text), (.polarWearLink, .text):
            return .rejected("\(kind) payload must be bytes (\"hex\"), not text")
        case (.nmea, .bytes), (.gpsd, .bytes), (.steps, .bytes):
            return .rejected("\(kind) payload must be text, not bytes")
        default:
            return .skipped
        }
    }

    /// A classic strap's reading as the Heart Rate Measurement the recorder takes: RR intervals
    /// from milliseconds to the GATT unit of 1/1024 s (rounded: at most 0.5/1024 s off).
    static func heartRate(_ bpm: Int, rrMilliseconds: [UInt16]) -> HeartRateMeasurement {
        HeartRateMeasurement(
            heartRate: UInt16(bpm), valueFormat: .uint8, sensorContact: .notSupported, energyExpendedKilojoules: nil,
            rrIntervals1024ths: rrMilliseconds.map { UInt16(min(65_535, (Double($0) * 1.024).rounded())) })
    }
}
