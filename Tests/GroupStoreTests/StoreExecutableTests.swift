import Foundation
import GroupStore
import Logging
import TestSupport
import Testing

/// The built `handoff-store`, run as an operator runs it: with no configuration, with its options,
/// and with their environment-variable twins.
@Suite(
    "handoff-store, the executable: no configuration needed, options and their environment twins (real time: the store as a process)"
)
struct StoreExecutableTests {
    /// The test's environment without anything that would configure the store.
    static func environment(_ extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("HANDOFF_STORE_") && $0.key != "XDG_DATA_HOME"
        }
        environment.merge(extra) { $1 }
        return environment
    }

    /// Starts the store; returns once `/v1/health` answers on `port`, or fails with its output.
    static func start(
        _ arguments: [String], _ environment: [String: String], port: UInt16
    ) async throws
        -> BackgroundProcess
    {
        let store = try BackgroundProcess(Products.url("handoff-store"), arguments, environment: environment)
        let started = Date()
        while Date().timeIntervalSince(started) < 60 {
            if let body = try? await LoopbackHTTP(port: port).send("GET", "/v1/health", nil),
                String(decoding: body, as: UTF8.self).contains("\"status\":\"ok\"")
            {
                return store
            }
            if !store.isRunning { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        store.stop()
        let output = (try? String(contentsOfFile: store.outputPath, encoding: .utf8)) ?? ""
        throw LoopbackHTTP.Failure(description: "handoff-store did not answer on port \(port): \(output.suffix(800))")
    }

    /// Stops it with SIGTERM, as systemd does, and expects a clean exit.
    static func stop(_ store: BackgroundProcess) {
        store.stop(grace: 15)
        #expect(store.process.terminationReason == .exit && store.process.terminationStatus == 0)
    }

    @Test(
        "With nothing set it keeps SQLite in $XDG_DATA_HOME/handoff-store, else ~/.local/share; each twin works and a flag beats its twin"
    )
    func sqliteDefaultsAndTwins() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fileManager = FileManager.default

        // Only where to listen is given (8080 may be taken on a test machine).
        let xdg = directory.file("xdg").path
        var port = freeLoopbackPort()
        var store = try await Self.start(
            [], Self.environment(["XDG_DATA_HOME": xdg, "HANDOFF_STORE_PORT": "\(port)"]), port: port)
        Self.stop(store)
        #expect(fileManager.fileExists(atPath: xdg + "/handoff-store/store.sqlite"))
        let mode = try fileManager.attributesOfItem(atPath: xdg + "/handoff-store")[.posixPermissions] as? Int
        #expect(mode == 0o700, "the data directory is the store's alone")

        // No XDG_DATA_HOME: the XDG default under HOME.
        let home = directory.file("home").path
        port = freeLoopbackPort()
        store = try await Self.start(["--port", "\(port)"], Self.environment(["HOME": home]), port: port)
        Self.stop(store)
        #expect(fileManager.fileExists(atPath: home + "/.local/share/handoff-store/store.sqlite"))

        // The twins of --host and --data.
        let twin = directory.file("twin").path
        port = freeLoopbackPort()
        store = try await Self.start(
            [],
            Self.environment([
                "HANDOFF_STORE_HOST": "127.0.0.1", "HANDOFF_STORE_PORT": "\(port)", "HANDOFF_STORE_DATA": twin,
                "XDG_DATA_HOME": xdg + "-unused",
            ]), port: port)
        Self.stop(store)
        #expect(fileManager.fileExists(atPath: twin + "/store.sqlite"))
        #expect(!fileManager.fileExists(atPath: xdg + "-unused"))

        // A flag beats its twin.
        let flagged = directory.file("flag").path
        let ignoredPort = freeLoopbackPort()
        port = freeLoopbackPort()
        store = try await Self.start(
            ["--port", "\(port)", "--data", flagged],
            Self.environment(["HANDOFF_STORE_PORT": "\(ignoredPort)", "HANDOFF_STORE_DATA": twin + "-unused"]),
            port: port)
        Self.stop(store)
        #expect(fileManager.fileExists(atPath: flagged + "/store.sqlite"))
        #expect(!fileManager.fileExists(atPath: twin + "-unused"))

        // A wrong port is refused in words, before anything is made.
        let refused = try await runProcessAsync(
            Products.url("handoff-store"), [], environment: Self.environment(["HANDOFF_STORE_PORT": "eighty"]))
        #expect(refused.status != 0 && refused.stderr.contains("the port must be a number from 0 to 65535, not eighty"))
    }

    @Test(
        "HANDOFF_STORE_DATABASE, like --database, keeps the data in PostgreSQL; a URL that is not one is refused in words"
    )
    func postgresTwin() async throws {
        let admin = try Backend.postgresAdminURL()
        let logger = Logger(label: "store.test")
        let name = "handoff_exe_\(UInt64.random(in: 0...UInt64.max) % 1_000_000_000_000)"
        try await PostgresDatabase.createDatabase(adminURL: admin, name: name, logger: logger)
        let url = PostgresDatabase.url(admin, database: name)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let port = freeLoopbackPort()
            let store = try await Self.start(
                ["--bcrypt-cost", "4"],
                Self.environment([
                    "HANDOFF_STORE_DATABASE": url, "HANDOFF_STORE_PORT": "\(port)",
                    "XDG_DATA_HOME": directory.file("xdg").path,
                ]), port: port)
            let signUp = try await LoopbackHTTP(port: port).send(
                "POST", "/v1/accounts",
                Data(#"{"email":"ola@example.org","username":"ola","password":"correct horse battery"}"#.utf8))
            #expect(String(decoding: signUp, as: UTF8.self).contains("\"token\""))
            Self.stop(store)
            #expect(!FileManager.default.exists(directory.file("xdg").path), "no SQLite beside PostgreSQL")
            let database = try PostgresDatabase(url: url, logger: logger)
            let accounts = try await database.whileRunning {
                try await database.read { try await $0.one("SELECT count(*) AS n FROM account") }
            }
            #expect(try accounts?.int("n") == 1, "the account is in PostgreSQL")
            try? await PostgresDatabase.dropDatabase(adminURL: admin, name: name, logger: logger)
        } catch {
            try? await PostgresDatabase.dropDatabase(adminURL: admin, name: name, logger: logger)
            throw error
        }

        let refused = try await runProcessAsync(
            Products.url("handoff-store"), ["--database", "mysql://root@127.0.0.1/club"],
            environment: Self.environment([:]))
        #expect(refused.status != 0 && refused.stderr.contains("postgres://"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("Fatal error"))
    }
}

extension FileManager {
    fileprivate func exists(_ path: String) -> Bool { fileExists(atPath: path) }
}
