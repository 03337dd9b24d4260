import Foundation
import HandoffAPI
import HandoffModel
import PackStorage

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The group store's API as the pack uses it: linking (RFC 8628, device side), health, run
/// uploads and signing out. HTTP goes through Foundation's URLSession, which is libcurl on Linux:
/// TLS and the system's certificate store come with the OS, and nothing as large as an HTTP stack
/// of our own is linked into the pack.
///
/// Every failure is a `SyncFailure` that says whether to retry and what a person should do.
public struct StoreClient: Sendable {
    public let base: URL
    public var token: String?
    /// How long one request may take, start to end (a 10-hour run's FIT is about 1 MB).
    public var timeoutSeconds: Double
    let session: URLSession

    public init(base: URL, token: String? = nil, timeoutSeconds: Double = 60) {
        self.base = base
        self.token = token
        self.timeoutSeconds = timeoutSeconds
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.timeoutIntervalForResource = timeoutSeconds
        configuration.httpMaximumConnectionsPerHost = 1
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        session = URLSession(configuration: configuration)
    }

    /// Checks a store URL as a person typed it: http(s), a host, no query.
    public static func url(_ text: String) throws(SyncFailure) -> URL {
        var text = text.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false, url.query == nil
        else {
            throw SyncFailure(
                .refused, code: "invalid_store_url",
                message:
                    "\"\(text)\" is not a store address: give it as https://store.example.org (or http:// on a home network)"
            )
        }
        return url
    }

    // MARK: Calls

    /// `GET /v1/health`: the store answers and is a Handoff store.
    public func health() async throws(SyncFailure) -> String {
        let reply = try await send("GET", "/v1/health")
        guard reply.status == 200, let health = reply.decode(Health.self), health.status == "ok" else {
            throw reply.failure(store: base, context: "the health check")
        }
        return health.version
    }

    public struct DeviceCode: Sendable, Hashable {
        public var deviceCode: String
        public var userCode: String
        public var verificationURI: String
        public var verificationURIComplete: String?
        public var expiresIn: Int
        public var interval: Int
    }

    /// `POST /v1/device/code`: a code for a person to enter on the store.
    public func requestDeviceCode(name: String) async throws(SyncFailure) -> DeviceCode {
        let reply = try await send("POST", "/v1/device/code", json: DeviceCodeRequest(name: name))
        guard reply.status == 200, let code = reply.decode(HandoffAPI.DeviceCode.self) else {
            throw reply.failure(store: base, context: "asking for a link code")
        }
        return DeviceCode(
            deviceCode: code.deviceCode, userCode: code.userCode, verificationURI: code.verificationURI,
            verificationURIComplete: code.verificationURIComplete, expiresIn: Int(clamping: code.expiresIn),
            interval: Int(clamping: max(1, code.interval)))
    }

    public enum TokenPoll: Sendable, Hashable {
        case pending
        case slowDown
        case expired
        case denied
        case linked(token: String, username: String?)
    }

    /// `POST /v1/device/token`: one poll.
    public func pollDeviceToken(deviceCode: String) async throws(SyncFailure) -> TokenPoll {
        let reply = try await send("POST", "/v1/device/token", json: DeviceTokenRequest(deviceCode: deviceCode))
        if reply.status == 200, let token = reply.decode(DeviceToken.self) {
            return .linked(token: token.accessToken, username: token.account.username)
        }
        switch reply.errorCode {
        case "authorization_pending": return .pending
        case "slow_down": return .slowDown
        case "expired_token", "invalid_grant": return .expired
        case "access_denied": return .denied
        default: throw reply.failure(store: base, context: "waiting for the link")
        }
    }

    /// `DELETE /v1/sessions/current` with the pack's token: the store forgets this pack.
    public func signOut() async throws(SyncFailure) {
        let reply = try await send("DELETE", "/v1/sessions/current")
        guard reply.status == 204 || reply.status == 200 || reply.status == 401 else {
            throw reply.failure(store: base, context: "unlinking")
        }
    }

    /// The store's acknowledgement of a run.
    public struct Acknowledgement: Sendable, Hashable {
        /// 201 stored now; 200 the store had it already (a retry of an upload that arrived).
        public var status: Int
        public var distanceMeters: Double?
        /// Where the run counted, and for each other group of the runner's why not; `nil` when the
        /// store did not say (an older store).
        public var counting: RunCounting?
    }

    /// The reply's `counted_in` and `not_counted`, as far as they can be read.
    static func counting(_ run: RunView) -> RunCounting? {
        guard let counted = run.countedIn else { return nil }
        let notCounted = (run.notCounted ?? []).map {
            RunCounting.NotCounted(group: $0.group, groupID: $0.groupID, reasonCode: $0.reasonCode, reason: $0.reason)
        }
        return RunCounting(countedIn: counted.map(\.group), notCounted: notCounted)
    }

