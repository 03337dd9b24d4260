import ArgumentParser
import Foundation
import PackControl

/// `handoff baton` and `handoff baton pass [MEMBER]`.
public struct BatonCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "baton", abstract: "Show the group's baton, or pass it on.",
        subcommands: [BatonShow.self, BatonPass.self], defaultSubcommand: BatonShow.self)
    public init() {}
}

public struct BatonShow: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Who holds the group's baton, and the latest legs.")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    @OptionGroup var units: UnitsOption
    public init() {}

    public func run() async throws {
        let report: BatonReport
        report = try connection.client(timeout: 30).call(
            .baton, BatonReport.self, json: output.json)
        if output.json { return try Output.printJSON(report) }
        let units = try self.units.resolve(connection.client, json: false)
        var text = report.message
        if let since = report.since { text += " Since \(Output.localTime(since))" }
        if let expires = report.expiresAt { text += "; the lease runs to \(Output.localTime(expires))" }
        Output.print(text + (report.since == nil ? "" : "."))
        guard !report.legs.isEmpty else { return }
        var rows = [["RUNNER", "TAKEN", "ENDED", "HOW", "DISTANCE", "RUNS"]]
        for leg in report.legs {
            rows.append([
                leg["runner"] ?? "(gone)", leg["taken_at"].map { Output.localTime($0) } ?? "",
                leg["ended_at"].map { Output.localTime($0) } ?? "running", leg["ended"] ?? "",
                leg["distance_m"].flatMap(Double.init).map { Format.distance($0, units) } ?? "", leg["runs"] ?? "",
            ])
        }
        Output.print("\nLegs:\n" + Output.table(rows, rightAligned: [4, 5]))
    }
}

public struct BatonPass: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "pass",
        abstract: "Hand the baton to a member, or to the next in the group's rotation (after your run has synced).")
    @Argument(help: "The member's username (default: the next in the rotation).")
    var member: String?
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    public init() {}

    public func run() async throws {
        let report: BatonReport
        report = try connection.client(timeout: 30).call(
            .batonPass(target: member), BatonReport.self, json: output.json)
        if output.json { try Output.printJSON(report) } else { Output.print(report.message) }
    }
}
