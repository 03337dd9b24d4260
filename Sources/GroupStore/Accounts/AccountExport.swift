import ActivityFormats
import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird
import Logging

extension WebPages {
    /// Everything the person stored, as one zip: each run as FIT (the original when it was FIT)
    /// and GPX, the account and the groups as JSON. Sent as it is written: each run is read,
    /// converted, sent and let go in turn, so the store holds one run and the zip's directory,
    /// never the archive (a runner's years of runs are hundreds of megabytes).
    func export(_ account: Account, logger: Logger) async throws -> Response {
        let repository = services.repository
        // Refused before the first byte when it cannot fit: up to three entries a run, and a
        // GPX file about five times its FIT file's size.
        let (runCount, stored) = try await repository.storedSize(account: account.id)
        let photos = try await repository.photos(account: account.id)
        let photoBytes = photos.reduce(0) { $0 + $1.photo.size }
        guard runCount * 3 + photos.count + 2 <= ZipArchive.mostEntries, stored * 7 + photoBytes < ZipArchive.mostBytes
        else {
            throw ZipArchive.TooLarge()
        }
        let services = self.services
        let now = services.now()
        let body = ResponseBody { writer in
            let civil = CivilTime(now)
            var zip = ZipArchive(
                year: civil.year, month: civil.month, day: civil.day, hour: civil.hour, minute: civil.minute,
                second: civil.second)
            do {
                var runs: [[String: Any]] = []
                var cursor: StoreRepository.RunCursor?
                repeat {
                    let page = try await repository.runs(account: account.id, limit: 200, before: nil, after: cursor)
                    for (run, counts) in page.runs {
                        let (format, bytes) = try await repository.runFile(uuid: run.uuid, account: account.id)
                        let name = "runs/\(iso(run.started).prefix(10))-\(run.uuid)"
                        let activity = try await services.read(format, bytes)
                        var entries = [(name + "." + format, bytes)]
                        if let activity {
                            if format != "fit" { entries.append((name + ".fit", ActivityFormat.fit.write(activity))) }
                            if format != "gpx" { entries.append((name + ".gpx", ActivityFormat.gpx.write(activity))) }
                        }
                        for (file, content) in entries {
                            try await writer.write(ByteBuffer(bytes: try zip.add(file, content)))
                        }
                        runs.append([
                            "uuid": run.uuid, "started_at": iso(run.started),
                            "distance_m": Double(run.distanceMM) / 1000, "sport": run.sport, "original_format": format,
                            "visibility": run.audience.run.rawValue, "map_visibility": run.audience.map.rawValue,
                            "counted_in": counts.map {
                                ["group": $0.groupName, "distance_m": Double($0.distanceMM) / 1000]
                            },
                        ])
                    }
                    cursor = page.next
                } while cursor != nil
                var photoList: [[String: Any]] = []
                var numbers: [String: Int] = [:]
                for (photo, run) in photos {
                    guard let bytes = try await repository.photoBytes(id: photo.id) else { continue }
                    let number = run.map { uuid in
                        numbers[uuid, default: 0] += 1
                        return "\(uuid)-\(numbers[uuid] ?? 1)"
                    }
                    let file = "photos/" + (number ?? "profile") + "." + photo.format.fileExtension
                    try await writer.write(ByteBuffer(bytes: try zip.add(file, bytes)))
                    var entry: [String: Any] = ["file": file]
                    if let run { entry["run"] = run } else { entry["visibility"] = photo.visibility.rawValue }
                    photoList.append(entry)
                }
                let devices = try await repository.devices(account: account.id)
                var accountJSON: [String: Any] = [
                    "username": account.username, "email": account.email, "created_at": iso(account.created),
                    "units": account.units, "time_zone": account.timeZone,
                    "packs": devices.map { ["name": $0.name, "linked_at": iso($0.created)] }, "runs": runs,
                ]
                if let bpm = account.maximumHeartRate { accountJSON["max_heart_rate_bpm"] = bpm }
                if let bpm = account.restingHeartRate { accountJSON["rest_heart_rate_bpm"] = bpm }
                accountJSON["new_runs_visibility"] = account.audience.run.rawValue
                accountJSON["new_maps_visibility"] = account.audience.map.rawValue
                accountJSON["friends"] = try await repository.friends(account.id).map {
                    ["username": $0.username, "status": $0.status.rawValue]
                }
                let profile = try await repository.profile(account: account.id)
                accountJSON["profile"] = Dictionary(
                    uniqueKeysWithValues: profile.values.map { field, value in
                        (field.rawValue, ["value": value, "visibility": profile.level(field).rawValue])
                    })
                accountJSON["goals"] = try await repository.goals(account: account.id).map { goal -> [String: Any] in
                    [
                        "period": goal.period.rawValue, "measure": goal.measure.rawValue,
                        "sport": goal.sport?.rawValue ?? "all", "target": Double(goal.target) / goal.measure.scale,
                    ]
                }
                accountJSON["steps_outside_runs"] = try await repository.stepsOutsideRuns(account: account.id, from: 0)
                    .sorted { $0.key < $1.key }.map { ["date": TrainingPicture.date($0.key), "steps": $0.value] }
                accountJSON["photos"] = photoList
                accountJSON["comments"] = try await repository.commentsWritten(account: account.id).map {
                    ["run": $0.run, "text": $0.text, "created_at": iso($0.created)]
                }
                let groups = try await repository.groups(account: account.id).map { group -> [String: Any] in
                    [
                        "name": group.name, "goal_m": Double(group.goalMM) / 1000,
                        "total_m": Double(group.totalMM) / 1000, "owner": group.ownerID == account.id,
                    ]
                }
                try await writer.write(ByteBuffer(bytes: try zip.add("account.json", try Self.json(accountJSON))))
                try await writer.write(
                    ByteBuffer(bytes: try zip.add("groups.json", try Self.json(["groups": groups]))))
                try await writer.write(ByteBuffer(bytes: zip.finished()))
                try await writer.finish(nil)
            } catch {
                // The reply has begun: all that is left is to end it short, which the browser
                // shows as a failed download, and to say why in the journal.
                logger.error(
                    "An export ended before its end", metadata: ["account": "\(account.id)", "error": "\(error)"])
                throw error
            }
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/zip",
                .contentDisposition: "attachment; filename=\"handoff-\(iso(now).prefix(10)).zip\"",
                .cacheControl: "no-store",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            ], body: body)
    }
}
