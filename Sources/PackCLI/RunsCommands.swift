import ArgumentParser
import Foundation
import PackControl

public struct Runs: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(abstract: "List recorded runs, newest first.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    @OptionGroup var units: UnitsOption

    @Option(help: "How many runs to list.")
    var limit = 20

    public init() {}

    public func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
    }

    public func run() async throws {
        let runs: [RunReport]
        let client = connection.client
        do {
            runs = try client.send(.runs(limit: limit), expecting: [RunReport].self)
        } catch {
            throw Output.fail(error, json: output.json)
        }
        if output.json { return try Output.printJSON(runs) }
        guard !runs.isEmpty else {
            return Output.print("No runs yet. `handoff start` records one; `handoff demo` shows how.")
        }
        Output.print(Self.render(runs, try units.resolve(client, json: false)))
    }

    static func render(_ runs: [RunReport], _ units: Units) -> String {
        var rows = [["RUN", "STARTED", "DISTANCE", "TIME", "PACE", "AVG HR", ""]]
        for run in runs {
            var notes: [String] = []
            if run.state != .finished { notes.append(run.state.rawValue) }
            if run.recovered { notes.append("recovered") }
            if run.queuedForUpload { notes.append("not uploaded") }
            rows.append([
                String(run.id), Output.localTime(run.startTime),
                run.totals.distanceM.map { Format.distance($0, units) } ?? "–",
                run.totals.timerS.map(Format.duration) ?? "–", Format.pace(run.rates.avgPaceSPerKm, units),
                run.rates.avgHrBpm.map { Format.whole($0) } ?? "–", notes.joined(separator: ", "),
            ])
        }
        return Output.table(rows, rightAligned: [0, 2, 3, 5])
    }
}

public struct Show: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(abstract: "Show a run's summary, splits, laps and events.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    @OptionGroup var units: UnitsOption

    @Argument(help: "The run: its number from `handoff runs`, `last`, or the start of its UUID.")
    var run: String

    public init() {}

    public func run() async throws {
        let client = connection.client
        // In miles, the reply carries splits per mile too; `--json` asks for the same reply in any units.
        let units = try self.units.resolve(client, json: output.json)
        let report: RunReport
        do {
            report = try client.send(Self.request(run, output.json ? .kilometers : units), expecting: RunReport.self)
        } catch {
            throw Output.fail(error, json: output.json)
        }
        if output.json { return try Output.printJSON(report) }
        Output.print(Self.render(report, units))
    }

    /// `show` for text in `units`: in miles, with the splits per mile.
    static func request(_ run: String, _ units: Units) -> ControlRequest {
        .show(run: run, units: units == .miles ? units.rawValue : nil)
    }

    /// A split's number: `3` for a whole one, `5.11` where the run ended part of the way
    /// through it (its distance is rounded to the decimetre, so a whole one may be 0.05 m short).
    static func splitNumber(_ number: Int, _ distanceM: Double, _ units: Units) -> String {
        distanceM >= units.meters - 0.5
            ? String(number) : Format.fixed(Double(number - 1) + units.distance(distanceM), 2)
    }

    /// A mile split's pace, in seconds per kilometre, from its time and distance: a whole mile's
    /// pace is its time (the report's rounded pace, converted, could be a second off it).
    static func milePace(_ split: MileSplitReport) -> Double? {
        if split.distanceM >= Units.metersPerMile - 0.5 { return split.timeS * 1000 / Units.metersPerMile }
        return split.distanceM >= 1 ? split.timeS * 1000 / split.distanceM : split.paceSPerKm
    }

    static func eventName(_ kind: String) -> String {
        switch kind {
        case "gap_start": "gap begins"
        case "gap_end": "gap ends"
        default: kind.replacingOccurrences(of: "_", with: " ")
        }
    }

    static func render(_ run: RunReport, _ units: Units) -> String {
        var lines = [
            "Run \(run.id) · \(Output.localTime(run.startTime, weekday: true)) · \(run.totals.distanceM.map { Format.distance($0, units) } ?? "in progress")"
        ]
        if run.state != .finished {
            lines.append("  still \(run.state.rawValue): `handoff status` shows it live")
            return lines.joined(separator: "\n")
        }
        var facts: [[String]] = []
        facts.append([
            "  time",
            "\(Format.duration(run.totals.elapsedS ?? 0)) elapsed · \(Format.duration(run.totals.timerS ?? 0)) timer · \(Format.duration(Double(run.totals.movingS ?? 0))) moving",
        ])
        facts.append([
            "  pace",
            "\(Format.pace(run.rates.avgPaceSPerKm, units)) (moving \(Format.pace(run.rates.avgMovingPaceSPerKm, units)))",
        ])
        if let avg = run.rates.avgHrBpm {
            facts.append([
                "  heart rate", "\(Format.whole(avg)) avg · \(run.rates.maxHrBpm.map(String.init) ?? "–") max bpm",
            ])
        }
        if let cadence = run.rates.avgCadenceSpm { facts.append(["  cadence", "\(Format.whole(cadence)) spm"]) }
        if let steps = run.totals.steps { facts.append(["  steps", "\(steps)"]) }
        if run.clock == .gps { facts.append(["  clock", "times from GPS (the pack's clock was not synchronised)"]) }
        if run.clock == .unsynchronized {
            facts.append(["  clock", "the pack's clock was not synchronised and no GPS time came: times may be wrong"])
        }
        if let counted = run.detail.countedIn {
            let counting = CountingReport(countedIn: counted, notCounted: run.detail.notCounted ?? [])
            facts.append(["  store", counting.sentence])
        } else if run.queuedForUpload {
            facts.append(["  store", "not uploaded yet"])
        }
        lines.append(Output.table(facts))
        if run.recovered {
            lines.append("  Recovered after a crash or power cut: it ends at the last second saved before it.")
        }
        if units == .miles, let splits = run.detail.mileSplits, !splits.isEmpty {
            lines.append("Splits")
            var rows = [["  MI", "TIME", "PACE", "AVG HR"]]
            for s in splits {
                rows.append([
                    "  " + splitNumber(s.mile, s.distanceM, .miles), Format.duration(s.timeS),
                    Format.pace(milePace(s), units), s.avgHrBpm.map { Format.whole($0) } ?? "–",
                ])
            }
            lines.append(Output.table(rows, rightAligned: [0, 1, 3]))
        } else if let splits = run.detail.splits, !splits.isEmpty {
            // In miles without mile splits (a handoffd before them), the kilometres, said so.
            lines.append(units == .miles ? "Splits per kilometre" : "Splits")
            var rows = [["  KM", "TIME", "PACE", "AVG HR"]]
            for s in splits {
                rows.append([
                    "  " + splitNumber(s.km, s.distanceM, .kilometers), Format.duration(s.timeS),
                    Format.pace(s.paceSPerKm, units), s.avgHrBpm.map { Format.whole($0) } ?? "–",
                ])
            }
            lines.append(Output.table(rows, rightAligned: [0, 1, 3]))
        }
        if let laps = run.detail.laps, laps.count > 1 {
            lines.append("Laps")
            var rows = [["  LAP", "DISTANCE", "TIME", "PACE", "AVG HR", "ENDED BY"]]
            for l in laps {
                rows.append([
                    "  \(l.lap)", Format.distanceColumn(l.distanceM, units), Format.duration(l.timerS),
                    Format.pace(l.avgPaceSPerKm, units),
                    l.avgHrBpm.map { Format.whole($0) } ?? "–",
                    l.trigger.replacingOccurrences(of: "_", with: " "),
                ])
            }
            lines.append(Output.table(rows, rightAligned: [0, 1, 2, 4]))
        }
        let notable = (run.detail.events ?? []).filter { !["start", "stop", "lap"].contains($0.kind) }
        if !notable.isEmpty {
            lines.append("Events")
            lines.append(
                Output.table(
                    notable.prefix(30).map { e in
                        [
                            "  " + Format.duration(e.offsetS),
                            [e.sensor, Self.eventName(e.kind)].compactMap { $0 }.joined(separator: " "), e.detail ?? "",
                        ]
                    }, rightAligned: [0]))
            if notable.count > 30 { lines.append("  … \(notable.count - 30) more (`--json` lists them all)") }
        }
        return lines.joined(separator: "\n")
    }
}

