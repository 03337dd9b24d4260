import Foundation
import HandoffModel
import Hummingbird

/// Two people's running side by side: the viewer's own runs, and the other's only as far as the
/// rule lets the viewer see them (`RunVisibility.sql`).
struct Comparison: Sendable {
    var other: SeenPerson
    /// For each period, (the viewer's, the other's).
    var periods: [(period: ComparePeriod, mine: Tally, theirs: Tally)]
    /// Distance a week, oldest first, the current week last: (Monday, the viewer's mm, the other's mm).
    var weeks: [(start: Int64, mine: Int64, theirs: Int64)]

    struct Tally: Sendable, Equatable {
        var runs: Int64
        var distanceMM: Int64
        var timerMS: Int64
        var longestMM: Int64
    }
}

enum ComparePeriod: String, CaseIterable, Sendable {
    case week, fourWeeks, year, all

    var title: String {
        switch self {
        case .week: "This week"
        case .fourWeeks: "The last 4 weeks"
        case .year: "This year"
        case .all: "All time"
        }
    }

    /// Where the period starts (UTC: weeks start on Monday, as on the home page).
    func start(_ now: WallInstant) -> Int64 {
        let day = 86_400 * nanosecondsPerSecond
        switch self {
        case .week: return weekStart(now)
        case .fourWeeks: return weekStart(now) - 3 * 7 * day
        case .year:
            let civil = CivilTime(now)
            return CivilTime(year: civil.year, month: 1, day: 1).instant.nanosecondsSinceEpoch
        case .all: return Int64.min
        }
    }
}

extension StoreRepository {
    static let weeksCompared = 12

    /// The viewer and `username` side by side; nil for nobody of that name and for a block alike.
    func compare(viewer: Int64, username: String, now: WallInstant) async throws -> Comparison? {
        guard let other = try await person(username: username, viewer: viewer) else { return nil }
        let day = 86_400 * nanosecondsPerSecond
        let firstWeek = weekStart(now) - Int64(Self.weeksCompared - 1) * 7 * day
        @Sendable func tallies(_ db: any SQLSession, _ account: Int64) async throws -> ([Comparison.Tally], [Int64]) {
            let (seen, arguments) = RunVisibility.sql(viewer: viewer)
            var columns: [String] = []
            var starts: [SQLValue] = []
            for (index, period) in ComparePeriod.allCases.enumerated() {
                let when = "run.started_ns >= ?"
                columns += [
                    "CAST(coalesce(sum(CASE WHEN \(when) THEN 1 ELSE 0 END), 0) AS BIGINT) AS n\(index)",
                    "CAST(coalesce(sum(CASE WHEN \(when) THEN distance_mm ELSE 0 END), 0) AS BIGINT) AS d\(index)",
                    "CAST(coalesce(sum(CASE WHEN \(when) THEN timer_ms ELSE 0 END), 0) AS BIGINT) AS t\(index)",
                    "CAST(coalesce(max(CASE WHEN \(when) THEN distance_mm END), 0) AS BIGINT) AS l\(index)",
                ]
                starts += Array(repeating: .integer(period.start(now)), count: 4)
            }
            let row = try await db.query(
                "SELECT \(columns.joined(separator: ", ")) FROM run WHERE run.account_id = ? AND \(seen)",
                starts + [.integer(account)] + arguments
            ).first
            let tallies = try ComparePeriod.allCases.indices.map { index in
                Comparison.Tally(
                    runs: try row?.int("n\(index)") ?? 0, distanceMM: try row?.int("d\(index)") ?? 0,
                    timerMS: try row?.int("t\(index)") ?? 0, longestMM: try row?.int("l\(index)") ?? 0)
            }
            var weeks = Array(repeating: Int64(0), count: Self.weeksCompared)
            for run in try await db.query(
                "SELECT started_ns, distance_mm FROM run WHERE run.account_id = ? AND run.started_ns >= ? AND \(seen)",
                [.integer(account), .integer(firstWeek)] + arguments)
            {
                let week = Int(
                    (weekStart(WallInstant(nanosecondsSinceEpoch: try run.int("started_ns"))) - firstWeek) / (7 * day))
                if weeks.indices.contains(week) { weeks[week] += try run.int("distance_mm") }
            }
            return (tallies, weeks)
        }
        return try await read { db in
            let (mine, myWeeks) = try await tallies(db, viewer)
            let (theirs, theirWeeks) = try await tallies(db, other.id)
            return Comparison(
                other: other,
                periods: ComparePeriod.allCases.enumerated().map { ($1, mine[$0], theirs[$0]) },
                weeks: (0..<Self.weeksCompared).map { (firstWeek + Int64($0) * 7 * day, myWeeks[$0], theirWeeks[$0]) })
        }
    }
}

