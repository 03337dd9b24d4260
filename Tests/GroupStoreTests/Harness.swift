import ActivityFormats
import Foundation
import GroupStore
import HandoffAPI
import HandoffModel
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import TestSupport
import Testing

/// The two engines every store test runs against. PostgreSQL needs a server: scripts/test and
/// `.ci/run` start one on loopback (scripts/postgres) and set HANDOFF_POSTGRES_URL.
///
/// Every store test takes both engines, always: a PostgreSQL case is never left out of the list.
/// Where it cannot run, the harness says so when the case starts (`postgresAdminURL()`): it fails
/// where system programs are required (HANDOFF_REQUIRE_SYSTEM_PROGRAMS, set by scripts/test and
/// CI), and elsewhere records a warning naming the reason and cancels the case, so that the run's
/// output shows a skip, never a pass.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL" }

    /// The engine of the store the current test talks to: APIContract records each route a test
    /// reaches under it (RouteCoverage).
    @TaskLocal static var current: Backend?

    static var adminURL: String? {
        let url = ProcessInfo.processInfo.environment["HANDOFF_POSTGRES_URL"] ?? ""
        return url.isEmpty ? nil : url
    }

    /// The engines a store test runs on: both, whatever this machine has (see above for what
    /// happens to a PostgreSQL case without a server).
    static var available: [Backend] { allCases }

    static let missingServer =
        "HANDOFF_POSTGRES_URL is not set: run scripts/postgres and export the URL it prints (scripts/test and CI do)"

    /// The PostgreSQL server's admin URL, for a case that is about to use it. Without one, the case
    /// fails (system programs required) or records a warning with the reason and is cancelled:
    /// Swift Testing prints nothing for one cancelled case of a parameterized test, but it prints
    /// the warning, with the case's argument, and counts it in the summary.
    static func postgresAdminURL(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        if let adminURL { return adminURL }
        if SystemPrograms.required {
            Issue.record(
                "PostgreSQL case cannot run: \(missingServer) (\(SystemPrograms.environmentVariable) is set)",
                sourceLocation: sourceLocation)
        } else {
            Issue.record(
                "PostgreSQL case not run: \(missingServer)", severity: .warning, sourceLocation: sourceLocation)
        }
        try Test.cancel("PostgreSQL case not run: \(missingServer)", sourceLocation: sourceLocation)
    }
}

/// The store's clock in tests: real time plus an offset the test moves (lease expiry), or, once
/// frozen, a fixed time that only `advance` moves (a test of intervals that a loaded machine must
/// not stretch).
final class TestClock: Sendable {
    private let offset = Mutex<Int64>(0)
    private let frozen = Mutex<WallInstant?>(nil)
    func advance(seconds: Int64) { offset.withLock { $0 += seconds * 1_000_000_000 } }
    func freeze() {
        let real = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970)
        frozen.withLock { $0 = real }
    }
    /// Stops the clock at `instant` (to the second).
    func freeze(at instant: WallInstant) {
        freeze()
        advance(seconds: (instant.nanosecondsSinceEpoch - now.nanosecondsSinceEpoch) / 1_000_000_000)
    }
    var now: WallInstant {
        (frozen.withLock { $0 } ?? WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970))
            .advanced(byNanoseconds: offset.withLock { $0 })
    }
}

/// How a test reaches the store. Most go through Hummingbird's in-process client (`.router`):
/// each request goes to the router as it would from the server, with no socket, no peer address
/// and no port. Tests that need a socket say `.live`: requests in flight on connections of their
/// own (`call(ownConnection:)`), raw sockets and header timeouts, the per-address limits (which
/// count the peer's address), and the browser.
/// HANDOFF_STORE_TESTS_LIVE=1 runs every one on a socket, as all did before issue 30: to time the
/// difference, or to see whether a failure depends on the transport.
enum StoreTransport: Sendable {
    case router
    case live

    static let allLive = ProcessInfo.processInfo.environment["HANDOFF_STORE_TESTS_LIVE"] == "1"
}

/// A store over a fresh database of the chosen engine, in process or on a loopback port.
struct StoreHarness {
    let backend: Backend
    let transport: StoreTransport
    let directory: TemporaryDirectory
    var configuration = StoreApplication.Configuration()
    let clock = TestClock()

    init(_ backend: Backend = .sqlite, transport: StoreTransport = .router) throws {
        self.backend = backend
        self.transport = transport
        directory = try TemporaryDirectory()
        configuration.network.port = 0
        configuration.accounts.bcryptCost = 4  // the rounds are bcrypt's, not ours: keep tests quick
        // Every test signs its accounts up from 127.0.0.1 (AbuseLimitTests set their own limits).
        configuration.accounts.signUpsPerAddress = 10_000
    }

    var logger: Logger {
        var logger = Logger(label: "store.test")
        logger.logLevel = .warning
        return logger
    }

