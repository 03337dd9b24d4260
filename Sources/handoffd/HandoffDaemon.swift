import ArgumentParser
import Dispatch
import Foundation
import HandoffModel
import Logging
import PackControl
import PackService
import Synchronization

/// `handoffd`: the pack's recording service.
@main
struct HandoffDaemon: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoffd",
        abstract: "The Handoff pack's recording service.",
        discussion: """
            Reads the pack's sensors (Bluetooth LE heart-rate straps and footpods, classic straps, GPS \
            from gpsd or a serial NMEA receiver, the pedometer) or replays a capture of them, records \
            runs into its SQLite journal, uploads finished runs to a group store on home Wi-Fi, and \
            answers the `handoff` CLI on a Unix socket. Settings come from the configuration file \
            (docs/configuration.md), then from these flags. SIGTERM finishes the run in progress and exits.
            """,
        version: HandoffVersion.current)

    @Option(
        help: "Configuration file (default: /etc/handoff/handoff.toml as root, else ~/.config/handoff/handoff.toml).")
    var config: String?

    @Option(
        help: "The SQLite journal (default: /var/lib/handoff/handoff.sqlite as root, else ~/.local/state/handoff/).")
    var database: String?

    @Option(help: "The control socket (default: /run/handoff/control.sock as root, else $XDG_RUNTIME_DIR/handoff/).")
    var socket: String?

    @Option(help: "Replay this capture instead of reading live sensors.")
    var replay: String?

    @Option(help: "Replay speed: a factor of real time, or `max`.")
    var speed: String?

    @Flag(help: "Stop once the replay has been recorded (finishing the run if the capture did not).")
    var exitAfterReplay = false

    @Option(help: "Write every event taken, live or replayed, to this capture file.")
    var capture: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String?

    @Flag(help: "Run the checks of `handoff doctor` (JSON on standard output) and exit: 0 when nothing is a problem.")
    var doctor = false

    func validate() throws {
        if let speed, ReplaySpeed(speed) == nil {
            throw ValidationError("--speed must be a positive number or `max`, not \(speed)")
        }
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() throws {
        var configuration = PackConfiguration()
        let configPath = config ?? ControlPaths.defaultConfiguration
        if FileManager.default.fileExists(atPath: configPath) {
            do { try configuration.apply(tomlAt: configPath) } catch {
                FileHandle.standardError.write(Data("handoffd: \(error)\n".utf8))
                throw ExitCode(78)  // EX_CONFIG
            }
        } else if config != nil {
            FileHandle.standardError.write(Data("handoffd: the configuration file \(configPath) does not exist\n".utf8))
            throw ExitCode(78)
        }
        if let database { configuration.storage.databasePath = database }
        if let socket { configuration.control.socketPath = socket }
        if let replay { configuration.replay.file = replay }
        if let speed { configuration.replay.speed = ReplaySpeed(speed)! }
        if exitAfterReplay { configuration.replay.exitAfterReplay = true }
        if let capture { configuration.capture.file = capture }
        if let logLevel { configuration.log.level = Logger.Level(rawValue: logLevel)! }
        if configuration.replay.exitAfterReplay && configuration.replay.file == nil && !doctor {
            FileHandle.standardError.write(
                Data("handoffd: --exit-after-replay needs a capture to replay: --replay FILE or replay.file\n".utf8))
            throw ExitCode(64)  // EX_USAGE
        }

        if doctor {
            // No service runs: quiet logs, the report on standard output.
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = .error
                return handler
            }
            let settings = configuration
            let report = runAndWait {
                await PackDaemon.doctor(configuration: settings, logger: Logger(label: "handoffd"))
            }
            print((try? ControlJSON.encode(report)) ?? #"{"ok":false,"checks":[]}"#)
            throw ExitCode(report.ok ? 0 : 1)
        }

        let level = configuration.log.level
        // Under systemd, the journal natively (metadata as fields); HANDOFF_JOURNAL_SOCKET points a
        // test at a socket of its own.
        let environment = ProcessInfo.processInfo.environment
        let journal =
            environment["HANDOFF_JOURNAL_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (JournalLogHandler.standardErrorIsJournal() ? JournalLogHandler.defaultSocket : nil)
        LoggingSystem.bootstrap { label in
            if let journal {
                var handler = JournalLogHandler(label: label, identifier: "handoffd", socket: journal)
                handler.logLevel = level
                return handler
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "handoffd")
        do {
            try PackDaemon.runBlocking(configuration: configuration, logger: logger)
        } catch {
            logger.critical("handoffd cannot run: \(error)")
            throw ExitCode.failure
        }
    }
}

/// Runs async work from synchronous `main` (see PackDaemon.runBlocking for why main stays synchronous).
func runAndWait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let value = await work()
        box.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return box.withLock { $0! }
}
