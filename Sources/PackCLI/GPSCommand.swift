import ArgumentParser
import Foundation
import PackControl
import SensorCodecs

public struct GPS: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "gps",
        abstract: "Show the live GPS fix: position, time, speed, precision and satellites.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    @Flag(help: "Redraw every second until interrupted.")
    var watch = false

    public init() {}

    public func run() async throws {
        repeat {
            let report: StatusReport
            do {
                report = try connection.client.send(.status, expecting: StatusReport.self)
            } catch {
                throw Output.fail(error, json: output.json)
            }
            if output.json {
                try Output.printJSON(report.gps)
            } else {
                if watch && Output.standardOutputIsTerminal {
                    FileHandle.standardOutput.write(Data("\u{1B}[H\u{1B}[J".utf8))
                }
                Output.print(Self.render(report.gps, replay: report.replay))
                if watch && !Output.standardOutputIsTerminal { Output.print("") }
            }
            if watch { try await Task.sleep(for: .seconds(1)) }
        } while watch
    }

    static func render(_ g: GPSReport, replay: ReplayReport? = nil) -> String {
        guard let sensor = g.receiver.sensor else {
            if let replay { return Status.replayLine(replay) + "\nThe capture has no GPS." }
            return "No GPS is configured or heard from. Set [gps] source in handoff.toml (gpsd or serial)."
        }
        var rows: [[String]] = []
        if let replay {
            let name = (replay.file as NSString).lastPathComponent
            rows.append(["receiver", "\(sensor), replayed from \(name) (recorded from \(g.receiver.source ?? "?"))"])
        } else {
            rows.append(["receiver", "\(sensor) (\(g.receiver.source ?? "?"))"])
        }
        var fix = g.fix.phrase
        if let last = g.receiver.lastFixS { fix += last > 3 ? " · silent for \(Format.duration(last))" : "" }
        rows.append(["fix", fix])
        if let time = g.position.time { rows.append(["time", time + (g.clock == .gps ? " (the run's clock)" : "")]) }
        if let lat = g.position.lat, let lon = g.position.lon {
            rows.append(["position", "\(Format.fixed(lat, 6)), \(Format.fixed(lon, 6))"])
        }
        if let alt = g.position.altM { rows.append(["altitude", "\(Format.fixed(alt, 1)) m"]) }
        if let speed = g.position.speedMps {
            rows.append([
                "speed",
                "\(Format.fixed(speed, 2)) m/s"
                    + (g.position.trackDeg.map { " · track \(Format.fixed($0, 0))°" } ?? ""),
            ])
        }
        var precision: [String] = []
        if let h = g.quality.hdop { precision.append("HDOP \(Format.fixed(h, 1))") }
        if let p = g.quality.pdop { precision.append("PDOP \(Format.fixed(p, 1))") }
        if let e = g.quality.ephM { precision.append("±\(Format.fixed(e, 1)) m") }
        if !precision.isEmpty { rows.append(["precision", precision.joined(separator: " · ")]) }
        switch (g.quality.satellites, g.quality.satellitesSeen) {
        case (let used?, let seen?): rows.append(["satellites", "\(used) used of \(seen) seen"])
        case (let used?, nil): rows.append(["satellites", "\(used) used"])
        case (nil, let seen?): rows.append(["satellites", "\(seen) seen"])
        case (nil, nil): break
        }
        switch g.clock {
        case .gps: rows.append(["clock", "not synchronised: run times come from GPS"])
        case .unsynchronized: rows.append(["clock", "not synchronised, and no GPS time yet: run times may be wrong"])
        case .system, nil: break
        }
        let table = Output.table(rows)
        return replay.map { Status.replayLine($0) + "\n" + table } ?? table
    }
}

public struct StepsCount: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Count the steps in accelerometer samples: a CSV of t_s,x,y,z (m/s², gravity included).",
        discussion: """
            The same step detection as the pack's accelerometer source. A header line is allowed;
            the sample rate is one over the median interval. --rate resamples first (a Pi's
            accelerometer runs at 25–100 Hz).
            """)

    @Argument(help: "The CSV file, or - for standard input.")
    var file: String

    @Option(help: "Resample to this many Hz before counting.")
    var rate: Double?

    @OptionGroup var output: JSONOption

    public init() {}

    public func run() async throws {
        let text: String
        if file == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            guard let data = FileManager.default.contents(atPath: file) else {
                Output.error("cannot read \(file): no such file, or it is not readable")
                throw ExitCode(66)  // EX_NOINPUT
            }
            text = String(decoding: data, as: UTF8.self)
        }
        var samples: AccelerometerCSV
        do { samples = try AccelerometerCSV(text: text) } catch {
            Output.error("\(file) \(error): each line must be t_s,x,y,z")
            throw ExitCode(65)  // EX_DATAERR
        }
        guard let nativeRate = samples.sampleRate else {
            Output.error("\(file) has fewer than two samples with increasing times: nothing to count")
            throw ExitCode(65)
        }
        guard nativeRate >= 5, nativeRate <= 10_000 else {
            Output.error(
                "\(file): the samples come at \(Format.fixed(nativeRate, 3)) Hz, and steps need 5 Hz or more. "
                    + "Is t_s in seconds? (Android's timestamps are nanoseconds: divide them by 1e9.)")
            throw ExitCode(65)
        }
        let magnitudes = zip(zip(samples.x, samples.y), samples.z).map {
            ($0.0 * $0.0 + $0.1 * $0.1 + $1 * $1).squareRoot()
        }
        let typical = magnitudes.sorted()[magnitudes.count / 2]
        guard typical > 3 else {
            Output.error(
                "\(file): the acceleration is typically \(Format.fixed(typical, 2)), not about 9.81: "
                    + "x, y and z must be m/s² with gravity included (values in g: multiply by 9.81).")
            throw ExitCode(65)
        }
        if let rate {
            guard rate >= 5, rate <= 2000 else {
                Output.error("--rate \(rate) is out of range: use 5 to 2000 Hz")
                throw ExitCode.validationFailure
            }
            do { samples = try samples.resampled(to: rate) } catch {
                Output.error("\(file): \(error.reason)")
                throw ExitCode(65)
            }
        }
        let steps = samples.countSteps()
        if output.json {
            struct Result: Encodable {
                let steps: Int
            }
            try Output.printJSON(Result(steps: steps))
        } else {
            let seconds = (samples.times.last ?? 0) - (samples.times.first ?? 0)
            Output.print(
                "\(steps) steps in \(Format.duration(seconds)) (\(samples.times.count) samples at \(Format.fixed(rate ?? nativeRate, 0)) Hz)"
            )
        }
    }
}
