import ArgumentParser
import Dispatch
import HandoffModel
import PackCLI
import Synchronization

/// `handoff`: the pack's command line.
struct Handoff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoff",
        abstract: "Control the Handoff pack: record runs, look at them, debug sensors.",
        discussion: HandoffCommands.discussion,
        version: HandoffVersion.current,
        subcommands: HandoffCommands.all)
}

/// A synchronous entry point: the command runs on the concurrent pool while the main thread waits.
/// An async `main` would hand the main thread to `dispatch_main`, whose `sigsuspend` valgrind 3.19
/// cannot run, and `scripts/bench` counts the CLI's instructions under callgrind (as `handoffd`'s).
@main
enum HandoffMain {
    static func main() {
        let parsed: any ParsableCommand
        do { parsed = try Handoff.parseAsRoot() } catch { Handoff.exit(withError: error) }
        guard let command = parsed as? any AsyncParsableCommand else {
            var command = parsed
            do { try command.run() } catch { Handoff.exit(withError: error) }
            return
        }
        nonisolated(unsafe) var running = command
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { try await running.run() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { Handoff.exit(withError: error) }
    }
}
