import ArgumentParser
import Foundation
import GroupStore
import Hummingbird
import Logging

@main
struct HandoffStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoff-store",
        abstract: "The Handoff group store: accounts, groups, the baton and runs, over HTTP.",
        discussion: """
            Starts with no configuration: SQLite in the data directory, listening on 127.0.0.1:8080. \
            Every option has an environment variable twin (HANDOFF_STORE_HOST, _PORT, _DATA).
            """,
        version: StoreVersion.current)

    @Option(help: "The address to listen on (HANDOFF_STORE_HOST).")
    var host: String?

    @Option(help: "The port to listen on (HANDOFF_STORE_PORT).")
    var port: Int?

    @Option(
        help: "The data directory for the SQLite database (HANDOFF_STORE_DATA; default $XDG_DATA_HOME/handoff-store).")
    var data: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var configuration = StoreApplication.Configuration()
        configuration.host = host ?? environment["HANDOFF_STORE_HOST"] ?? configuration.host
        if let text = port.map(String.init) ?? environment["HANDOFF_STORE_PORT"] {
            guard let value = Int(text), (0...65535).contains(value) else {
                throw ValidationError("the port must be a number from 0 to 65535, not \(text)")
            }
            configuration.port = value
        }
        let directory = data ?? environment["HANDOFF_STORE_DATA"] ?? Self.defaultData(environment)
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var logger = Logger(label: "handoff.store")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let repository = try SQLiteRepository(path: directory + "/store.sqlite")
        logger.info("Store data", metadata: ["database": "\(directory)/store.sqlite"])
        let app = StoreApplication.make(repository: repository, configuration: configuration, logger: logger)
        try await app.runService()
    }

    static func defaultData(_ environment: [String: String]) -> String {
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/handoff-store" }
        return (environment["HOME"] ?? ".") + "/.local/share/handoff-store"
    }
}
