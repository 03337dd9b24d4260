import ArgumentParser
import HandoffModel
import PackCLI

/// `handoff`: the pack's command line.
@main
struct Handoff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoff",
        abstract: "Control the Handoff pack: record runs, look at them, debug sensors.",
        discussion: HandoffCommands.discussion,
        version: HandoffVersion.current,
        subcommands: HandoffCommands.all)
}
