import ActivityFormats
import Foundation
import GroupStore
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird
import HummingbirdTesting
import Logging
import PackControl
import PackStorage
import PackSync
import PackSystem
import TestSupport
import Testing

/// A real group store (SQLite in a temporary directory) on a loopback port, and the calls a test
/// makes to it as a person would (sign up, groups, approving a pack's code).
struct LiveStore: Sendable {
    let client: any TestClientProtocol
    let port: UInt16

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    static func run(_ body: @Sendable (LiveStore) async throws -> Void) async throws {
        let directory = try TemporaryDirectory("handoff-sync-store")
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file("store.sqlite").path)
        let repository = try await StoreRepository(database)
        var configuration = StoreApplication.Configuration()
        configuration.network.port = 0
        configuration.accounts.bcryptCost = 4
        var logger = Logger(label: "store.test")
        logger.logLevel = .warning
        let app = StoreApplication.make(repository: repository, configuration: configuration, logger: logger)
        try await app.test(.live) { client in
            try await body(LiveStore(client: client, port: UInt16(client.port ?? 0)))
        }
    }

    struct Reply: Sendable {
        let status: Int
        let body: [UInt8]

        /// The body as one of the API's types (module HandoffAPI).
        func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
            try JSONDecoder().decode(type, from: Data(body))
        }

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func call(
        _ method: HTTPRequest.Method, _ path: String, token: String? = nil, send: (any Encodable)? = nil
    )
        async throws -> Reply
    {
        var headers: HTTPFields = [:]
        if send != nil { headers[.contentType] = "application/json" }
        if let token { headers[.authorization] = "Bearer \(token)" }
        let body = try send.map { ByteBuffer(bytes: try JSONEncoder().encode($0)) }
        return try await client.execute(uri: path, method: method, headers: headers, body: body) { response in
            Reply(status: Int(response.status.code), body: Array(buffer: response.body))
        }
    }

    func signUp(_ username: String) async throws -> String {
        let reply = try await call(
            .post, "/v1/accounts",
            send: SignUp(email: "\(username)@example.org", username: username, password: "correct horse battery"))
        #expect(reply.status == 201, "\(reply.text)")
        return (try? reply.decode(SignedIn.self))?.token ?? ""
    }

    func createGroup(_ token: String, goal: Double = 10_000_000) async throws -> (id: Int, invite: String) {
        let reply = try await call(
            .post, "/v1/groups", token: token, send: GroupCreate(name: "Relay club", goalM: goal))
        #expect(reply.status == 201, "\(reply.text)")
        let group = try? reply.decode(GroupView.self)
        return (Int(group?.id ?? 0), group?.inviteCode ?? "")
    }

    func join(_ token: String, _ invite: String) async throws {
        let reply = try await call(.post, "/v1/groups/join", token: token, send: GroupJoin(inviteCode: invite))
        #expect(reply.status == 200, "\(reply.text)")
    }

    func approve(_ token: String, userCode: String) async throws {
        let reply = try await call(.post, "/v1/device/approve", token: token, send: DeviceApproval(userCode: userCode))
        #expect(reply.status == 200, "\(reply.text)")
    }

    /// The account's runs on the store: uuid to distance in metres.
    func runs(_ token: String) async throws -> [String: Double] {
        let reply = try await call(.get, "/v1/runs?limit=500", token: token)
        #expect(reply.status == 200)
        var runs: [String: Double] = [:]
        for run in (try? reply.decode(RunList.self))?.runs ?? [] {
            #expect(runs[run.uuid] == nil, "the store lists run \(run.uuid) twice")
            runs[run.uuid] = run.distanceM
        }
        return runs
    }

    func progress(_ token: String, group: Int) async throws -> ProgressView {
        let reply = try await call(.get, "/v1/groups/\(group)/progress", token: token)
        #expect(reply.status == 200)
        return try reply.decode(ProgressView.self)
    }

    func file(_ token: String, uuid: String) async throws -> [UInt8] {
        let reply = try await call(.get, "/v1/runs/\(uuid)/file", token: token)
        #expect(reply.status == 200)
        return reply.body
    }
}

/// A pack's journal and sync worker, without the rest of handoffd: the worker is what is tested.
final class TestPack: Sendable {
    let directory: TemporaryDirectory
    let database: PackDatabase
    let worker: SyncWorker
    let linkPath: String

