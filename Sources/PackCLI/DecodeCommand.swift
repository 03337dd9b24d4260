import ArgumentParser
import Foundation
import HandoffModel
import PackControl
import PackSystem
import SensorCodecs

public struct Decode: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Decode sensor data for debugging: one JSON object per input.",
        discussion: """
            Examples:
              handoff decode hrm 16 48 54 01        a Heart Rate Measurement (0x2A37) notification
              handoff decode rsc 02 00 05 50 ff ff 00 01
              handoff decode nmea < gps.log         one fix per receiver epoch
              handoff decode nmea --json < gps.log  the same as JSON, with gpsd's TPV names
              handoff decode hxm < hxm.dat          a Zephyr HxM's RFCOMM stream, one frame per line
              handoff decode polar < wearlink.dat   a Polar WearLink+ stream
              handoff decode polar FE08F706F1480364 bytes in hex
            hrm and rsc: without bytes on the command line, each line of standard input is one input
            in hex. Inputs that cannot be decoded print {"error":…,"input":…} in their place, and
            the exit status is 1.
            hxm and polar: standard input is the strap's raw byte stream, read as it comes (or the
            bytes in hex on the command line). Each frame prints as JSON with its offset in the
            stream; standard error says how many frames were found and how many bytes were
            skipped or failed their check. The exit status is 1 when no frame was found.
            nmea: standard input is a receiver's raw output (sentences split anyhow, noise and binary
            between them); it prints one fix per epoch, and on standard error how many sentences
            were used, skipped (proprietary, unread types) and rejected, with the last reason. The
            exit status is 1 when nothing could be decoded.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case hrm, rsc, nmea, hxm, polar
    }

    @Argument(help: "What to decode: hrm (0x2A37), rsc (0x2A53), nmea, hxm (Zephyr) or polar (WearLink+).")
    var kind: Kind

    @Argument(help: "The bytes in hex (hrm, rsc) or one sentence (nmea); standard input when absent.")
    var input: [String] = []

    @Flag(help: "Print JSON (hrm and rsc always print JSON; nmea prints text without it).")
    var json = false

    public init() {}

    public func run() async throws {
        switch kind {
        case .nmea: return try decodeNMEA()
        case .hxm, .polar: return try decodeStrapStream()
        case .hrm, .rsc: break
        }
        var failed = 0
        let inputs: AnySequence<String> =
            input.isEmpty
            ? AnySequence(StandardInputLines()) : AnySequence([input.joined(separator: kind == .nmea ? "," : " ")])
        for line in inputs {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            switch Self.decode(kind, trimmed) {
            case .success(let json): Output.print(json)
            case .failure(let error):
                failed += 1
                Output.print(ControlDispatcherlessJSON.error(error.message, input: trimmed))
            }
        }
        if failed > 0 { throw ExitCode.failure }
    }

    struct DecodeFailure: Error {
        let message: String
    }

    static func decode(_ kind: Kind, _ text: String) -> Result<String, DecodeFailure> {
        do {
            switch kind {
            case .hrm:
                let m = try HeartRateMeasurement(decoding: try Hex.decode(text))
                return .success(try ControlJSON.encode(HeartRateJSON(m)))
            case .rsc:
                let m = try RSCMeasurement(decoding: try Hex.decode(text))
                return .success(try ControlJSON.encode(RSCJSON(m)))
            case .hxm, .polar:
                throw DecodeFailure(message: "\(kind) decodes a byte stream")
            case .nmea:
                var decoder = NMEADecoder()
                var fixes: [GNSSFix] = []
                decoder.append(Array(text.utf8) + [0x0A]) { fixes.append($0) }
                decoder.finish { fixes.append($0) }
                if let error = decoder.counts.lastError { throw error }
                guard let fix = fixes.last else { throw DecodeFailure(message: "no fix in this input") }
                return .success(try ControlJSON.encode(FixJSON(fix)))
            }
        } catch {
            return .failure(DecodeFailure(message: "\(error)"))
        }
    }
}

enum ControlDispatcherlessJSON {
    static func error(_ message: String, input: String) -> String {
        struct ErrorLine: Encodable {
            let error: String
            let input: String
        }
        return (try? ControlJSON.encode(ErrorLine(error: message, input: input))) ?? #"{"error":"unencodable"}"#
    }
}

/// Lines of standard input, read lazily.
struct StandardInputLines: Sequence, IteratorProtocol {
    mutating func next() -> String? { readLine(strippingNewline: true) }
}

struct HeartRateJSON: Encodable {
    let hrBpm: Int
    let format: String
    let contact: String
    let energyKj: Int?
    /// RR intervals exactly as sent, in 1/1024 s.
    let rr1024: [Int]
    /// The same in milliseconds, for reading.
    let rrMs: [Double]

    enum CodingKeys: String, CodingKey {
        case format, contact
        case hrBpm = "hr_bpm", energyKj = "energy_kj", rr1024 = "rr_1024", rrMs = "rr_ms"
    }

    init(_ m: HeartRateMeasurement) {
        hrBpm = Int(m.heartRate)
        format = m.valueFormat == .uint8 ? "uint8" : "uint16"
        contact =
            switch m.sensorContact {
            case .notSupported: "not_supported"
            case .notDetected: "not_detected"
            case .detected: "detected"
            }
        energyKj = m.energyExpendedKilojoules.map(Int.init)
        rr1024 = m.rrIntervals1024ths.map(Int.init)
        rrMs = m.rrIntervals1024ths.map { Format.rounded(Double($0) * 1000 / 1024, 2) }
    }
}

struct RSCJSON: Encodable {
    let speedMps: Double
    let cadenceSpm: Int
    let strideLengthM: Double?
    let totalDistanceM: Double?
    let running: Bool

    enum CodingKeys: String, CodingKey {
        case running
        case speedMps = "speed_mps", cadenceSpm = "cadence_spm", strideLengthM = "stride_length_m"
        case totalDistanceM = "total_distance_m"
    }

    init(_ m: RSCMeasurement) {
        speedMps = m.speedMetersPerSecond
        cadenceSpm = Int(m.cadence)
        strideLengthM = m.strideLengthMeters
        totalDistanceM = m.totalDistanceMeters.map { Format.rounded($0, 1) }
        running = m.isRunning
    }
}

extension Decode {
    /// Reads a receiver's output from standard input as it comes and prints each epoch's fix.
    func decodeNMEA() throws {
        var decoder = NMEADecoder()
        if !input.isEmpty {
            decoder.append(Array(input.joined(separator: ",").utf8) + [0x0A]) { printFix($0) }
        } else {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let (n, _) = retryingEINTR {
                    buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                }
                guard n > 0 else { break }
                decoder.append(buffer[..<n]) { printFix($0) }
            }
        }
        decoder.finish { printFix($0) }
        let c = decoder.counts
        var summary =
            "\(c.fixes) fixes from \(c.decoded) sentences; skipped \(c.proprietary) proprietary and \(c.unsupported) of types not read; rejected \(c.rejected)"
        if c.discardedBytes > 0 { summary += "; \(c.discardedBytes) bytes of noise between sentences" }
        if let last = c.lastError { summary += " (last: \(last))" }
        FileHandle.standardError.write(Data((summary + "\n").utf8))
        if c.decoded == 0 { throw ExitCode.failure }
    }

    func printFix(_ fix: GNSSFix) {
        if json {
            if let line = try? ControlJSON.encode(FixJSON(fix)) { Output.print(line) }
        } else {
            Output.print(FixJSON.text(fix))
        }
    }
}

/// A fix with gpsd's TPV names where the meaning is the same (`mode`, `time`, `lat`, `lon`,
/// `alt`, `speed`, `track`), and ours, with units, for the rest.
struct FixJSON: Encodable {
    let fix: GNSSFix

    enum CodingKeys: String, CodingKey {
        case mode, time, lat, lon, alt, speed, track, hdop, pdop, vdop
        case timeOfDay = "time_of_day", satellitesUsed = "satellites_used", satellitesSeen = "satellites_seen"
    }

    init(_ f: GNSSFix) { fix = f }

    func encode(to encoder: any Encoder) throws {
        let f = fix
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(f.mode.rawValue, forKey: .mode)
        try c.encodeIfPresent(f.iso8601Time, forKey: .time)
        // The time of day alone, while the receiver has not stated a date.
        try c.encodeIfPresent(f.date == nil ? f.time.map(Self.clock) : nil, forKey: .timeOfDay)
        try c.encodeIfPresent(f.latitude.map { Format.rounded($0, 9) }, forKey: .lat)
        try c.encodeIfPresent(f.longitude.map { Format.rounded($0, 9) }, forKey: .lon)
        try c.encodeIfPresent(f.altitudeMeters.map { Format.rounded($0, 3) }, forKey: .alt)
        try c.encodeIfPresent(f.speedMetersPerSecond.map { Format.rounded($0, 3) }, forKey: .speed)
        try c.encodeIfPresent(f.trackDegrees, forKey: .track)
        try c.encodeIfPresent(f.hdop, forKey: .hdop)
        try c.encodeIfPresent(f.pdop, forKey: .pdop)
        try c.encodeIfPresent(f.vdop, forKey: .vdop)
        try c.encodeIfPresent(f.satellitesUsed, forKey: .satellitesUsed)
        try c.encodeIfPresent(f.satellitesSeen, forKey: .satellitesSeen)
    }

    static func clock(_ t: NMEATime) -> String {
        let millis = Int((t.second * 1000).rounded())
        func pad(_ v: Int, _ w: Int) -> String {
            String(repeating: "0", count: max(0, w - String(v).count)) + String(v)
        }
        return "\(pad(t.hour, 2)):\(pad(t.minute, 2)):\(pad(millis / 1000, 2)).\(pad(millis % 1000, 3))"
    }

    /// One line for a person: when, the fix, where, how fast, how good.
    static func text(_ f: GNSSFix) -> String {
        var parts = [f.iso8601Time ?? f.time.map { clock($0) + " (no date yet)" } ?? "(no time)"]
        parts.append(f.mode == .none ? "no fix" : f.mode == .twoD ? "2D" : "3D")
        if let lat = f.latitude, let lon = f.longitude {
            parts.append("\(Format.fixed(lat, 6)) \(Format.fixed(lon, 6))")
        }
        if let alt = f.altitudeMeters { parts.append("alt \(Format.fixed(alt, 1)) m") }
        if let speed = f.speedMetersPerSecond { parts.append("\(Format.fixed(speed, 2)) m/s") }
        if let track = f.trackDegrees { parts.append("track \(Format.fixed(track, 1))°") }
        if let hdop = f.hdop { parts.append("HDOP \(Format.fixed(hdop, 1))") }
        if let used = f.satellitesUsed {
            parts.append("\(used)/\(f.satellitesSeen.map(String.init) ?? "?") satellites")
        }
        return parts.joined(separator: "  ")
    }
}