    /// Opens a fresh database, runs `body` with it, and removes it.
    func withDatabase<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        switch backend {
        case .sqlite:
            return try await body(try SQLiteDatabase(path: directory.file("store.sqlite").path))
        case .postgres:
            let admin = try Backend.postgresAdminURL()
            let name = "handoff_test_\(UInt64.random(in: 0...UInt64.max) % 1_000_000_000_000)"
            try await PostgresDatabase.createDatabase(adminURL: admin, name: name, logger: logger)
            let url = PostgresDatabase.url(admin, database: name)
            let database = try PostgresDatabase(url: url, logger: logger)
            do {
                let value = try await database.whileRunning { try await body(database) }
                try? await PostgresDatabase.dropDatabase(adminURL: admin, name: name, logger: logger)
                return value
            } catch {
                try? await PostgresDatabase.dropDatabase(adminURL: admin, name: name, logger: logger)
                throw error
            }
        }
    }

    func run(_ test: @Sendable (any TestClientProtocol, StoreRepository) async throws -> Void) async throws {
        try await withDatabase { database in
            let repository = try await StoreRepository(database)
            let clock = self.clock
            let app = StoreApplication.make(
                repository: repository, configuration: configuration, logger: logger, now: { clock.now })
            let setup: TestingSetup = transport == .live || StoreTransport.allLive ? .live : .router
            try await Backend.$current.withValue(backend) {
                try await app.test(setup) { client in try await test(client, repository) }
            }
        }
    }

    func run(_ test: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await run { client, _ in try await test(client) }
    }
}

struct Reply: @unchecked Sendable {
    let status: HTTPResponse.Status
    /// The body as it came, for the checks of the wire's shape (null against absent).
    let json: [String: Any]
    let headers: HTTPFields
    let body: Data

    /// The body as one of the API's types (module HandoffAPI).
    func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T { try JSONDecoder().decode(type, from: body) }

    var error: ErrorEnvelope.Detail? { try? decode(ErrorEnvelope.self).error }
    var errorCode: String? { error?.code }
    var errorMessage: String { error?.message ?? "" }
    var text: String { String(decoding: body, as: UTF8.self) }
    subscript(_ key: String) -> Any? { json[key] }
}

/// `call(ownConnection: true)` on a store without a socket: the test must run it `.live`.
struct NoSocket: Error, CustomStringConvertible {
    let uri: String
    var description: String {
        "\(uri) asked for a connection of its own, but the store runs in process (no port): "
            + "give the test StoreHarness(…, transport: .live)"
    }
}