    /// `PUT /v1/runs/{uuid}`: the run's file with its summary, as multipart/form-data. Idempotent:
    /// the same UUID with the same bytes is acknowledged again, never counted twice.
    public func uploadRun(
        uuid: String, file: [UInt8], sha256: String, fileName: String, summary: Data
    )
        async throws(SyncFailure) -> Acknowledgement
    {
        let boundary = "handoff-" + UUID().uuidString.lowercased()
        let body = Self.uploadBody(boundary: boundary, file: file, fileName: fileName, summary: summary)
        let reply = try await send(
            "PUT", "/v1/runs/\(uuid)", body: body, contentType: "multipart/form-data; boundary=\(boundary)")
        // Only the store's own answer for this run, holding these very bytes, is an acknowledgement.
        guard reply.status == 200 || reply.status == 201, let run = reply.decode(RunView.self),
            run.uuid.lowercased() == uuid, run.sha256.lowercased() == sha256
        else {
            throw reply.failure(store: base, context: "uploading run \(uuid.prefix(8))")
        }
        return Acknowledgement(status: reply.status, distanceMeters: run.distanceM, counting: Self.counting(run))
    }

    /// The upload's multipart/form-data body: the summary, then the file.
    public static func uploadBody(boundary: String, file: [UInt8], fileName: String, summary: Data) -> Data {
        var body = Data()
        func part(_ name: String, _ headers: String, _ content: Data) {
            body.append(
                Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\(headers)\r\n\r\n".utf8))
            body.append(content)
            body.append(Data("\r\n".utf8))
        }
        part("summary", "\r\nContent-Type: application/json", summary)
        part("file", "; filename=\"\(fileName)\"\r\nContent-Type: application/vnd.ant.fit", Data(file))
        body.append(Data("--\(boundary)--\r\n".utf8))
        return body
    }

    /// `DELETE /v1/runs/{uuid}`: the store forgets the run and takes it out of every total. A
    /// run the store does not have (404 naming the run) is as good as deleted.
    public func deleteRun(uuid: String) async throws(SyncFailure) {
        let reply = try await send("DELETE", "/v1/runs/\(uuid)")
        if reply.status == 204 || reply.status == 200 { return }
        if reply.status == 404, reply.errorCode == "run_not_found" { return }
        throw reply.failure(store: base, context: "deleting run \(uuid.prefix(8))")
    }

    // MARK: Groups and the baton

    public struct GroupSummary: Sendable, Hashable {
        public var id: Int64
        public var name: String
    }

    /// `GET /v1/groups`: the account's groups.
    public func groups() async throws(SyncFailure) -> [GroupSummary] {
        let reply = try await send("GET", "/v1/groups")
        guard reply.status == 200, let list = reply.decode(GroupList.self) else {
            throw reply.failure(store: base, context: "listing groups")
        }
        return list.groups.map { GroupSummary(id: $0.id, name: $0.name) }
    }

    public struct BatonState: Sendable, Hashable {
        public var holder: String?
        public var since: String?
        public var expiresAt: String?
    }

    static func batonState(_ baton: BatonView?) -> BatonState {
        BatonState(holder: baton?.holder, since: baton?.since, expiresAt: baton?.expiresAt)
    }

    /// A leg as text for people: the fields that are there, counts as whole numbers ("3", not "3.0").
    static func legText(_ leg: LegView) -> [String: String] {
        var text = ["id": String(leg.id), "taken_at": leg.takenAt, "distance_m": number(leg.distanceM)]
        text["runs"] = String(leg.runs)
        text["runner"] = leg.runner
        text["ended_at"] = leg.endedAt
        text["ended"] = leg.ended
        text["passed_to"] = leg.passedTo
        return text
    }

    static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 9e15 ? String(Int64(value)) : String(value)
    }

    /// `GET /v1/groups/{id}/baton`: who holds it, and the recent legs as the store sends them.
    public func baton(group: Int64) async throws(SyncFailure) -> (BatonState, legs: [[String: String]]) {
        let reply = try await send("GET", "/v1/groups/\(group)/baton")
        guard reply.status == 200 else { throw reply.failure(store: base, context: "reading the baton") }
        let state = reply.decode(HandoffAPI.BatonState.self)
        return (Self.batonState(state?.baton), (state?.legs ?? []).map(Self.legText))
    }

    public enum TakeOutcome: Sendable, Hashable {
        case taken(BatonState)
        case held(message: String)
    }

