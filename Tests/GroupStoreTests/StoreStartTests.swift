import Foundation
import GroupStore
import TestSupport
import Testing

/// The store's start, as an operator meets it: a port in use, a data directory it cannot write, a
/// database URL that is not one. Each is one sentence on standard error naming the flag (and its
/// environment twin) to change, a non-zero exit, and nothing made on disk.
@Suite("handoff-store's start: one sentence naming the flag to change, before anything is made")
struct StoreStartTests {
    static func environment(_ extra: [String: String]) -> [String: String] {
        StoreExecutableTests.environment(extra)
    }

    /// Standard error is exactly one line, the sentence; no usage text, no crash.
    static func expectOneSentence(_ result: ProcessResult, _ sentence: String) {
        #expect(result.status != 0)
        #expect(result.stderr == "handoff-store: \(sentence)\n", "\(result.stderr)")
    }

    @Test(
        "A port in use is refused in one sentence naming --port and HANDOFF_STORE_PORT, and the data directory is not made"
    )
    func portInUse() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (fd, port) = try listenOnLoopback(backlog: 1)
        defer { close(fd) }
        let data = directory.file("data").path
        let sentence =
            "port \(port) on 127.0.0.1 is in use by another program: choose another with --port (or HANDOFF_STORE_PORT)"
        let flagged = try await runProcessAsync(
            Products.url("handoff-store"), ["--port", "\(port)", "--data", data], environment: Self.environment([:]))
        Self.expectOneSentence(flagged, sentence)
        // The same through the twins, and the XDG default left alone.
        let xdg = directory.file("xdg").path
        let twin = try await runProcessAsync(
            Products.url("handoff-store"), [],
            environment: Self.environment(["HANDOFF_STORE_PORT": "\(port)", "XDG_DATA_HOME": xdg]))
        Self.expectOneSentence(twin, sentence)
        #expect(!FileManager.default.fileExists(atPath: data))
        #expect(!FileManager.default.fileExists(atPath: xdg))
    }

    @Test(
        "A data directory this user cannot make or write is refused in one sentence naming --data and HANDOFF_STORE_DATA, and nothing is made"
    )
    func unwritableData() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let locked = directory.file("locked").path
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        let data = locked + "/store/data"
        let port = freeLoopbackPort()
        var command = Products.url("handoff-store")
        var arguments = ["--port", "\(port)", "--data", data]
        var environment = Self.environment(["HOME": directory.path])
        if getuid() == 0 {
            // Root writes anywhere: the store runs as nobody, for whom the root-owned folder is
            // read-only (and the test's folder open to walk through).
            chmod(directory.path, 0o755)
            chmod(locked, 0o755)
            let setpriv = try SystemPrograms.require("setpriv", package: "util-linux")
            arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", command.path] + arguments
            command = setpriv
            environment["HOME"] = "/nonexistent"
        } else {
            chmod(locked, 0o555)
        }
        defer { chmod(locked, 0o755) }
        let result = try await runProcessAsync(command, arguments, environment: environment)
        Self.expectOneSentence(
            result,
            "the data directory \(data) cannot be made: \(locked) is not writable by this user: choose another with --data (or HANDOFF_STORE_DATA)"
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: locked).isEmpty)

        // A file where the directory should be: the same flag, another reason.
        let file = directory.file("a-file").path
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let onFile = try await runProcessAsync(
            Products.url("handoff-store"), ["--port", "\(port)"],
            environment: Self.environment(["HANDOFF_STORE_DATA": file + "/data"]))
        Self.expectOneSentence(
            onFile,
            "the data directory \(file)/data cannot be made: \(file) is a file, not a directory: choose another with --data (or HANDOFF_STORE_DATA)"
        )
    }

    @Test(
        "A database URL that is not PostgreSQL's, or names a server that is not there, is one sentence naming --database; no SQLite is made"
    )
    func badDatabaseURL() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let xdg = directory.file("xdg").path
        let port = freeLoopbackPort()
        let wrong = try await runProcessAsync(
            Products.url("handoff-store"), ["--port", "\(port)", "--database", "mysql://root@127.0.0.1/club"],
            environment: Self.environment(["XDG_DATA_HOME": xdg]))
        Self.expectOneSentence(
            wrong,
            "the database URL must start with postgres:// or postgresql://: write it as postgres://handoff:PASSWORD@127.0.0.1:5432/handoff?sslmode=disable (percent-encode @ : / % in the user and password): fix --database (or HANDOFF_STORE_DATABASE)"
        )
        let twin = try await runProcessAsync(
            Products.url("handoff-store"), ["--port", "\(port)"],
            environment: Self.environment([
                "XDG_DATA_HOME": xdg, "HANDOFF_STORE_DATABASE": "postgres://handoff@127.0.0.1",
            ]))
        #expect(twin.status != 0)
        #expect(twin.stderr.hasPrefix("handoff-store: the database URL names no database"), "\(twin.stderr)")
        #expect(twin.stderr.hasSuffix("fix --database (or HANDOFF_STORE_DATABASE)\n"))
        // A URL that reads well but reaches no server: the port nobody listens on.
        let closed = freeLoopbackPort()
        let absent = try await runProcessAsync(
            Products.url("handoff-store"),
            ["--port", "\(port)", "--database", "postgres://handoff@127.0.0.1:\(closed)/handoff"],
            environment: Self.environment(["XDG_DATA_HOME": xdg]))
        #expect(absent.status != 0)
        #expect(
            absent.stderr.hasPrefix(
                "handoff-store: the PostgreSQL database at 127.0.0.1:\(closed)/handoff could not be reached"),
            "\(absent.stderr)")
        #expect(absent.stderr.contains("--database") && absent.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: xdg), "no SQLite beside a database URL")
    }

    @Test("handoff-store --version prints the store's version")
    func version() async throws {
        let result = try await runProcessAsync(Products.url("handoff-store"), ["--version"])
        #expect(result.status == 0 && result.stdout == StoreVersion.current + "\n")
    }
}
