import Foundation
import GroupStore
import HandoffAPI
import HandoffModel
import Logging
import TestSupport
import Testing

/// `handoff-store` as a process, under load, when its database fails: a PostgreSQL server of its
/// own (scripts/postgres on a free port) stopped and started again, SIGTERM while the server is
/// down, and SQLite's file system filled up (a tmpfs of the store's own).
@Suite(
    "Faults under load, handoff-store as a process: PostgreSQL stopped and started, SIGTERM, a full disk (real time)",
    .serialized)
struct StoreFaultTests {
    /// A PostgreSQL server of the test's own, which it may stop.
    struct OwnPostgres {
        let port = freeLoopbackPort()
        let directory: TemporaryDirectory
        /// A database of the store's own (PostgreSQL 15 lets no one but its owner create tables in
        /// `postgres`).
        var url: String { "postgres://handoff:handoff@127.0.0.1:\(port)/faults" }

        init() async throws {
            _ = try Backend.postgresAdminURL()  // the same skip or failure as every PostgreSQL case
            directory = try TemporaryDirectory()
            // The server runs as user postgres where the tests run as root.
            chmod(directory.url.path, 0o755)
            try await script("start")
            try await PostgresDatabase.createDatabase(
                adminURL: "postgres://handoff:handoff@127.0.0.1:\(port)/postgres", name: "faults",
                logger: Logger(label: "store.test"))
        }

        func script(_ arguments: String...) async throws {
            let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/postgres").path
            let result = try await StoreFaultTests.shell(
                "PGPORT=\(port) HANDOFF_POSTGRES_DIR='\(directory.file("pg").path)' '\(script)' "
                    + arguments.joined(separator: " "))
            #expect(result.status == 0, "scripts/postgres \(arguments): \(result.output)")
        }

        func remove() async {
            try? await script("stop", "--immediate")
            directory.remove()
        }