extension TestClientProtocol {
    /// One request, its reply checked against openapi.json. The live test client keeps one
    /// connection, and a server answers one connection's requests in turn: requests meant to be in
    /// flight at the same moment (the contention and storm tests) pass `ownConnection`, and each
    /// opens a connection of its own. That needs a store on a socket (`StoreTransport.live`): in
    /// process there is no port, and the call throws rather than share the in-process client.
    func call(
        _ method: HTTPRequest.Method, _ uri: String, token: String? = nil, json: [String: Any]? = nil,
        send: (any Encodable)? = nil, body: [UInt8]? = nil, contentType: String? = nil, headers extra: HTTPFields = [:],
        ownConnection: Bool = false
    ) async throws -> Reply {
        var headers: HTTPFields = [:]
        if json != nil || send != nil { headers[.contentType] = "application/json" }
        if let contentType { headers[.contentType] = contentType }
        if let token { headers[.authorization] = "Bearer \(token)" }
        headers.append(contentsOf: extra)
        let buffer =
            try json.map { ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: $0)) }
            ?? send.map { ByteBuffer(bytes: try JSONEncoder().encode($0)) } ?? body.map { ByteBuffer(bytes: $0) }
        @Sendable func makeReply(
            _ status: HTTPResponse.Status, _ headers: HTTPFields, _ body: ByteBuffer
        ) throws -> Reply {
            let data = Data(buffer: body)
            let isJSON = headers[.contentType]?.hasPrefix("application/json") == true
            let object =
                isJSON && !data.isEmpty ? (try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]) : [:]
            return Reply(status: status, json: object, headers: headers, body: data)
        }
        let reply: Reply
        let sent = headers
        if ownConnection {
            guard let port else { throw NoSocket(uri: uri) }
            let response = try await TestClient.withClient(
                host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(120))
            ) { connection in
                try await connection.execute(
                    .init(uri, method: method, authority: "127.0.0.1:\(port)", headers: sent, body: buffer))
            }
            reply = try makeReply(response.head.status, response.head.headerFields, response.body ?? ByteBuffer())
        } else {
            reply = try await execute(uri: uri, method: method, headers: headers, body: buffer) { response in
                try makeReply(response.status, response.headers, response.body)
            }
        }
        try APIContract.check(method, uri, reply)
        return reply
    }

    /// Signs up and returns the session token.
    func signUp(_ username: String, password: String = "correct horse battery") async throws -> String {
        let reply = try await call(
            .post, "/v1/accounts",
            send: SignUp(email: "\(username)@example.org", username: username, password: password))
        #expect(reply.status == .created, "\(reply.text)")
        return (try? reply.decode(SignedIn.self))?.token ?? ""
    }

    /// Signs in through the web form, as a browser does; returns the reply and its session
    /// cookie (`handoff_session=…`) to send back.
    func webSignIn(
        _ login: String, password: String = "correct horse battery", remember: Bool = false
    ) async throws -> (
        reply: Reply, cookie: String
    ) {
        let form =
            "login=\(login)&password=" + password.replacingOccurrences(of: " ", with: "+")
            + (remember ? "&remember=1" : "")
        let reply = try await call(
            .post, "/login", body: Array(form.utf8), contentType: "application/x-www-form-urlencoded")
        return (reply, String((reply.headers[.setCookie] ?? "").split(separator: ";").first ?? ""))
    }

    /// Creates a group owned by `token`'s account; returns its id and invite code.
    func createGroup(
        _ token: String, name: String = "Relay club", goal: Double = 100_000, lease: Double? = nil
    )
        async throws -> (id: Int, invite: String)
    {
        let reply = try await call(
            .post, "/v1/groups", token: token, send: GroupCreate(name: name, goalM: goal, leaseHours: lease))
        #expect(reply.status == .created, "\(reply.text)")
        let group = try? reply.decode(GroupView.self)
        return (Int(group?.id ?? 0), group?.inviteCode ?? "")
    }

    func join(_ token: String, _ invite: String) async throws {
        let reply = try await call(.post, "/v1/groups/join", token: token, send: GroupJoin(inviteCode: invite))
        #expect(reply.status == .ok, "\(reply.text)")
    }

    /// Uploads a file as multipart/form-data with a summary.
    func upload(
        _ token: String, uuid: String, file: [UInt8], summary: String = #"{"source":"test"}"#,
        ownConnection: Bool = false
    ) async throws -> Reply {
        let boundary = "handoff-\(UUID().uuidString)"
        var body = Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"summary\"\r\nContent-Type: application/json\r\n\r\n\(summary)\r\n"
                .utf8)
        body += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"run.fit\"\r\nContent-Type: application/vnd.ant.fit\r\n\r\n"
                .utf8)
        body += file
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return try await call(
            .put, "/v1/runs/\(uuid)", token: token, body: body,
            contentType: "multipart/form-data; boundary=\(boundary)",
            ownConnection: ownConnection)
    }
}

/// Activity files made for the tests: a steady run at 1 Hz written by our FIT writer.
enum RunFiles {
    static func activity(start: WallInstant, seconds: Int, speed: Double) -> Activity {
        var points: [RecordPoint] = []
        for t in 1...max(1, seconds) {
            let distance = Double(t) * speed
            points.append(
                RecordPoint(
                    elapsedSeconds: t, latitude: 48.2 + distance / 111_000, longitude: 16.37, altitudeMeters: 180,
                    gpsFix: .threeD, hdop: 0.9, speedMetersPerSecond: speed, distanceMeters: distance,
                    heartRateBPM: 150,
                    cadenceSPM: 170, isMoving: true))
        }
        let distance = points.last?.distanceMeters ?? 0
        return Activity(
            start: start, points: points,
            events: [
                SessionEvent(offsetNanoseconds: 0, kind: .start),
                SessionEvent(offsetNanoseconds: Int64(seconds) * 1_000_000_000, kind: .stop),
            ],
            summary: RunSummary(
                elapsedSeconds: Double(seconds),
                statistics: RunStatistics(
                    distanceMeters: distance, timerSeconds: Double(seconds), movingSeconds: seconds,
                    averageHeartRate: 150, maximumHeartRate: 150, averageCadence: 170, maximumSpeed: speed,
                    pointCount: points.count), splits: []))
    }

    static func fit(start: WallInstant, seconds: Int = 600, speed: Double = 3) -> [UInt8] {
        ActivityFormat.fit.write(activity(start: start, seconds: seconds, speed: speed))
    }

    /// What the store will count for a FIT file: its distance, as the reader gives it, in mm.
    static func distanceMM(_ file: [UInt8]) throws -> Int64 {
        Int64((try ActivityFormat.fit.read(file).summary.statistics.distanceMeters * 1000).rounded())
    }
}

/// Counts requests in flight together, and the most at any moment.
final class InFlight: Sendable {
    private let counts = Mutex<(now: Int, most: Int)>((0, 0))

    var most: Int { counts.withLock { $0.most } }

    func during<T>(_ body: () async throws -> T) async throws -> T {
        counts.withLock {
            $0.now += 1
            $0.most = max($0.most, $0.now)
        }
        defer { counts.withLock { $0.now -= 1 } }
        return try await body()
    }
}
