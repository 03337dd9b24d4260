import HandoffModel

/// The capture format: JSON Lines, a header line then one event per line.
/// `docs/capture-format.md` is its specification; this type is its only reader and writer.
public enum CaptureCodec {
    /// The header line's identifying member: `{"handoff_capture":1,…}`.
    public static let headerKey = "handoff_capture"

    // MARK: Writing

    public static func encode(_ header: CaptureHeader) -> String {
        var object = JSONObject()
        object.append(headerKey, .integer(Int64(header.version)))
        if let createdBy = header.createdBy { object.append("created_by", .string(createdBy)) }
        object.append("sensors", .array(header.sensors.map { .object(encode($0)) }))
        if let truth = header.simulation {
            var sim = JSONObject()
            sim.append("seed", .integer(Int64(bitPattern: truth.seed)))
            sim.append("route_distance_m", .double(truth.routeDistanceMeters))
            sim.append("avg_hr_bpm", .double(truth.averageHeartRate))
            sim.append("hr_samples", .integer(Int64(truth.heartRateSamples)))
            sim.append("rr_intervals", .integer(Int64(truth.rrIntervals)))
            if let ride = truth.ride {
                var r = JSONObject()
                r.append("wheel_circumference_m", .double(ride.wheelCircumferenceMeters))
                r.append("avg_crank_rpm", .double(ride.averageCrankRPM))
                sim.append("ride", .object(r))
            }
            object.append("simulation", .object(sim))
        }
        var writer = JSONWriter()
        writer.write(.object(object))
        return writer.text
    }

    static func encode(_ sensor: SensorDescriptor) -> JSONObject {
        var object = JSONObject()
        object.append("id", .string(sensor.id.rawValue))
        object.append("kind", .string(sensor.kind.rawValue))
        if let name = sensor.name { object.append("name", .string(name)) }
        if let address = sensor.address { object.append("address", .string(address)) }
        if let transport = sensor.transport { object.append("transport", .string(transport.rawValue)) }
        return object
    }

    /// One event as a line of JSON (without the newline). Members are always in the same order.
    public static func encode(_ event: CaptureEvent) -> String {
        var w = JSONWriter(capacity: 120)
        w.raw("{")
        w.key("mono_ns")
        w.write(event.monotonic.nanoseconds)
        if let wall = event.wall {
            w.raw(",")
            w.key("wall_ns")
            w.write(wall.nanosecondsSinceEpoch)
        }
        switch event.body {
        case .payload(let sensor, let kind, let payload):
            w.raw(",")
            w.key("sensor")
            w.write(sensor.rawValue)
            w.raw(",")
            w.key("kind")
            w.write(kind.rawValue)
            switch payload {
            case .bytes(let bytes):
                w.raw(",")
                w.key("hex")
                w.write(Hex.encode(bytes))
            case .text(let text):
                w.raw(",")
                w.key("text")
                w.write(text)
            }
        case .link(let sensor, let state, let reason):
            w.raw(",")
            w.key("sensor")
            w.write(sensor.rawValue)
            w.raw(",\"kind\":\"link\",")
            w.key("state")
            w.write(state.rawValue)
            if let reason {
                w.raw(",")
                w.key("reason")
                w.write(reason)
            }
        case .command(let command, let sport):
            w.raw(",\"kind\":\"command\",")
            w.key("command")
            w.write(command.rawValue)
            // Only when named: a run's capture without it is a run, and reads as before.
            if let sport {
                w.raw(",")
                w.key("sport")
                w.write(sport.rawValue)
            }
        case .clock(let synchronized):
            w.raw(",\"kind\":\"clock\",\"synchronized\":")
            w.raw(synchronized ? "true" : "false")
        }
        w.raw("}")
        return w.text
    }

    // MARK: Reading