    /// `POST /v1/groups/{id}/baton/take`.
    public func takeBaton(group: Int64) async throws(SyncFailure) -> TakeOutcome {
        let reply = try await send("POST", "/v1/groups/\(group)/baton/take")
        if reply.status == 200 { return .taken(Self.batonState(reply.decode(BatonView.self))) }
        if reply.status == 409 { return .held(message: reply.errorMessage ?? "another member holds the baton") }
        throw reply.failure(store: base, context: "taking the baton")
    }

    /// `POST /v1/groups/{id}/baton/pass`, to a member or the next in the rotation.
    public func passBaton(group: Int64, to member: String?) async throws(SyncFailure) -> BatonState {
        let reply = try await send("POST", "/v1/groups/\(group)/baton/pass", json: BatonPass(to: member))
        guard reply.status == 200 else { throw reply.failure(store: base, context: "passing the baton") }
        return Self.batonState(reply.decode(BatonView.self))
    }

    /// `PUT /v1/me/steps`: each day's steps outside runs, replacing what this pack (`pack`, its
    /// journal's lasting id) sent before.
    public func putStepsOutsideRuns(_ days: [StepsOutsideRuns.Day], pack: String?) async throws(SyncFailure) {
        let reply = try await send("PUT", "/v1/me/steps", json: StepsOutsideRuns(days: days, pack: pack))
        guard reply.status == 200 else { throw reply.failure(store: base, context: "sending the steps outside runs") }
    }

    // MARK: Transport

    struct Reply: Sendable {
        var status: Int
        var body: Data
        var retryAfter: Double?
        var text: String

        /// The body as `T`, or nil when it is not one.
        func decode<T: Decodable>(_ type: T.Type) -> T? { try? JSONDecoder().decode(type, from: body) }

        var error: ErrorEnvelope.Detail? { decode(ErrorEnvelope.self)?.error }
        var errorCode: String? { error?.code }
        var errorMessage: String? { error?.message }

        /// What an unexpected answer means for the pack.
        func failure(store: URL, context: String) -> SyncFailure {
            let said = errorMessage.map { ": \($0)" } ?? ""
            let code = errorCode ?? "http_\(status)"
            switch status {
            case 200..<300:
                return SyncFailure(
                    .storeFailed, code: "bad_reply",
                    message:
                        "\(store.absoluteString) answered \(context) with something that is not a Handoff store's reply; trying again later"
                )
            case 401:
                return SyncFailure(
                    .unlinked, code: "unauthorized",
                    message:
                        "the store no longer accepts this pack (it was unlinked on the store, or the account is gone): run `handoff link` again"
                )
            case 403:
                return SyncFailure(
                    .unlinked, code: code,
                    message: "the store refused this pack's link for \(context)\(said): run `handoff link` again")
            case 404 where errorCode == nil:
                return SyncFailure(
                    .refused, code: "not_a_store",
                    message:
                        "\(store.absoluteString) has no Handoff store API (404 for \(context)): check the address with `handoff link --store URL`"
                )
            case 408, 425, 429:
                return SyncFailure(
                    .busy, code: code, message: "the store asked to wait (\(status)) while \(context)\(said)",
                    retryAfter: retryAfter)
            case 400..<500:
                return SyncFailure(.refused, code: code, message: "the store refused \(context) (\(status))\(said)")
            default:
                return SyncFailure(
                    .storeFailed, code: "server_error",
                    message: "the store failed while \(context) (\(status))\(said); trying again later",
                    what: "the store failed while \(context) (\(status))\(said)", retryAfter: retryAfter)
            }
        }
    }

    func send(
        _ method: String, _ path: String, json: (any Encodable)? = nil, body: Data? = nil, contentType: String? = nil
    ) async throws(SyncFailure) -> Reply {
        var request = URLRequest(url: base.appendingPathComponent(String(path.dropFirst())))
        request.httpMethod = method
        request.timeoutInterval = timeoutSeconds
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("handoff/\(HandoffVersion.current)", forHTTPHeaderField: "User-Agent")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpBody = try? JSONEncoder().encode(json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        } else if let body {
            request.httpBody = body
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch is CancellationError {
            throw SyncFailure(.cancelled, code: "cancelled", message: "stopped before the store answered")
        } catch {
            throw SyncFailure.network(error, store: base)
        }
        guard let http = response as? HTTPURLResponse else {
            throw SyncFailure(.storeFailed, code: "bad_reply", message: "\(base.absoluteString) did not answer in HTTP")
        }
        let retryAfter = (http.value(forHTTPHeaderField: "Retry-After")).flatMap(Double.init)
        return Reply(
            status: http.statusCode, body: data, retryAfter: retryAfter,
            text: String(decoding: data.prefix(200), as: UTF8.self))
    }
}
