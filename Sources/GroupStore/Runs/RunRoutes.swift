import ActivityFormats
import Crypto
import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird
import Logging
import SensorCodecs
import Training
import WebForms

/// Runs: uploaded once per uuid, listed, fetched and deleted by their runner.
struct RunRoutes {
    let services: Services

    static let mediaTypes: [ActivityFormat: String] = [
        .fit: "application/vnd.ant.fit", .gpx: "application/gpx+xml", .tcx: "application/vnd.garmin.tcx+xml",
        .csv: "text/csv",
    ]

    /// A run's uuid as the pack makes them (RFC 9562 text form), lower-cased.
    static func uuid(_ context: StoreContext, parameter: String = "uuid") throws(StoreError) -> String {
        let text = (context.parameters.get(parameter) ?? "").lowercased()
        guard UUID(uuidString: text) != nil else {
            throw StoreError(
                .unprocessableContent, "invalid_uuid",
                "a run is named by a UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e, not \(text)")
        }
        return text
    }

    /// The activity file and the summary from an upload: either `multipart/form-data` with a
    /// `file` part and an optional `summary` part (a JSON object), or the file itself as the body.
    static func upload(_ body: [UInt8], contentType: String?) throws(StoreError) -> (file: [UInt8], summary: String) {
        guard let contentType, let boundary = MultipartForm.boundary(contentType) else { return (body, "{}") }
        let form: MultipartForm
        do {
            form = try MultipartForm(body, boundary: boundary)
        } catch {
            throw StoreError(.badRequest, "bad_multipart", "the multipart/form-data body is malformed: \(error)")
        }
        guard let file = form["file"] else {
            throw StoreError(
                .unprocessableContent, "missing_file",
                "the form has no `file` part: send the FIT, GPX or TCX file as `file`")
        }
        var summary = "{}"
        if let part = form["summary"] {
            guard part.body.count <= 16 * 1024,
                (try? StoreJSON.decoder.decode(JSONValue.self, from: Data(part.body)))?.objectValue != nil
            else {
                throw StoreError(
                    .unprocessableContent, "invalid_summary",
                    "the `summary` part must be a JSON object of at most 16 kB")
            }
            summary = String(decoding: part.body, as: UTF8.self)
        }
        return (Array(file.body), summary)
    }

    /// The group whose baton a pack claimed for a run it started offline: the summary's
    /// `"baton_claim": {"group_id": N}` (docs/group-store.md, "Offline baton claims").
    static func batonClaim(_ summary: String) -> Int64? {
        (try? StoreJSON.decoder.decode(UploadSummary.self, from: Data(summary.utf8)))?.batonClaim?.groupID
    }

    /// Reads the file with the project's readers and checks that it is a plausible run.
    static func parse(_ uuid: String, _ file: [UInt8], summary: String, now: WallInstant) throws(StoreError) -> NewRun {
        guard !file.isEmpty else {
            throw StoreError(.unprocessableContent, "empty_file", "the activity file is empty")
        }
        guard let format = ActivityFormat.sniff(file), format != .csv else {
            throw StoreError(
                .unsupportedMediaType, "unknown_format", "the file is not FIT, GPX or TCX (judged by its first bytes)")
        }
        let activity: Activity
        do {
            activity = try format.read(file)
        } catch {
            throw StoreError(
                .unprocessableContent, "invalid_file",
                "the \(format.rawValue.uppercased()) file cannot be read: \(error)")
        }
        let statistics = activity.summary.statistics
        let earliest = WallInstant(secondsSinceEpoch: 946_684_800)  // 2000-01-01
        guard activity.start >= earliest else {
            throw StoreError(
                .unprocessableContent, "implausible_run",
                "the run starts at \(iso(activity.start)), before 2000: check the device's clock")
        }
        guard activity.start <= now.advanced(byNanoseconds: clockSkewSeconds * nanosecondsPerSecond) else {
            throw StoreError(
                .unprocessableContent, "implausible_run",
                "the run starts at \(iso(activity.start)), more than \(clockSkewSeconds / 60) minutes after the store's clock (\(iso(now))): check the device's clock"
            )
        }
        let distance = statistics.distanceMeters
        guard distance.isFinite, distance >= 0, distance <= 1_000_000 else {
            throw StoreError(
                .unprocessableContent, "implausible_run", "the run's distance (\(distance) m) is not one a runner makes"
            )
        }
        let digest = SHA256.hash(data: Data(file)).map { String(format: "%02x", $0) }.joined()
        let facts = RunFacts(activity)
        return NewRun(
            uuid: uuid, started: activity.start,
            elapsedMS: try milliseconds(activity.summary.elapsedSeconds, "elapsed time"),
            timerMS: try milliseconds(statistics.timerSeconds, "timer time"),
            distanceMM: try checked((distance * 1000).rounded(), "distance"), sport: Sport(activity.sport).rawValue,
            format: format.rawValue, sha256: digest, file: file, summary: summary,
            averageHeartRate: statistics.averageHeartRate.flatMap {
                $0.isFinite && $0 > 0 && $0 < 300 ? Int64($0.rounded()) : nil
            }, facts: (facts.encoded(), facts.thumbnail(), RunDerived(activity)))
    }

