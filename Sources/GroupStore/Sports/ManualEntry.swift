import Crypto
import Foundation
import HandoffAPI
import HandoffModel
import Hummingbird
import SensorCodecs

/// Activities entered by hand (`POST /v1/runs`, and the form on `/runs`): what no pack records,
/// such as a swim. Stored as a run with format `manual` and no file: the same totals, feed,
/// goals and records as an upload, and no map, charts or downloads.
enum ManualEntry {
    static let format = "manual"

    /// The checked entry, ready to store, and its notes as the run's post. The same entry sent
    /// again under the same `uuid` has the same digest, so it is answered 200, not stored twice.
    static func run(_ entry: ManualRun, now: WallInstant) throws(StoreError) -> (NewRun, RunPost?) {
        let uuid: String
        if let text = entry.uuid {
            guard UUID(uuidString: text) != nil else {
                throw StoreError(
                    .unprocessableContent, "invalid_uuid",
                    "uuid names the entry with a UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e (or leave it out)")
            }
            uuid = text.lowercased()
        } else {
            uuid = UUID().uuidString.lowercased()
        }
        let sport = try Sport.named(entry.sport)
        guard let started = WallInstant(iso8601: entry.startedAt) else {
            throw StoreError(
                .unprocessableContent, "invalid_started_at",
                "started_at is an ISO 8601 time such as 2026-11-28T07:30:00Z, not \(String(entry.startedAt.prefix(40)))"
            )
        }
        guard started >= WallInstant(secondsSinceEpoch: 946_684_800),
            started <= now.advanced(byNanoseconds: RunRoutes.clockSkewSeconds * nanosecondsPerSecond)
        else {
            throw StoreError(
                .unprocessableContent, "implausible_run",
                "started_at (\(entry.startedAt)) is before 2000 or in the future: enter when the activity began")
        }
        guard entry.elapsedS.isFinite, entry.elapsedS >= 1 else {
            throw StoreError(
                .unprocessableContent, "implausible_run", "elapsed_s is the activity's duration in seconds: at least 1")
        }
        guard entry.distanceM.isFinite, entry.distanceM >= 0, entry.distanceM <= 1_000_000 else {
            throw StoreError(
                .unprocessableContent, "implausible_run", "distance_m is in metres, from 0 to 1,000,000")
        }
        let elapsed = try RunRoutes.milliseconds(entry.elapsedS, "elapsed time")
        let distance = Int64((entry.distanceM * 1000).rounded())
        var details: [String] = []
        if sport == .swim {
            if let pool = entry.poolLengthM {
                guard pool.isFinite, pool >= 10, pool <= 100 else {
                    throw StoreError(
                        .unprocessableContent, "invalid_pool_length",
                        "pool_length_m is from 10 to 100 (leave it out for open water)")
                }
                details.append("\"pool_length_m\":\(pool)")
            }
            if let strokes = entry.strokes {
                guard (0...1_000_000).contains(strokes) else {
                    throw StoreError(.unprocessableContent, "invalid_strokes", "strokes is from 0 to 1,000,000")
                }
                details.append("\"strokes\":\(strokes)")
            }
        } else if entry.poolLengthM != nil || entry.strokes != nil {
            throw StoreError(
                .unprocessableContent, "invalid_entry", "pool_length_m and strokes are for a swim (sport swim) only")
        }
        let post = try entry.notes.map { notes throws(StoreError) in try RunPost.checked(title: "", description: notes)
        }
        // The summary an upload's pack would send, here saying the entry was made by hand.
        let text = "{\"entered_by_hand\":{\(details.joined(separator: ","))}}"
        // What makes two sends of one uuid the same entry.
        let identity = [
            sport.rawValue, "\(started.nanosecondsSinceEpoch)", "\(elapsed)", "\(distance)", text,
            post?.description ?? "",
        ].joined(separator: "\n")
        let digest = SHA256.hash(data: Data(identity.utf8)).map { String(format: "%02x", $0) }.joined()
        let run = NewRun(
            uuid: uuid, started: started, elapsedMS: elapsed, timerMS: elapsed, distanceMM: distance,
            sport: sport.rawValue, format: format, sha256: digest, file: [], summary: text)
        return (run, post)
    }

    /// A swim's pool length and strokes, from the run's summary; nil for anything else.
    static func details(_ run: StoredRun) -> (poolLength: Double?, strokes: Int?)? {
        guard run.format == format,
            let summary = try? StoreJSON.decoder.decode(JSONValue.self, from: Data(run.summary.utf8)),
            let details = summary.objectValue?["entered_by_hand"]?.objectValue
        else { return nil }
        return (
            details["pool_length_m"]?.doubleValue,
            details["strokes"]?.doubleValue.flatMap { Int(exactly: $0.rounded()) }
        )
    }
}

extension RunRoutes {
    func registerManual(_ router: RouteRecorder) {
        router.post("/v1/runs") { request, context in
            let account = try await services.caller(request).account
            let body = try await request.json(ManualRun.self, context)
            let (view, created) = try await enter(body, account: account.id)
            var response = try view.response(from: request, context: context)
            response.status = created ? .created : .ok
            response.headers[.location] = "/v1/runs/\(view.uuid)"
            return response
        }
    }

    /// Stores an entry (once per uuid) with its notes: the reply an upload gets.
    func enter(_ entry: ManualRun, account: Int64) async throws -> (RunView, created: Bool) {
        let (run, post) = try ManualEntry.run(entry, now: services.now())
        let repository = services.repository
        let (stored, counts, notCounted, created) = try await repository.putRun(
            run, account: account, now: services.now())
        if created, let post {
            try await repository.setPost(uuid: stored.uuid, account: account, post)
        }
        var view = RunView(stored, counts, notCounted: notCounted)
        if let seen = try await repository.seenRun(uuid: stored.uuid, viewer: account) {
            (view.runner, view.title, view.description) = (
                seen.runner, seen.post.title(seen.run, zone: seen.zone), seen.post.description
            )
        }
        return (view, created)
    }
}
