import ArgumentParser
import Foundation
import HandoffModel
import PackControl
import SensorCodecs

public struct Decode: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Decode sensor data for debugging: one JSON object per input.",
        discussion: """
            Examples:
              handoff decode hrm 16 48 54 01        a Heart Rate Measurement (0x2A37) notification
              handoff decode rsc 02 00 05 50 ff ff 00 01
              handoff decode nmea < gps.log         one NMEA sentence per line
            Without bytes on the command line, each line of standard input is one input (hex for hrm
            and rsc). Inputs that cannot be decoded print {"error":…,"input":…} in their place, and the
            exit status is 1.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case hrm, rsc, nmea
    }

    @Argument(help: "What to decode: hrm (0x2A37), rsc (0x2A53) or nmea.")
    var kind: Kind

    @Argument(help: "The bytes in hex (hrm, rsc) or one sentence (nmea); standard input when absent.")
    var input: [String] = []

    @Flag(help: "Print JSON (the only output of decode; accepted for symmetry with other commands).")
    var json = false

    public init() {}

    public func run() async throws {
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
            case .nmea:
                return .success(try ControlJSON.encode(NMEAJSON(try NMEAReport(line: text))))
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

/// A sentence with gpsd's TPV names where the meaning is the same.
struct NMEAJSON: Encodable {
    let sentence: String
    let mode: Int
    let time: String?
    let status: String?
    let lat: Double?
    let lon: Double?
    let alt: Double?
    let speed: Double?
    let track: Double?
    let hdop: Double?
    let satellitesUsed: Int?
    let quality: Int?

    enum CodingKeys: String, CodingKey {
        case sentence, mode, time, status, lat, lon, alt, speed, track, hdop, quality
        case satellitesUsed = "satellites_used"
    }

    init(_ report: NMEAReport) {
        switch report {
        case .rmc(let r):
            sentence = "RMC"
            mode = r.hasFix ? 2 : 1
            time = Self.time(r.time, date: r.date)
            status = String(r.status)
            lat = r.latitude
            lon = r.longitude
            alt = nil
            speed = r.speedMetersPerSecond.map { Format.rounded($0, 3) }
            track = r.trackDegrees
            hdop = nil
            satellitesUsed = nil
            quality = nil
        case .gga(let g):
            sentence = "GGA"
            mode = g.hasFix ? (g.altitudeMeters != nil ? 3 : 2) : 1
            time = Self.time(g.time, date: nil)
            status = nil
            lat = g.latitude
            lon = g.longitude
            alt = g.altitudeMeters
            speed = nil
            track = nil
            hdop = g.hdop
            satellitesUsed = g.satellitesUsed
            quality = g.quality
        }
    }

    /// `2026-06-14T07:00:12.000Z` with a date, `07:00:12.000` without.
    static func time(_ t: NMEATime?, date: NMEADate?) -> String? {
        guard let t else { return nil }
        let millis = Int((t.second * 1000).rounded())
        let clock =
            "\(pad(t.hour)):\(pad(t.minute)):\(pad(millis / 1000)).\(String(repeating: "0", count: 3 - String(millis % 1000).count))\(millis % 1000)"
        guard let date else { return clock }
        return "\(date.year)-\(pad(date.month))-\(pad(date.day))T\(clock)Z"
    }

    static func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
