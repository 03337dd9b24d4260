import Foundation
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import Testing

@testable import GroupStore

/// A database made by an older store, upgraded by this one: the data it held comes through.
@Suite("Schema migrations keep the data")
struct SchemaMigrationTests {
    /// What a version 4 database was seeded with: tokens by username, and each run's file by uuid
    /// and whose it is.
    struct Seeded {
        var tokens: [String: String] = [:]
        var files: [String: (owner: String, bytes: [UInt8])] = [:]
    }

    /// Two runners in one group, with runs whose files are FIT files of the tests' writer and
    /// bytes of every value (NUL included), from a few bytes to 300 kB (past SQLite's page and
    /// PostgreSQL's TOAST threshold); every total the sum of its runs, as the store keeps them.
    static func seedVersion4(_ database: any SQLDatabase, now: WallInstant) async throws -> Seeded {
        var generator = SeededGenerator(seed: 31)
        let start = now.advanced(byNanoseconds: -86_400 * nanosecondsPerSecond)
        var files: [(owner: String, bytes: [UInt8])] = []
        for seconds in [300, 600, 1800] {
            files.append(("ada", RunFiles.fit(start: start, seconds: seconds)))
            files.append(("bob", RunFiles.fit(start: start, seconds: seconds, speed: 2.5)))
        }
        files.append(("ada", [0, 255, 0, 1, 0x0e, 0x10]))
        files.append(("bob", (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        let runs = files.enumerated().map { index, file in
            (
                uuid: "00000000-0000-4000-8000-\(String(format: "%012d", index))", owner: file.owner,
                bytes: file.bytes, distance: Int64(1_000_000 + index * 1000),
                started: start.advanced(byNanoseconds: Int64(index) * 3600 * nanosecondsPerSecond)
            )
        }
        let names = ["ada", "bob"]
        try await database.write { db in
            var accounts: [String: Int64] = [:]
            for name in names {
                accounts[name] = try #require(
                    try await db.one(
                        """
                        INSERT INTO account (email, username, username_key, password_hash, created_ns, email_key)
                        VALUES (?, ?, ?, 'x', ?, ?) RETURNING id
                        """, "\(name)@example.org", name, name, now.nanosecondsSinceEpoch, "\(name)@example.org"
                    )?.int("id"))
                try await db.query(
                    """
                    INSERT INTO token (hash, account_id, scope, created_ns, expires_ns)
                    VALUES (?, ?, 'session', ?, ?)
                    """, AccountService.digest(Self.token(name)), accounts[name], now.nanosecondsSinceEpoch,
                    now.advanced(byNanoseconds: 86_400 * nanosecondsPerSecond).nanosecondsSinceEpoch)
            }
            let team = try #require(
                try await db.one(
                    """
                    INSERT INTO team (name, owner_id, goal_mm, invite_code, lease_s, created_ns)
                    VALUES ('Relay club', ?, 100000000, 'INVITE-V4', 86400, ?) RETURNING id
                    """, accounts["ada"], now.nanosecondsSinceEpoch)?.int("id"))
            for (index, run) in runs.enumerated() {
                let id = try #require(
                    try await db.one(
                        """
                        INSERT INTO run (uuid, account_id, started_ns, elapsed_ms, timer_ms, distance_mm, sport, format,
                            sha256, size, file, summary, uploaded_ns)
                        VALUES (?, ?, ?, 600000, 600000, ?, 'running', 'fit', ?, ?, ?, '{"source":"test"}', ?)
                        RETURNING id
                        """, run.uuid, accounts[run.owner], run.started.nanosecondsSinceEpoch, run.distance,
                        String(repeating: "\(index % 10)", count: 64), run.bytes.count, run.bytes,
                        now.nanosecondsSinceEpoch
                    )?.int("id"))
                try await db.query(
                    "INSERT INTO run_team (run_id, team_id, distance_mm) VALUES (?, ?, ?)", id, team, run.distance)
            }
            for (turn, name) in names.enumerated() {
                let mine = runs.filter { $0.owner == name }
                try await db.query(
                    """
                    INSERT INTO member (team_id, account_id, joined_ns, turn, distance_mm, runs) VALUES (?, ?, 0, ?, ?, ?)
                    """, team, accounts[name], turn, mine.reduce(Int64(0)) { $0 + $1.distance }, mine.count)
            }
            try await db.query(
                "UPDATE team SET total_mm = ? WHERE id = ?", runs.reduce(Int64(0)) { $0 + $1.distance }, team)
        }
        return Seeded(
            tokens: Dictionary(uniqueKeysWithValues: names.map { ($0, Self.token($0)) }),
            files: Dictionary(uniqueKeysWithValues: runs.map { ($0.uuid, ($0.owner, $0.bytes)) }))
    }

