import ArgumentParser
import PackControl

/// `handoff steps`: today's steps on the pack, or the steps in a file of accelerometer samples
/// (the default: `handoff steps FILE` is `handoff steps count FILE`).
public struct Steps: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Today's steps on the pack (steps today), or the steps in accelerometer samples (steps count FILE).",
        subcommands: [StepsToday.self, StepsCount.self], defaultSubcommand: StepsCount.self)

    public init() {}
}

public struct StepsToday: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "today",
        abstract: "Today's steps: outside runs, while the pack is worn, and in today's runs.",
        discussion: """
            The pedometer counts all day while handoffd runs. Steps outside runs are kept per day \
            in the pack's time zone and go to the store with the next sync, where /me/steps adds \
            them to the steps of the day's runs.
            """)

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    public init() {}

    public func run() async throws {
        let report = try connection.client.call(.steps, StepsReport.self, json: output.json)
        if output.json { return try Output.printJSON(report) }
        Output.print(report.message)
    }
}
