import ActivityFormats
import HandoffAPI
import HandoffModel
import Hummingbird
import Training

extension RunDerived {
    init(_ activity: Activity) {
        efforts = BestEfforts.find(activity)
        // As the run's facts count them: the session's total, else the last point's count.
        steps = (activity.summary.steps ?? activity.points.last(where: { $0.steps != nil })?.steps).flatMap {
            (0...10_000_000).contains($0) ? $0 : nil
        }
        let histogram = HeartRateHistogram(
            samples: activity.points.compactMap { p in p.heartRateBPM.map { (Double(p.elapsedSeconds), $0) } })
        heartSeconds = histogram.seconds.isEmpty ? nil : histogram.encoded
    }
}

extension BestEfforts {
    /// The best efforts inside an activity, from the distances its device recorded (or, where it
    /// recorded none, that its reader took from the track).
    static func find(_ activity: Activity) -> [Effort] {
        find(activity.points.map { (Double($0.elapsedSeconds), $0.distanceMeters) })
    }
}

/// A person's records (issue 34): per sport, the fastest effort over each standard distance
/// found inside any run, the longest run and the biggest week (Monday to Sunday, UTC, as the
/// group pages count weeks), from the person's summary (`PersonSummary`: kept up to date at each
/// upload, deletion and change of a run's sport or visibility).
struct PersonalRecords: Sendable {
    var efforts: [KeptEffort]
    var longest: [RunMeasure]
    var weeks: [PersonSummary.Week]

    init(_ summary: PersonSummary) {
        efforts = summary.efforts
        longest = summary.longest
        weeks = summary.sports.compactMap(\.biggest)
    }

    static func name(meters: Int64) -> String {
        BestEfforts.standard.first { StoreRepository.effortKey($0.meters) == meters }?.name ?? "\(meters) m"
    }

    /// The exact distance a kept key stands for (the mile's 1609 is 1609.344 m).
    static func meters(_ key: Int64) -> Double {
        BestEfforts.standard.first { StoreRepository.effortKey($0.meters) == key }?.meters ?? Double(key)
    }

    var list: RecordList {
        var records: [RecordView] = []
        for sport in Sport.allCases {
            records += efforts.filter { $0.sport == sport }.sorted { $0.meters < $1.meters }.map { effort in
                RecordView(
                    kind: "best_effort", name: Self.name(meters: effort.meters), sport: sport.rawValue,
                    distanceM: Self.meters(effort.meters), elapsedS: Double(effort.milliseconds) / 1000,
                    uuid: effort.uuid, at: iso(effort.started))
            }
            records += longest.filter { $0.sport == sport }.map {
                RecordView(
                    kind: "longest", name: "Longest", sport: sport.rawValue, distanceM: Double($0.distanceMM) / 1000,
                    elapsedS: Double($0.elapsedMS) / 1000, uuid: $0.uuid, at: iso($0.started))
            }
            records += weeks.filter { $0.sport == sport }.map {
                RecordView(
                    kind: "biggest_week", name: "Biggest week", sport: sport.rawValue,
                    distanceM: Double($0.distanceMM) / 1000, elapsedS: Double($0.elapsedMS) / 1000, uuid: nil,
                    at: String(iso(WallInstant(nanosecondsSinceEpoch: $0.monday)).prefix(10)))
            }
        }
        return RecordList(records: records)
    }
}

extension Services {
    /// Finds the best efforts, steps and heart-rate seconds of the account's runs stored before
    /// they were kept (schemas 21, 22 and 24), from their files on the upload workers, a hundred at a time.
    func fillEfforts(account: Int64) async throws {
        while true {
            let uuids = try await repository.runsWithoutEfforts(account: account, limit: 100)
            guard !uuids.isEmpty else { return }
            for uuid in uuids {
                var derived = RunDerived()
                if let (format, bytes) = try await repository.runFileIfAny(uuid: uuid, account: account),
                    let format = ActivityFormat(rawValue: format)
                {
                    do {
                        derived = try await uploads.run {
                            (try? format.read(bytes)).map(RunDerived.init) ?? RunDerived()
                        }
                    } catch {
                        throw StoreError.busy("reading runs")
                    }
                }
                try await repository.keepDerived(uuid: uuid, account: account, derived)
            }
        }
    }

    /// The account's summary among the runs `viewer` may see (the account itself: all), once
    /// any runs stored before best efforts were kept have been looked at.
    func personSummary(account: Int64, viewer: Int64?) async throws -> PersonSummary {
        try await fillEfforts(account: account)
        return try await repository.personSummary(account: account, viewer: viewer)
    }

    /// The account's records among the runs `viewer` may see. `summary`: when the caller has
    /// read it already (the profile, for the level too).
    func records(account: Int64, viewer: Int64?, summary: PersonSummary? = nil) async throws -> PersonalRecords {
        if let summary { return PersonalRecords(summary) }
        return PersonalRecords(try await personSummary(account: account, viewer: viewer))
    }
}

extension RecordList: ResponseGenerator, ResponseEncodable {}

struct RecordRoutes {
    let services: Services

    func register(_ router: RouteRecorder) {
        router.get("/v1/me/records") { request, _ in
            let account = try await services.caller(request).account
            return try await services.records(account: account.id, viewer: account.id).list
        }
    }
}

/// A record as a page lists it: "Run · 5 km · 23:30 · 5.00 km · (the run's date, linked)".
struct RecordRow: Sendable, Equatable {
    var sport: String
    var name: String
    var time: String
    var distance: String
    /// The run that set it; nil for a week, which says its Monday instead.
    var run: Link?
    var week: String?

    static func rows(_ records: PersonalRecords, reader: Reader) -> [RecordRow] {
        records.list.records.map { record in
            let when = WallInstant(iso8601: record.at)
            return RecordRow(
                sport: Sport(rawValue: record.sport)?.title ?? record.sport, name: record.name,
                time: Units.clock(record.elapsedS), distance: reader.units.distance(meters: record.distanceM),
                run: record.uuid.flatMap { uuid in
                    when.map { Link(href: SitePath.run(uuid).path, label: PageFormat.time($0, zone: reader.zone).text) }
                },
                week: record.uuid == nil
                    ? "Week of " + (WallInstant(iso8601: record.at + "T00:00:00Z").map(PageFormat.day) ?? record.at)
                    : nil)
        }
    }
}