    static func token(_ name: String) -> String { "\(name)-token-from-version-4" }

    @Test(
        "Version 5 moves every uploaded file from `run` to `run_file`, byte for byte, and the store serves them",
        arguments: Backend.available)
    func filesApart(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        let clock = harness.clock
        try await harness.withDatabase { database in
            try await Schema.migrate(database, upTo: 4)
            let seeded = try await Self.seedVersion4(database, now: clock.now)
            let repository = try await StoreRepository(database)

            let moved = try await database.read { db in
                try await db.query(
                    "SELECT run.uuid, run_file.file FROM run JOIN run_file ON run_file.run_id = run.id", []
                ).map { (try $0.text("uuid"), try $0.blob("file")) }
            }
            #expect(moved.count == seeded.files.count)
            for (uuid, file) in moved { #expect(file == seeded.files[uuid]?.bytes, "run \(uuid)") }
            await #expect(throws: SQLError.self, "run has no file column") {
                try await database.read { db in try await db.query("SELECT file FROM run", []) }
            }
            if backend == .postgres {
                // lz4 on a server built with it (Debian's is), else stored as they come: never pglz.
                let column = try await database.read { db in
                    try await db.one(
                        """
                        SELECT attcompression::text AS compression, attstorage::text AS storage FROM pg_attribute
                        WHERE attrelid = 'run_file'::regclass AND attname = 'file'
                        """)
                }
                #expect(try column?.text("compression") == "l" || column?.text("storage") == "e")
            }
            try await checkTotals(repository)

            let app = StoreApplication.make(
                repository: repository, configuration: harness.configuration, logger: harness.logger,
                now: { clock.now })
            try await Backend.$current.withValue(backend) {
                try await app.test(.router) { client in
                    for (uuid, (owner, bytes)) in seeded.files {
                        let download = try await client.call(
                            .get, "/v1/runs/\(uuid)/file", token: seeded.tokens[owner])
                        #expect(download.status == .ok && [UInt8](download.body) == bytes, "run \(uuid)")
                    }
                    let ada = try #require(seeded.tokens["ada"])
                    let list = try await client.call(.get, "/v1/runs?limit=50", token: ada)
                    let listed = try list.decode(RunList.self).runs
                    #expect(
                        Set(listed.map(\.uuid)) == Set(seeded.files.filter { $0.value.owner == "ada" }.keys),
                        "\(list.text)")
                    #expect(listed.allSatisfy { $0.size == Int64(seeded.files[$0.uuid]?.bytes.count ?? -1) })

                    // New runs go to run_file too; a deleted run takes its file with it.
                    let file = RunFiles.fit(start: clock.now.advanced(byNanoseconds: -3600 * nanosecondsPerSecond))
                    let uuid = UUID().uuidString.lowercased()
                    #expect(try await client.upload(ada, uuid: uuid, file: file).status == .created)
                    let download = try await client.call(.get, "/v1/runs/\(uuid)/file", token: ada)
                    #expect([UInt8](download.body) == file)
                    let gone = try #require(seeded.files.first { $0.value.owner == "bob" }?.key)
                    let bob = seeded.tokens["bob"]
                    #expect(try await client.call(.delete, "/v1/runs/\(gone)", token: bob).status == .noContent)
                    let files = try await database.read { db in
                        try await db.one("SELECT count(*) AS n FROM run_file")?.int("n")
                    }
                    #expect(files == Int64(seeded.files.count), "one file more, one less")
                }
            }
            try await checkTotals(repository)
        }
    }
}