public struct Delete: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Delete a run on the pack, and on the store when it was synced.",
        discussion: """
            Asks first on a terminal; --yes skips the question (and is needed when there is no \
            terminal to ask on). A run on the store is deleted there first, which takes its \
            distance out of its groups' totals; when the store cannot be told, nothing is deleted \
            unless --local-only. A run still being recorded cannot be deleted.
            """)

    @OptionGroup var units: UnitsOption
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The run: its number from `handoff runs`, `last`, or the start of its UUID.")
    var run: String

    @Flag(name: .shortAndLong, help: "Do not ask.")
    var yes = false

    @Flag(help: "Delete it on the pack only, even if it is on the store (it stays there, in the totals).")
    var localOnly = false

    public init() {}

    public func run() async throws {
        let client = connection.client(timeout: 90)
        if !yes {
            let report = try client.call(.show(run: run), RunReport.self, json: output.json)
            let question = Self.question(report, try units.resolve(client, json: false))
            guard isatty(STDIN_FILENO) == 1 else {
                throw Output.fail(
                    ControlError(
                        code: "needs_yes",
                        message:
                            "\(question.dropLast(6)) There is no terminal to ask on: add --yes to delete it without asking."
                    ), json: output.json)
            }
            FileHandle.standardError.write(Data((question + " ").utf8))
            let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            guard answer == "y" || answer == "yes" else {
                Output.error("not deleted")
                throw ExitCode.failure
            }
        }
        let report = try client.call(
            .delete(run: run, localOnly: localOnly), DeleteReport.self, json: output.json)
        if output.json { try Output.printJSON(report) } else { Output.print(report.message) }
    }

    /// "Delete run 12 (3.72 km, 2026-11-20 07:31)? [y/N]"
    static func question(_ run: RunReport, _ units: Units) -> String {
        "Delete run \(run.id) (\(run.totals.distanceM.map { Format.distance($0, units) } ?? "in progress"), \(Output.localTime(run.startTime)))? [y/N]"
    }
}