        /// Runs `body` with a server of its own, stopped and removed afterwards.
        static func with(_ body: (OwnPostgres) async throws -> Void) async throws {
            let postgres = try await OwnPostgres()
            do {
                try await body(postgres)
                await postgres.remove()
            } catch {
                await postgres.remove()
                throw error
            }
        }
    }

    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Runs a shell command (its output to a file), off the cooperative pool: its exit status
    /// and output. Through system(3), which waits for its own child, not Foundation's Process.
    static func shell(_ command: String) async throws -> (status: Int32, output: String) {
        let log = NSTemporaryDirectory() + "handoff-fault-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let status = try await offPool { system("\(command) >'\(log)' 2>&1") }
        return ((status >> 8) & 0xff, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    /// An account with a group, through the API: its token and the group's id.
    static func setUp(_ http: FaultHTTP, _ name: String = "ada") async throws -> (token: String, group: Int) {
        let signUp = try await http.send(
            "POST", "/v1/accounts",
            json: SignUp(email: "\(name)@example.org", username: name, password: "correct horse battery"))
        let token = try #require(signUp.json["token"] as? String, "\(signUp.text)")
        let group = try await http.send(
            "POST", "/v1/groups", token: token, json: GroupCreate(name: "Relay club", goalM: 100_000))
        return (token, try #require(group.json["id"] as? Int, "\(group.text)"))
    }

    static func startStore(_ arguments: [String]) async throws -> (SpawnedProcess, FaultHTTP) {
        let port = freeLoopbackPort()
        let store = try SpawnedProcess(
            Products.url("handoff-store").path, arguments + ["--port", "\(port)", "--bcrypt-cost", "4"],
            environment: StoreExecutableTests.environment([:]))
        let http = FaultHTTP(port: port)
        try await waitUntilHealthy(store, http)
        return (store, http)
    }

    /// Sends SIGTERM and waits up to 15 s: the seconds it took to exit.
    static func terminate(_ store: SpawnedProcess) async throws -> Double {
        let began = Date()
        kill(store.pid, SIGTERM)
        let took = try await offPool {
            while store.isRunning, Date().timeIntervalSince(began) < 15 { usleep(20_000) }
            return Date().timeIntervalSince(began)
        }
        if store.isRunning { store.stop(grace: 0) }
        return took
    }

    @Test(
        "PostgreSQL stopped for 5 s under load: every request ends within 2 s with 200, 201 or 503 with Retry-After; uploads work again soon after it returns, and the totals are exact"
    )
    func postgresStoppedAndStartedUnderLoad() async throws {
        try await OwnPostgres.with { postgres in try await stopAndStart(postgres) }
    }

    func stopAndStart(_ postgres: OwnPostgres) async throws {
        let (store, http) = try await Self.startStore(["--database", postgres.url])
        defer { store.stop() }
        let (token, group) = try await Self.setUp(http)
        let load = FaultLoad()
        let start = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970 + 2)
        let running = Task {
            await load.run(http, token: token, group: group, start: start, uploaders: 4, readers: 2)
        }
        try await Task.sleep(for: .seconds(2))
        let stopped = Date()
        try await postgres.script("stop")
        try await Task.sleep(for: .seconds(5))
        try await postgres.script("resume")
        let resumed = Date()
        try await Task.sleep(for: .seconds(5))
        load.stop()
        await running.value

        let seen = load.seen
        let late = seen.filter { $0.seconds >= 2 }
        let log = store.printed.split(separator: "\n").filter { line in
            ["error", "notice", "warning", "critical"].contains { line.contains(" \($0) ") }
                || late.contains { line.contains(String($0.what.dropFirst("PUT /v1/runs/".count).prefix(36))) }
        }
        // Every request answered within 2 s, with 200, 201 or 503. (An upload in flight when the
        // server stopped once never answered: see PostgresSession.send.)
        #expect(
            late.isEmpty, "\(late.count) requests took 2 s or more: \(late.prefix(5)); the store: \(log.suffix(40))")
        let wrong = seen.filter { ![200, 201, 503].contains($0.status) }
        #expect(wrong.isEmpty, "\(wrong.count) answers not 200, 201 or 503: \(wrong.prefix(5))")
        let unavailable = seen.filter { $0.status == 503 }
        #expect(!unavailable.isEmpty, "the outage was seen")
        #expect(unavailable.allSatisfy { $0.retryAfter == "2" })
        #expect(seen.contains { $0.at < stopped && $0.status == 201 })
        let back = seen.first { $0.at > resumed && $0.status == 201 && $0.what.hasPrefix("PUT") }
        let recovery = back.map { $0.at.timeIntervalSince(resumed) } ?? 99
        #expect(recovery < 5, "the first upload stored after PostgreSQL returned: \(recovery) s")

        // Every run not stored yet goes up now; then the total is the sum of all of them.
        let tried = load.tried
        for (uuid, file) in tried where !load.stored.contains(uuid) {
            let answer = try await http.upload(token, uuid: uuid, file: file)
            #expect(answer.status == 201 || answer.status == 200, "\(answer.status) \(answer.text)")
        }
        let progress = try await http.send("GET", "/v1/groups/\(group)/progress", token: token)
        let total = try JSONDecoder().decode(ProgressView.self, from: progress.body).group.totalM
        let expected = try tried.values.reduce(Int64(0)) { $0 + (try RunFiles.distanceMM($1)) }
        #expect(Int64((total * 1000).rounded()) == expected, "\(tried.count) runs")
        let database = try PostgresDatabase(url: postgres.url, logger: Logger(label: "store.test"))
        try await database.whileRunning { try await checkTotals(try await StoreRepository(database)) }
        #expect(try await Self.terminate(store) < 10)
    }

    @Test("SIGTERM under load ends the store within 10 s, with PostgreSQL up and with PostgreSQL stopped")
    func sigtermWithinTenSeconds() async throws {
        try await OwnPostgres.with { postgres in
            for (round, stopPostgres) in [false, true].enumerated() {
                let (store, http) = try await Self.startStore(["--database", postgres.url])
                defer { store.stop() }
                let (token, group) = try await Self.setUp(http, "runner\(round)")
                let load = FaultLoad()
                let start = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970 + 2)
                let running = Task {
                    await load.run(http, token: token, group: group, start: start, uploaders: 4, readers: 4)
                }
                try await Task.sleep(for: .seconds(1))
                if stopPostgres {
                    try await postgres.script("stop", "--immediate")
                    try await Task.sleep(for: .seconds(1))
                }
                let took = try await Self.terminate(store)
                load.stop()
                await running.value
                let state = stopPostgres ? "stopped" : "up"
                #expect(took < 10, "PostgreSQL \(state): SIGTERM took \(took) s")
                #expect(store.exitStatus == 0, "PostgreSQL \(state): \(store.printed.suffix(600))")
            }
        }
    }

