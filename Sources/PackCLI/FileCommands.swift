import ArgumentParser
import Foundation
import PackControl

public struct Export: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Write a run as a FIT, GPX, TCX or CSV file.",
        discussion: """
            FIT keeps everything (laps, pauses, heart rate, RR intervals); GPX keeps the track with \
            heart rate, cadence and speed, one segment per part between pauses; TCX keeps laps and \
            track; CSV has one row per recorded second, for spreadsheets. handoff opens the file and \
            hands it to handoffd, which needs no access to your files.
            """)

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The run: its number from `handoff runs`, `last`, or the start of its UUID.")
    var run: String

    @Option(help: "fit, gpx, tcx or csv.")
    var format = "fit"

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: "The file to write, or - for standard output (default: handoff-run-N-DATE.FORMAT here).")
    var file: String?

    public init() {}

    public func validate() throws {
        guard ["fit", "gpx", "tcx", "csv"].contains(format) else {
            throw ValidationError("--format takes fit, gpx, tcx or csv")
        }
    }

    public func run() async throws {
        let client = connection.client(timeout: 120)
        let target: String
        if let file {
            target = file
        } else {
            let report: RunReport
            do { report = try client.send(.show(run: run), expecting: RunReport.self) } catch {
                throw Output.fail(error, json: output.json)
            }
            target = "handoff-run-\(report.id)-\(report.startTime.prefix(10)).\(format)"
        }
        if target == "-" {
            if format == "fit", Output.standardOutputIsTerminal {
                Output.error("a FIT file is binary: give -o FILE, or send standard output to a file or a pipe")
                throw ExitCode.failure
            }
            let report: ExportReport
            do {
                report = try client.send(
                    .export(run: run, format: format), expecting: ExportReport.self,
                    passing: STDOUT_FILENO)
            } catch { throw Output.fail(error, json: output.json) }
            if output.json { try Output.printJSON(report) }
            return
        }
        let report: ExportReport
        do { report = try Self.write(run: run, format: format, to: target, client: client) } catch {
            throw Output.fail(error, json: output.json)
        }
        if output.json { return try Output.printJSON(WithFile(file: target, report: report)) }
        Output.print(
            "Wrote run \(report.run) to \(target) (\(format.uppercased()), \(report.points) points, \(Format.bytes(report.bytes)))."
        )
    }
}

extension Export {
    /// Exports into `target`, written beside it and renamed over it only when complete: an
    /// interrupted export never leaves half a file under the name.
    static func write(
        run: String, format: String, to target: String, client: ControlClient
    ) throws(ControlError)
        -> ExportReport
    {
        let directory = (target as NSString).deletingLastPathComponent
        let temporary =
            (directory.isEmpty ? "." : directory) + "/.\((target as NSString).lastPathComponent).\(getpid()).partial"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ControlError(code: "io", message: "cannot write \(target): \(String(cString: strerror(errno)))")
        }
        let report: ExportReport
        do {
            defer { close(fd) }
            report = try client.send(
                .export(run: run, format: format), expecting: ExportReport.self, passing: fd)
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ControlError(code: "io", message: "cannot write \(target): \(reason)")
        }
        return report
    }
}

public struct Import: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Add runs recorded elsewhere (FIT, GPX or TCX files) to the pack's history.",
        discussion: """
            Each file becomes a finished run, listed by `handoff runs` and uploaded to the group like \
            any other. A file whose run is already in the history (the same start) is left out. \
            Invalid files are refused with the problem named; the other files are still imported.
            """)

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    @OptionGroup var units: UnitsOption

    @Argument(help: "The files.")
    var files: [String]

    public init() {}

    public func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one FIT, GPX or TCX file") }
    }

    public func run() async throws {
        let client = connection.client(timeout: 120)
        let units = try self.units.resolve(client, json: output.json)
        var failed = 0
        for (index, path) in files.enumerated() {
            let name = (path as NSString).lastPathComponent
            let progress = files.count > 1 ? "[\(index + 1)/\(files.count)] " : ""
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                failed += 1
                report(
                    path, ControlError(code: "io", message: "cannot open \(path): \(String(cString: strerror(errno)))"))
                continue
            }
            defer { close(fd) }
            let run: RunReport
            do {
                run = try client.send(
                    .import(name: name), expecting: RunReport.self, passing: fd)
            } catch {
                if error.code == .notRunning { throw Output.fail(error, json: output.json) }
                failed += 1
                report(path, error)
                continue
            }
            if output.json {
                try Output.printJSON(WithFile(file: path, report: run))
            } else {
                var line =
                    "\(progress)\(path) → run \(run.id): \(run.totals.distanceM.map { Format.distance($0, units) } ?? "–") in \(Format.duration(run.totals.timerS ?? 0))"
                if let hr = run.rates.avgHrBpm { line += ", average HR \(Format.whole(hr))" }
                line += " (\(Output.localTime(run.startTime)))"
                Output.print(line)
            }
        }
        if failed > 0 {
            if !output.json, files.count > 1 { Output.error("\(failed) of \(files.count) files were not imported") }
            throw ExitCode.failure
        }
    }

    private func report(_ path: String, _ error: ControlError) {
        if output.json {
            try? Output.printJSON(Failed(file: path, error: error))
        } else {
            Output.error(
                error.message.hasPrefix((path as NSString).lastPathComponent) || error.message.contains(path)
                    ? error.message : "\(path): \(error.message)")
        }
    }

    struct Failed: Encodable {
        let file: String
        let error: ControlError
    }
}

/// A report with the file it concerns added to its keys (`show`'s keys plus `file`).
struct WithFile<Report: Encodable>: Encodable {
    let file: String
    let report: Report

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(file, forKey: Key(stringValue: "file")!)
    }
}

/// A JSON key made at run time.
struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