/// `/compare/{username}`: the viewer and someone else over this week, 4 weeks, this year and all
/// time, and their weekly distance over 12 weeks as paired bars.
struct ComparePage: PageModel {
    static let template = "compare"
    var frame: Frame
    var you: String
    var them: String
    var periods: [Period]
    var chart: Chart
    var note: String

    struct Period: Sendable, Equatable {
        var title: String
        var rows: [Row]
    }

    struct Row: Sendable, Equatable {
        var label: String
        var mine: String
        var theirs: String
    }

    struct Chart: Sendable, Equatable {
        var label: String
        var bars: [Bar]
        var ticks: [Tick]
        var top: String
    }

    struct Bar: Sendable, Equatable {
        var x: String
        var y: String
        var height: String
        var mine: Bool
        var title: String
    }

    struct Tick: Sendable, Equatable {
        var x: String
        var label: String
    }
}

extension ComparePage {
    init(_ comparison: Comparison, reader: Reader, viewer: String) {
        let units = reader.units
        let name = comparison.other.username
        frame = Frame("You and \(name)", viewer: viewer)
        you = "You"
        them = name
        periods = comparison.periods.map { period, mine, theirs in
            func pace(_ tally: Comparison.Tally) -> String {
                tally.distanceMM > 0
                    ? units.pace(seconds: Double(tally.timerMS) / 1000, meters: Double(tally.distanceMM) / 1000) : "–"
            }
            return Period(
                title: period.title,
                rows: [
                    Row(
                        label: "Distance", mine: PageFormat.distance(mine.distanceMM, units),
                        theirs: PageFormat.distance(theirs.distanceMM, units)),
                    Row(label: "Runs", mine: String(mine.runs), theirs: String(theirs.runs)),
                    Row(
                        label: "Time", mine: Units.clock(Double(mine.timerMS) / 1000),
                        theirs: Units.clock(Double(theirs.timerMS) / 1000)),
                    Row(label: "Average pace", mine: pace(mine), theirs: pace(theirs)),
                    Row(
                        label: "Longest run", mine: PageFormat.distance(mine.longestMM, units),
                        theirs: PageFormat.distance(theirs.longestMM, units)),
                ])
        }
        let highest = max(1, comparison.weeks.map { max($0.mine, $0.theirs) }.max() ?? 1)
        let slot = 412.0 / Double(max(1, comparison.weeks.count))
        var bars: [Bar] = []
        var ticks: [Tick] = []
        for (index, week) in comparison.weeks.enumerated() {
            let left = 60 + Double(index) * slot
            let date = PageFormat.time(WallInstant(nanosecondsSinceEpoch: week.start), zone: "UTC").text
            // "Mon 7 Sep 2026, 00:00 UTC" → "7 Sep".
            let day = date.split(separator: " ").dropFirst().prefix(2).joined(separator: " ")
            for (offset, (mm, mine)) in [(week.mine, true), (week.theirs, false)].enumerated() {
                let height = 120 * Double(mm) / Double(highest)
                bars.append(
                    Bar(
                        x: RunMap.number(left + 3 + Double(offset) * (slot - 6) / 2),
                        y: RunMap.number(130 - height), height: RunMap.number(height), mine: mine,
                        title: "\(mine ? "You" : name), week of \(day): \(PageFormat.distance(mm, units))"))
            }
            if (comparison.weeks.count - 1 - index) % 4 == 0 {
                ticks.append(Tick(x: RunMap.number(left + slot / 2), label: day))
            }
        }
        chart = Chart(
            label: "Distance a week over the last \(comparison.weeks.count) weeks, yours beside \(name)'s",
            bars: bars, ticks: ticks, top: PageFormat.distance(highest, units))
        note = "Only the runs \(name) lets you see are counted."
    }
}

extension WebPages {
    func registerComparePage(_ router: PageRouter) {
        router.signedIn(.get, "/compare/:username", next: { $0.uri.path }) { _, context, account in
            let username = context.parameters.get("username") ?? ""
            guard TextRules.key(username) != TextRules.key(account.username),
                let comparison = try await services.repository.compare(
                    viewer: account.id, username: username, now: services.now())
            else {
                return Self.message(
                    "No one to compare with", "Nobody else you may see has the username \(username).",
                    status: .notFound, account: account, link: Link(href: SitePath.friends.path, label: "Your friends"))
            }
            return Self.render(ComparePage(comparison, reader: Reader(account), viewer: account.username))
        }
    }
}