    /// How far ahead of the store's clock a run may start (a device's clock may be a little fast).
    static let clockSkewSeconds: Int64 = 10 * 60

    /// A duration from a file, in whole milliseconds: finite, from 0 to 30 days, else a 422
    /// naming the field (a file may say 1e300 seconds; converting that would trap).
    static func milliseconds(_ seconds: Double, _ field: String) throws(StoreError) -> Int64 {
        guard seconds.isFinite, seconds >= 0, seconds <= 30 * 86_400 else {
            throw StoreError(
                .unprocessableContent, "implausible_run",
                "the run's \(field) (\(seconds) s) is not one a runner makes: from 0 to 30 days")
        }
        return try checked((seconds * 1000).rounded(), field)
    }

    /// `value` as an integer, or a 422 naming the field: never a trap.
    static func checked(_ value: Double, _ field: String) throws(StoreError) -> Int64 {
        guard let integer = Int64(exactly: value) else {
            throw StoreError(.unprocessableContent, "implausible_run", "the run's \(field) (\(value)) is out of range")
        }
        return integer
    }

    /// Collects the multipart form and reads the activity file on the upload workers, off the
    /// cooperative pool: a large or hostile file slows only its own request. The log line comes
    /// before any byte of the body is parsed, so if reading ever ended the process, the journal
    /// names the uploader, the run and the body.
    func read(
        _ body: [UInt8], contentType: String?, uuid: String, account: Int64, logger: Logger
    ) async throws -> NewRun {
        let now = services.now()
        let result: Result<NewRun, StoreError>
        logger.info(
            "Reading an uploaded run",
            metadata: [
                "account": "\(account)", "run": "\(uuid)", "bytes": "\(body.count)",
                "type": "\(contentType.map { String($0.prefix(64)) } ?? "none")",
            ])
        do {
            result = try await services.uploads.run {
                Result { () throws(StoreError) -> NewRun in
                    let (file, summary) = try Self.upload(body, contentType: contentType)
                    logger.debug(
                        "The upload's file",
                        metadata: [
                            "run": "\(uuid)", "bytes": "\(file.count)",
                            "format": "\(ActivityFormat.sniff(file)?.rawValue ?? "unknown")",
                        ])
                    return try Self.parse(uuid, file, summary: summary, now: now)
                }
            }
        } catch {
            throw StoreError.busy("reading uploads")
        }
        return try result.get()
    }

