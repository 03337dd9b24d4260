import ActivityFormats
import Foundation
import HandoffAPI
import HandoffModel

extension Services {
    /// A stored file read, on the upload workers; nil when it can no longer be read.
    func read(_ format: String, _ bytes: [UInt8]) async throws -> Activity? {
        guard let format = ActivityFormat(rawValue: format) else { return nil }
        do {
            return try await uploads.run { try? format.read(bytes) }
        } catch {
            throw StoreError.busy("reading runs")
        }
    }

    /// The facts for the run's page: those kept at upload, or, for a run stored before them (or
    /// by a store that computed them otherwise), computed from its file on the upload workers
    /// and kept. nil when the file can no longer be read.
    func facts(uuid: String, account: Int64) async throws -> RunFacts? {
        if let kept = try await repository.runFacts(uuid: uuid, account: account),
            kept.version == RunFacts.currentVersion, let facts = RunFacts.decoded(kept.bytes)
        {
            return facts
        }
        guard let (format, bytes) = try await repository.runFileIfAny(uuid: uuid, account: account) else { return nil }
        guard let format = ActivityFormat(rawValue: format) else { return nil }
        let computed: (RunFacts, [UInt8])?
        do {
            computed = try await uploads.run {
                (try? format.read(bytes)).map { activity in
                    let facts = RunFacts(activity)
                    return (facts, facts.encoded())
                }
            }
        } catch {
            throw StoreError.busy("reading runs")
        }
        guard let (facts, encoded) = computed else { return nil }
        try await repository.keepRunFacts(
            uuid: uuid, account: account, version: facts.version, facts: encoded, thumbnail: facts.thumbnail())
        return facts
    }
}

extension RunFacts {
    /// The API's view: metric, marks each kilometre. JSON has no infinity: a file's absurd lap
    /// totals go as 0 (or null).
    func details(uuid: String) -> RunDetails {
        RunDetails(
            uuid: uuid,
            track: track.flatMap { track in
                track.segments.isEmpty
                    ? nil
                    : RunDetails.Track(
                        toleranceM: track.tolerance, recordedPoints: track.recorded, segments: track.segments,
                        marks: km.marks.map {
                            RunDetails.Mark(distanceM: $0.distance, latitude: $0.latitude, longitude: $0.longitude)
                        })
            },
            series: RunDetails.Series(
                elapsedS: elapsed, stepS: elapsed / Double(Self.steps), speedMS: series.speed,
                heartRateBpm: series.heartRate, altitudeM: series.altitude,
                // A ride's cadence is its crank's: named so, never as steps.
                cadenceSpm: cycling ? series.cadence.map { _ in nil } : series.cadence,
                cadenceRpm: cycling ? series.cadence : nil),
            splits: km.splits.map {
                RunDetails.Split(distanceM: $0.distance, timerS: $0.timer, heartRateBpm: $0.heartRate, climbM: $0.climb)
            },
            laps: laps.map {
                RunDetails.Lap(
                    trigger: $0.trigger, startS: $0.start, endS: $0.end,
                    distanceM: $0.distance.isFinite ? $0.distance : 0,
                    timerS: $0.timer.isFinite ? $0.timer : 0,
                    heartRateBpm: $0.heartRate.flatMap { $0.isFinite ? $0 : nil })
            },
            pauses: pauseSeconds.map { RunDetails.Pause(startS: $0.start, endS: $0.end) })
    }
}

extension StoreRepository {
    /// The facts kept for the run's page (`RunFacts`), with the version that computed them; nil
    /// when none are kept (a run stored before schema 10). A run that is not the account's is a 404.
    func runFacts(uuid: String, account: Int64) async throws -> (version: Int, bytes: [UInt8])? {
        try await read { db in
            guard
                let row = try await db.one(
                    """
                    SELECT run.id, run_facts.version, run_facts.facts FROM run
                    LEFT JOIN run_facts ON run_facts.run_id = run.id WHERE run.uuid = ? AND run.account_id = ?
                    """, uuid, account)
            else { throw StoreError.notFound("run", uuid) }
            guard let version = try row.intOrNil("version") else { return nil }
            return (Int(version), try row.blob("facts"))
        }
    }
}