    @Test(
        "SQLite's file system full: uploads get 507 storage_full, reads get 200; with room again uploads get 201 without a restart"
    )
    func sqliteDiskFull() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.file("data").path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        guard try await Self.canMountTmpfs(data) else { return }
        let port = freeLoopbackPort()
        // A tmpfs of 32 MB in a mount namespace of the store's own: it goes when the store does.
        let store = try SpawnedProcess(
            try SystemPrograms.require("unshare", package: "util-linux").path,
            [
                "--mount", "--propagation", "private", "sh", "-c",
                #"mount -t tmpfs -o size=32m handoff-full "$1" && exec "$2" --data "$1" --port "$3" --bcrypt-cost 4"#,
                "sh", data, Products.url("handoff-store").path, "\(port)",
            ], environment: StoreExecutableTests.environment([:]))
        defer { store.stop() }
        let http = FaultHTTP(port: port)
        try await Self.waitUntilHealthy(store, http)
        let (token, group) = try await Self.setUp(http)
        let login = try await http.send(
            "POST", "/login", body: Array("login=ada&password=correct+horse+battery".utf8),
            contentType: "application/x-www-form-urlencoded")
        let cookie = String((login.headers["set-cookie"] ?? "").split(separator: ";").first ?? "")
        let pack = try await Self.link(http, token)
        let start = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970 + 2)
        var files: [String: [UInt8]] = [:]
        for index in 0..<3 {
            let uuid = UUID().uuidString.lowercased()
            files[uuid] = FaultCalls.run(start, index)
            #expect(try await http.upload(token, uuid: uuid, file: files[uuid] ?? []).status == 201)
        }

        // Fill the store's file system, through its mount namespace.
        let filler = "/proc/\(store.pid)/root\(data)/filler"
        let written = try await Self.offPool { try Self.fill(filler) }
        #expect(written > 0)
        var refused: [String] = []
        for index in 3..<9 {
            let uuid = UUID().uuidString.lowercased()
            files[uuid] = FaultCalls.run(start, index)
            let answer = try await http.upload(token, uuid: uuid, file: files[uuid] ?? [])
            #expect(answer.status == 201 || answer.status == 507, "\(answer.status) \(answer.text)")
            if answer.status == 507 {
                refused.append(uuid)
                #expect(answer.json["error"].flatMap { ($0 as? [String: Any])?["code"] as? String } == "storage_full")
            }
        }
        #expect(!refused.isEmpty, "a full disk refused no upload")
        let stored = try #require(files.keys.first { !refused.contains($0) })
        for (path, credential) in [
            ("/v1/runs", token), ("/v1/groups/\(group)/progress", token), ("/v1/runs/\(stored)/file", token),
            ("/v1/groups", pack), ("/v1/groups/\(group)/baton", pack),
        ] {
            let answer = try await http.send("GET", path, token: credential)
            #expect(answer.status == 200, "\(path): \(answer.status) \(answer.text)")
        }
        let page = try await http.send("GET", "/groups/\(group)", cookie: cookie)
        #expect(page.status == 200 && page.text.contains("Relay club"), "\(page.status)")

        // Room again, the same store: the refused uploads are stored, and the total is exact.
        try FileManager.default.removeItem(atPath: filler)
        for uuid in refused {
            #expect(try await http.upload(token, uuid: uuid, file: files[uuid] ?? []).status == 201)
        }
        let progress = try await http.send("GET", "/v1/groups/\(group)/progress", token: token)
        let total = try JSONDecoder().decode(ProgressView.self, from: progress.body).group.totalM
        let expected = try files.values.reduce(Int64(0)) { $0 + (try RunFiles.distanceMM($1)) }
        #expect(Int64((total * 1000).rounded()) == expected)
        #expect(try await Self.terminate(store) < 10)
    }

    /// Whether this machine lets the tests mount a tmpfs in a mount namespace of their own (root
    /// with CAP_SYS_ADMIN, as in CI). Where it does not, the test fails where system programs are
    /// required and is skipped elsewhere.
    static func canMountTmpfs(_ directory: String) async throws -> Bool {
        let unshare = try SystemPrograms.require("unshare", package: "util-linux")
        let result = try await shell(
            "'\(unshare.path)' --mount --propagation private mount -t tmpfs -o size=1m t '\(directory)'")
        if result.status == 0 { return true }
        let reason = "cannot mount a tmpfs in a mount namespace (needs root with CAP_SYS_ADMIN): \(result.output)"
        if SystemPrograms.required {
            Issue.record("\(reason) (\(SystemPrograms.environmentVariable) is set)")
        } else {
            Issue.record("disk-full case not run: \(reason)", severity: .warning)
            try Test.cancel("disk-full case not run: \(reason)")
        }
        return false
    }

    static func waitUntilHealthy(_ store: SpawnedProcess, _ http: FaultHTTP) async throws {
        let started = Date()
        while Date().timeIntervalSince(started) < 60 {
            if let answer = try? await http.send("GET", "/v1/health"), answer.status == 200 { return }
            if !store.isRunning { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("handoff-store did not answer on port \(http.port): \(store.printed.suffix(800))")
        throw FaultHTTP.Failure(description: "no store")
    }

    /// Links a pack through the device flow: its token.
    static func link(_ http: FaultHTTP, _ token: String) async throws -> String {
        let code = try await http.send("POST", "/v1/device/code", body: Array(#"{"name":"ada's pack"}"#.utf8))
        let userCode = try #require(code.json["user_code"] as? String, "\(code.text)")
        let deviceCode = try #require(code.json["device_code"] as? String)
        let approved = try await http.send(
            "POST", "/v1/device/approve", token: token, body: Array(#"{"user_code":"\#(userCode)"}"#.utf8))
        #expect(approved.status == 200, "\(approved.text)")
        let linked = try await http.send(
            "POST", "/v1/device/token", body: Array(#"{"device_code":"\#(deviceCode)"}"#.utf8))
        return try #require(linked.json["access_token"] as? String, "\(linked.text)")
    }

    /// Writes zeros to `path` until the file system is full: the bytes written.
    static func fill(_ path: String) throws -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw FaultHTTP.Failure(description: "cannot create \(path)")
        }
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { throw FaultHTTP.Failure(description: "cannot open \(path): errno \(errno)") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        while true {
            let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
            if n <= 0 { break }
            total += n
        }
        return total
    }
}