    /// Reads a header line.
    public static func decodeHeader(_ line: String) throws(CaptureError) -> CaptureHeader {
        let object = try parseObject(line)
        guard let versionValue = object[headerKey] else { throw .notAHeader }
        guard let version = versionValue.int64Value else { throw .wrongType(field: headerKey, expected: "an integer") }
        guard version == Int64(CaptureHeader.currentVersion) else { throw .unsupportedVersion(Int(version)) }
        guard let sensorValues = object["sensors"]?.arrayValue else {
            throw .missingField("sensors")
        }
        var sensors: [SensorDescriptor] = []
        for value in sensorValues {
            guard let s = value.objectValue else { throw .wrongType(field: "sensors", expected: "objects") }
            sensors.append(
                SensorDescriptor(
                    id: SensorID(try requiredString(s, "id")),
                    kind: SensorKind(rawValue: try requiredString(s, "kind")),
                    name: try optionalString(s, "name"),
                    address: try optionalString(s, "address"),
                    transport: try optionalString(s, "transport").map(SensorTransport.init(rawValue:))))
        }
        var truth: SimulationTruth?
        if let sim = object["simulation"]?.objectValue {
            truth = SimulationTruth(
                seed: UInt64(bitPattern: try requiredInteger(sim, "seed")),
                routeDistanceMeters: try requiredNumber(sim, "route_distance_m"),
                averageHeartRate: try requiredNumber(sim, "avg_hr_bpm"),
                heartRateSamples: Int(try requiredInteger(sim, "hr_samples")),
                rrIntervals: Int(try requiredInteger(sim, "rr_intervals")))
            if let ride = sim["ride"]?.objectValue {
                truth?.ride = RideTruth(
                    wheelCircumferenceMeters: try requiredNumber(ride, "wheel_circumference_m"),
                    averageCrankRPM: try requiredNumber(ride, "avg_crank_rpm"))
            }
        }
        return CaptureHeader(
            version: Int(version), sensors: sensors, createdBy: try optionalString(object, "created_by"),
            simulation: truth)
    }

    /// Reads an event line.
    public static func decodeEvent(_ line: String) throws(CaptureError) -> CaptureEvent {
        try decodeEvent(Array(line.utf8))
    }

    /// The latest monotonic time an event may carry: 2^62 ns (146 years after boot).
    public static let maximumMonotonicNanoseconds: Int64 = 1 << 62

    /// Reads an event line from its bytes (as a capture file holds them).
    public static func decodeEvent(_ line: [UInt8]) throws(CaptureError) -> CaptureEvent {
        if let event = CaptureFastPath.decode(line) { return event }
        return try decodeEventInFull(line)
    }

    /// Reads an event line through the JSON parser (every line the fast path leaves).
    static func decodeEventInFull(_ line: [UInt8]) throws(CaptureError) -> CaptureEvent {
        let object = try parseObject(line)
        if object[headerKey] != nil { throw .unexpectedHeader }
        // A pack's monotonic clock counts from boot: 2^62 ns is 146 years of it. Bounding it (and
        // the wall clock, to 1970–2100) keeps every difference of two times within 64 bits, so
        // no capture can make the recorder's time arithmetic overflow (found by fuzzing).
        let monoNs = try requiredInteger(object, "mono_ns")
        guard (0...Self.maximumMonotonicNanoseconds).contains(monoNs) else {
            throw .wrongType(field: "mono_ns", expected: "nanoseconds since boot, from 0 to 2^62")
        }
        let mono = MonotonicInstant(nanoseconds: monoNs)
        var wall: WallInstant?
        if let value = object["wall_ns"], !value.isNull {
            guard let ns = value.int64Value else { throw .wrongType(field: "wall_ns", expected: "an integer") }
            guard ns >= 0, ns < CivilTime.supportedInstants.upperBound.nanosecondsSinceEpoch else {
                throw .wrongType(field: "wall_ns", expected: "nanoseconds since 1970, before 2101")
            }
            wall = WallInstant(nanosecondsSinceEpoch: ns)
        }
        let kind = try requiredString(object, "kind")
        let body: CaptureEvent.Body
        switch kind {
        case "command":
            let name = try requiredString(object, "command")
            guard let command = SessionCommand(rawValue: name) else { throw .unknownCommand(name) }
            var sport: RunSport?
            if let text = try optionalString(object, "sport") {
                guard let named = RunSport(rawValue: text) else {
                    throw .wrongType(field: "sport", expected: RunSport.names)
                }
                sport = named
            }
            body = .command(command, sport: sport)
        case "clock":
            guard let value = object["synchronized"] else { throw .missingField("synchronized") }
            guard case .bool(let synchronized) = value else {
                throw .wrongType(field: "synchronized", expected: "true or false")
            }
            body = .clock(synchronized: synchronized)
        case "link":
            let sensor = SensorID(try requiredString(object, "sensor"))
            let stateName = try requiredString(object, "state")
            guard let state = LinkState(rawValue: stateName) else {
                throw .wrongType(field: "state", expected: "\"connected\" or \"disconnected\"")
            }
            body = .link(sensor: sensor, state: state, reason: try optionalString(object, "reason"))
        default:
            let sensor = SensorID(try requiredString(object, "sensor"))
            let payload: Payload
            if let hex = try optionalString(object, "hex") {
                do { payload = .bytes(try Hex.decode(hex)) } catch { throw .badHex(error) }
            } else if let text = try optionalString(object, "text") {
                payload = .text(text)
            } else {
                throw .missingField("hex\" or \"text")
            }
            body = .payload(sensor: sensor, kind: PayloadKind(rawValue: kind), payload)
        }
        return CaptureEvent(monotonic: mono, wall: wall, body: body)
    }