    init(
        _ name: String, policy: HomePolicy = HomePolicy(ssids: [], source: .always), zones: [PrivacyZone] = [],
        backoff: Backoff = Backoff(minimumSeconds: 0.02, maximumSeconds: 0.3), timeout: Double = 10
    ) throws {
        directory = try TemporaryDirectory("handoff-sync-\(name)")
        database = try PackDatabase(path: directory.file("handoff.sqlite").path)
        linkPath = directory.file("store-link.json").path
        var configuration = SyncConfiguration(linkPath: linkPath, policy: policy, deviceName: "pack \(name)")
        configuration.backoff = backoff
        configuration.zones = zones
        configuration.timeoutSeconds = timeout
        // CI runs these beside the store's load tests on two cores: an answer may take seconds.
        configuration.batonTimeoutSeconds = 15
        var logger = Logger(label: "pack.\(name)")
        logger.logLevel = .critical
        worker = SyncWorker(database: database, configuration: configuration, logger: logger)
    }

    deinit { directory.remove() }

    /// Links through the store's device flow, a person approving the code with `token`.
    func link(to store: LiveStore, approvingWith token: String) async throws {
        let started = try await worker.beginLink(store: store.url.absoluteString, name: nil)
        #expect(started.phase == .waiting)
        try await store.approve(token, userCode: try #require(started.code?.userCode))
        let deadline = ContinuousClock.now + .seconds(30)
        var report = await worker.linkStatus()
        while report.phase == .waiting, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            report = await worker.linkStatus()
        }
        #expect(report.phase == .linked, "\(report.message)")
    }

    /// Adds finished runs at 1 Hz heading north from `origin`, starting `start` apart from `first`.
    @discardableResult
    func addRuns(
        _ count: Int, first: WallInstant, every seconds: Int64 = 60, random: inout SeededRandom,
        origin: (Double, Double) = (48.2, 16.37)
    ) throws -> [String: Double] {
        var added: [String: Double] = [:]
        for i in 0..<count {
            let duration = Int.random(in: 30...240, using: &random)
            let speed = Double.random(in: 2.5...4.5, using: &random)
            let activity = Self.activity(seconds: duration, speed: speed, origin: origin)
            let uuid = UUID().uuidString.lowercased()
            _ = try database.importRun(
                uuid: uuid, source: "test",
                startWall: first.advanced(byNanoseconds: Int64(i) * seconds * 1_000_000_000),
                points: activity.points, rrIntervals: [], events: [], laps: [], summary: activity.summary,
                now: first)
            added[uuid] = activity.summary.statistics.distanceMeters
        }
        return added
    }

    static func activity(seconds: Int, speed: Double, origin: (Double, Double)) -> Activity {
        var points: [RecordPoint] = []
        for t in 1...seconds {
            let distance = Double(t) * speed
            points.append(
                RecordPoint(
                    elapsedSeconds: t, latitude: origin.0 + distance / 111_195, longitude: origin.1,
                    altitudeMeters: 180, gpsFix: .threeD, hdop: 0.9, speedMetersPerSecond: speed,
                    distanceMeters: distance, heartRateBPM: 150, cadenceSPM: 170, isMoving: true))
        }
        let distance = Double(seconds) * speed
        let summary = RunSummary(
            elapsedSeconds: Double(seconds), steps: nil,
            statistics: RunStatistics(
                distanceMeters: distance, timerSeconds: Double(seconds), movingSeconds: seconds, averageHeartRate: 150,
                maximumHeartRate: 150, averageCadence: 170, maximumSpeed: speed, pointCount: seconds),
            splits: [])
        return Activity(start: WallInstant(secondsSinceEpoch: 0), points: points, summary: summary)
    }

    /// Waits until the outbox is empty (every run acknowledged), or fails after `timeout`.
    func waitUntilSynced(timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while try database.outboxTotals().waiting + database.outboxTotals().held > 0 {
            guard ContinuousClock.now < deadline else {
                let status = await worker.status()
                Issue.record("not synced in time: \(status.message); last error \(status.contact.lastError ?? "none")")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

extension SyncWorker {
    /// Pokes the worker and waits until it has finished a whole pass begun after the poke: proof
    /// that it has looked at the outbox and the Wi-Fi as they are now, for a test that then checks
    /// that nothing happened. A pass already under way may have begun before the caller's change,
    /// so then it waits for the one after (the poke makes the worker look again at once). Returns
    /// false (and the caller fails) if no such pass ends by `timeout`; it is not a bound on the
    /// worker's speed, only on how long a test waits for it.
    func lookedAgain(timeout: Duration = .seconds(120)) async throws -> Bool {
        let before = status()
        let target = before.activity.passes + (before.activity.looking ? 2 : 1)
        wakeup.poke()
        let deadline = ContinuousClock.now + timeout
        while status().activity.passes < target {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }
}

var nowWall: WallInstant { WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970) }