    func register(_ router: RouteRecorder) {
        let repository = services.repository
        registerManual(router)
        router.put("/v1/runs/:uuid") { request, context in
            let account = try await services.caller(request, device: true).account
            let uuid = try Self.uuid(context)
            var request = request
            let buffer = try await request.collectBody(upTo: services.configuration.uploads.maxRunBytes)
            let run = try await read(
                Array(buffer: buffer), contentType: request.headers[.contentType], uuid: uuid, account: account.id,
                logger: context.logger)
            let (stored, counts, notCounted, created) = try await repository.putRun(
                run, account: account.id, now: services.now())
            if created {
                context.logger.info(
                    "Run stored",
                    metadata: ["run": "\(uuid)", "account": "\(account.id)", "distance_mm": "\(stored.distanceMM)"])
            }
            var response = try RunView(stored, counts, notCounted: notCounted).response(from: request, context: context)
            response.status = created ? .created : .ok
            response.headers[.location] = "/v1/runs/\(uuid)"
            return response
        }
        router.get("/v1/runs") { request, _ in
            let account = try await services.caller(request).account
            let limitText = request.uri.queryParameters["limit"].map(String.init) ?? "50"
            guard let limit = Int(limitText), (1...500).contains(limit) else {
                throw StoreError(.unprocessableContent, "invalid_limit", "limit is a number from 1 to 500")
            }
            var before: WallInstant?
            if let text = request.uri.queryParameters["before"].map(String.init) {
                guard let instant = WallInstant(iso8601: text) else {
                    throw StoreError(
                        .unprocessableContent, "invalid_before",
                        "before is an ISO 8601 time such as 2026-11-01T00:00:00Z")
                }
                before = instant
            }
            let cursor = try StoreRepository.RunCursor.query(request)
            let page = try await repository.runs(account: account.id, limit: limit, before: before, after: cursor)
            return RunList(runs: page.runs.map { RunView($0.0, $0.1) }, nextCursor: page.next?.text)
        }
        router.get("/v1/runs/:uuid") { request, context in
            let credential = try await services.caller(request, device: true)
            let uuid = try Self.uuid(context)
            // Another person's run, where the rule lets the caller see it: without its pack's
            // summary or who else sees it, counted only in the caller's groups (a pack sees its
            // own runs only).
            guard credential.scope == .session,
                let seen = try await repository.seenRun(uuid: uuid, viewer: credential.account.id)
            else {
                let (run, counts, notCounted) = try await repository.run(uuid: uuid, account: credential.account.id)
                var view = RunView(run, counts, notCounted: notCounted)
                view.hrv = try await services.facts(uuid: uuid, account: credential.account.id)?.hrv.map(HRVView.init)
                return view
            }
            var view = RunView(seen.run, seen.counts, notCounted: seen.isOwner ? seen.notCounted : nil)
            // Heart-rate variability is part of the run, seen by whoever sees the run.
            view.hrv = try await services.facts(uuid: uuid, account: seen.run.accountID)?.hrv.map(HRVView.init)
            (view.runner, view.title, view.description) = (
                seen.runner, seen.post.title(seen.run, zone: seen.zone), seen.post.description
            )
            if !seen.isOwner {
                (view.summary, view.visibility, view.mapVisibility) = (.object(JSONObject()), nil, nil)
            }
            return view
        }
        router.get("/v1/runs/:uuid/details") { request, context in
            let account = try await services.caller(request).account
            let uuid = try Self.uuid(context)
            guard let facts = try await services.facts(uuid: uuid, account: account.id) else {
                throw StoreError(
                    .unprocessableContent, "unreadable_file",
                    "the run's stored file cannot be read again: download it with GET /v1/runs/\(uuid)/file")
            }
            return facts.details(uuid: uuid)
        }
        router.get("/v1/runs/:uuid/file") { request, context in
            let account = try await services.caller(request).account
            let uuid = try Self.uuid(context)
            let (format, bytes) = try await repository.runFile(uuid: uuid, account: account.id)
            let type = ActivityFormat(rawValue: format).flatMap { Self.mediaTypes[$0] } ?? "application/octet-stream"
            return Response(
                status: .ok,
                headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(uuid).\(format)\""],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        router.patch("/v1/runs/:uuid") { request, context in
            let account = try await services.caller(request).account
            let body = try await request.json(RunChange.self, context)
            let run = try body.visibility.map { text throws(StoreError) in try RunVisibility.named(text) }
            let map = try body.mapVisibility.map { text throws(StoreError) in
                try RunVisibility.named(text, field: "map_visibility")
            }
            let uuid = try Self.uuid(context)
            let sport = try body.sport.map { text throws(StoreError) in try Sport.named(text) }
            if body.title != nil || body.description != nil {
                guard let seen = try await repository.seenRun(uuid: uuid, viewer: account.id), seen.isOwner else {
                    throw StoreError.notFound("run", uuid)
                }
                // The levels are checked before anything is written: a refused change keeps nothing.
                _ = try RunVisibility.audience(run: run, map: map, current: seen.run.audience)
                let post = try RunPost.checked(
                    title: body.title ?? seen.post.title ?? "",
                    description: body.description ?? seen.post.description ?? "")
                try await repository.setPost(uuid: uuid, account: account.id, post)
            }
            if let sport {
                // Checked first: a refused level keeps the sport as it was.
                if let seen = try await repository.seenRun(uuid: uuid, viewer: account.id), seen.isOwner {
                    _ = try RunVisibility.audience(run: run, map: map, current: seen.run.audience)
                }
                _ = try await repository.setSport(uuid: uuid, account: account.id, sport: sport, now: services.now())
            }
            let (stored, counts, notCounted) = try await repository.setAudience(
                uuid: uuid, account: account.id, run: run, map: map)
            var view = RunView(stored, counts, notCounted: notCounted)
            if let seen = try await repository.seenRun(uuid: uuid, viewer: account.id) {
                (view.runner, view.title, view.description) = (
                    seen.runner, seen.post.title(seen.run, zone: seen.zone), seen.post.description
                )
            }
            return view
        }
        router.delete("/v1/runs/:uuid") { request, context in
            // A pack may delete its account's runs: `handoff delete` tells the store first.
            let account = try await services.caller(request, device: true).account
            try await repository.deleteRun(uuid: try Self.uuid(context), account: account.id)
            return HTTPResponse.Status.noContent
        }
    }
}