    private static func parseObject(_ line: String) throws(CaptureError) -> JSONObject {
        try parseObject(Array(line.utf8))
    }

    private static func parseObject(_ line: [UInt8]) throws(CaptureError) -> JSONObject {
        let value: JSONValue
        do { value = try JSONParser.parse(line) } catch { throw .notJSON(error) }
        guard let object = value.objectValue else { throw .notAnObject }
        return object
    }

    private static func requiredString(_ o: JSONObject, _ key: String) throws(CaptureError) -> String {
        guard let value = o[key] else { throw .missingField(key) }
        guard let s = value.stringValue else { throw .wrongType(field: key, expected: "a string") }
        return s
    }

    private static func optionalString(_ o: JSONObject, _ key: String) throws(CaptureError) -> String? {
        guard let value = o[key], !value.isNull else { return nil }
        guard let s = value.stringValue else { throw .wrongType(field: key, expected: "a string") }
        return s
    }

    private static func requiredInteger(_ o: JSONObject, _ key: String) throws(CaptureError) -> Int64 {
        guard let value = o[key] else { throw .missingField(key) }
        guard let i = value.int64Value else { throw .wrongType(field: key, expected: "an integer") }
        return i
    }

    private static func requiredNumber(_ o: JSONObject, _ key: String) throws(CaptureError) -> Double {
        guard let value = o[key] else { throw .missingField(key) }
        guard let d = value.doubleValue else { throw .wrongType(field: key, expected: "a number") }
        return d
    }
}

/// Why a capture line could not be read.
public enum CaptureError: Error, Hashable, Sendable, CustomStringConvertible {
    case notJSON(JSONError)
    case notAnObject
    case notAHeader
    case unexpectedHeader
    case unsupportedVersion(Int)
    case missingField(String)
    case wrongType(field: String, expected: String)
    case badHex(HexError)
    case unknownCommand(String)

    public var description: String {
        switch self {
        case .notJSON(let error): "not JSON: \(error)"
        case .notAnObject: "not a JSON object"
        case .notAHeader:
            "the first line is not a capture header (it needs \"\(CaptureCodec.headerKey)\": 1)"
        case .unexpectedHeader: "a second header line"
        case .unsupportedVersion(let v):
            "capture format version \(v); this build reads version \(CaptureHeader.currentVersion)"
        case .missingField(let field): "missing \"\(field)\""
        case .wrongType(let field, let expected): "\"\(field)\" should be \(expected)"
        case .badHex(let error): "\"hex\": \(error)"
        case .unknownCommand(let name): "unknown command \"\(name)\""
        }
    }
}

/// A capture error with the line it was found on.
public struct CaptureLineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 1-based line number.
    public var line: Int
    public var error: CaptureError

    public init(line: Int, error: CaptureError) {
        self.line = line
        self.error = error
    }

    public var description: String { "line \(line): \(error)" }
}
