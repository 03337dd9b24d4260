import ArgumentParser
import PackCLI

/// `handoff`: the pack's command line.
@main
struct Handoff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoff",
        abstract: "Control the Handoff pack: record runs, look at them, debug sensors.",
        discussion: HandoffCommands.discussion,
        version: "0.1.0",
        subcommands: HandoffCommands.all)
}
