import Foundation
import HandoffAPI
import HandoffModel
import Hummingbird
import Training

/// `/me/training`: stacked weekly bars per sport (12 or 52 weeks), this month's calendar, and
/// fitness, fatigue and form over 90 or 365 days; every chart SVG drawn here, with its numbers
/// in a table beside it for screen readers and for reading them exactly.
struct TrainingPage: PageModel {
    static let template = "training"
    var frame: Frame
    var spans: [Link]
    var weekly: Weekly
    var calendar: Calendar
    var load: Load
    /// Time in heart-rate zones per week; nil when no run of the span has heart rate.
    var zones: Weekly?
    var json: String

    struct Weekly: Sendable, Equatable {
        var label: String
        var top: String
        var bars: [Bar]
        var ticks: [Tick]
        var legend: [Key]
        var rows: [Row]
    }

    struct Bar: Sendable, Equatable {
        /// Its CSS class: `s-run`, …, or `z1`, ….
        var kind: String
        var x: String
        var y: String
        var width: String
        var height: String
        var title: String
    }

    struct Tick: Sendable, Equatable {
        var x: String
        var label: String
    }

    struct Key: Sendable, Equatable {
        /// As `Bar.kind`.
        var kind: String
        var name: String
    }

    struct Row: Sendable, Equatable {
        var week: String
        var total: String
    }

    struct Calendar: Sendable, Equatable {
        var title: String
        var weeks: [[Cell]]
    }

    struct Cell: Sendable, Equatable {
        var day: String
        var distance: String?
        var active: Bool
        var today: Bool
    }

    struct Load: Sendable, Equatable {
        var label: String
        var fitness: String
        var fatigue: String
        var form: String
        var zero: String
        var now: [RunPage.Stat]
        var note: String
    }

    static let width = 480.0
    static let height = 150.0
    static let left = 50.0

    init(_ picture: TrainingPicture, weekCount: Int, dayCount: Int, now: WallInstant, reader: Reader, viewer: String) {
        frame = Frame("Training", viewer: viewer)
        let units = reader.units
        spans = [
            Link(href: SitePath.training(weeks: 12, days: 90).path, label: "12 weeks, 90 days"),
            Link(href: SitePath.training(weeks: 52, days: 365).path, label: "52 weeks, a year"),
        ]
        json = SitePath.trainingJSON(weeks: weekCount, days: dayCount).path
        // Weekly bars, stacked by sport in the API's order.
        let totals = picture.weeks.map { $0.meters.values.reduce(0, +) }
        let top = max(totals.max() ?? 0, units.meters)
        let plot = (width: Self.width - Self.left - 8, height: Self.height - 30)
        let step = plot.width / Double(max(1, picture.weeks.count))
        var bars: [Bar] = []
        var ticks: [Tick] = []
        for (index, week) in picture.weeks.enumerated() {
            var base = 0.0
            let x = Self.left + Double(index) * step + step * 0.15
            for sport in Sport.allCases {
                guard let meters = week.meters[sport], meters > 0 else { continue }
                let h = meters / top * plot.height
                bars.append(
                    Bar(
                        kind: "s-" + sport.rawValue, x: RunMap.number(x),
                        y: RunMap.number(10 + plot.height - base - h), width: RunMap.number(step * 0.7),
                        height: RunMap.number(h),
                        title:
                            "\(sport.title), week of \(PageFormat.day(Self.instant(week.monday))): \(units.distance(meters: meters))"
                    ))
                base += h
            }
            // A label every third week of 12 and every eighth of 52: they fit a phone's width.
            if (picture.weeks.count - 1 - index) % (picture.weeks.count <= 12 ? 3 : 8) == 0 {
                ticks.append(
                    Tick(x: RunMap.number(x + step * 0.35), label: Self.short(Self.instant(week.monday))))
            }
        }
        let used = Set(picture.weeks.flatMap { $0.meters.filter { $0.value > 0 }.keys })
        weekly = Weekly(
            label:
                "Distance per week and sport over \(picture.weeks.count) weeks; the most, \(units.distance(meters: totals.max() ?? 0)).",
            top: units.distance(meters: top, decimals: 0), bars: bars, ticks: ticks,
            legend: Sport.allCases.filter(used.contains).map { Key(kind: "s-" + $0.rawValue, name: $0.title) },
            rows: zip(picture.weeks, totals).reversed().map { week, total in
                Row(week: PageFormat.day(Self.instant(week.monday)), total: units.distance(meters: total))
            })
        calendar = Self.month(picture, now: now, reader: reader)
        load = Self.load(picture)
        zones = Self.zoneChart(picture)
    }

    static func instant(_ day: Int64) -> WallInstant { WallInstant(nanosecondsSinceEpoch: day * TrainingPicture.day) }

    /// "24 Nov".
    static func short(_ instant: WallInstant) -> String {
        String(PageFormat.day(instant).split(separator: " ").prefix(2).joined(separator: " "))
    }

    /// This month on the person's calendar, Monday first, each day with the distance done.
    static func month(_ picture: TrainingPicture, now: WallInstant, reader: Reader) -> Calendar {
        let today = TrainingPicture.localDay(now, zone: reader.zone)
        let civil = CivilTime(instant(today))
        let first = TrainingPicture.localDay(
            CivilTime(year: civil.year, month: civil.month, day: 1).instant, zone: "UTC")
        var cells: [Cell] = Array(
            repeating: Cell(day: "", distance: nil, active: false, today: false),
            count: Int(first - TrainingPicture.monday(first)))
        var day = first
        while CivilTime(instant(day)).month == civil.month {
            let mm = picture.distanceByDay[day] ?? 0
            cells.append(
                Cell(
                    day: String(CivilTime(instant(day)).day),
                    distance: mm > 0 ? reader.units.distance(meters: Double(mm) / 1000, decimals: 1) : nil,
                    active: mm > 0, today: day == today))
            day += 1
        }
        while cells.count % 7 != 0 { cells.append(Cell(day: "", distance: nil, active: false, today: false)) }
        let name = PageFormat.day(instant(first)).split(separator: " ").dropFirst().joined(separator: " ")
        return Calendar(title: name, weeks: stride(from: 0, to: cells.count, by: 7).map { Array(cells[$0..<$0 + 7]) })
    }

    /// Fitness, fatigue and form as three lines over the days, the form's zero drawn across.
    static func load(_ picture: TrainingPicture) -> Load {
        let points = picture.days.map(\.point)
        let high = max(10, points.map { max($0.fitness, $0.fatigue, $0.form) }.max() ?? 0)
        let low = min(0, points.map(\.form).min() ?? 0)
        let plot = (width: width - left - 8, height: height - 30)
        func y(_ value: Double) -> Double { 10 + (high - value) / (high - low) * plot.height }
        func line(_ value: (TrainingLoad.Point) -> Double) -> String {
            points.enumerated().map { index, point in
                let x = left + Double(index) / Double(max(1, points.count - 1)) * plot.width
                return RunMap.number(x) + "," + RunMap.number(y(value(point)))
            }.joined(separator: " ")
        }
        let last = points.last ?? TrainingLoad.Point(fitness: 0, fatigue: 0, form: 0)
        let (resting, maximum, source) = picture.heartRates
        return Load(
            label:
                "Fitness, fatigue and form over \(points.count) days; today fitness \(Int(last.fitness.rounded())), fatigue \(Int(last.fatigue.rounded())), form \(Int(last.form.rounded())).",
            fitness: line(\.fitness), fatigue: line(\.fatigue), form: line(\.form),
            zero: "M\(RunMap.number(left)),\(RunMap.number(y(0)))H\(RunMap.number(width - 8))",
            now: [
                RunPage.Stat(label: "Fitness (42 days)", value: String(Int(last.fitness.rounded()))),
                RunPage.Stat(label: "Fatigue (7 days)", value: String(Int(last.fatigue.rounded()))),
                RunPage.Stat(label: "Form", value: String(Int(last.form.rounded()))),
            ],
            note:
                "Load is Banister's TRIMP from each run's average heart rate, between a resting \(resting) and a maximum \(maximum) bpm ("
                + (source == "settings"
                    ? "your maximum from the settings, the resting rate assumed"
                    : "estimated from your runs: set your maximum in the settings")
                + "); a run without heart rate counts as a steady effort.")
    }
}

extension WebPages {
    func registerTrainingPages(_ router: PageRouter) {
        router.signedIn(.get, "/me/training", next: { $0.uri.path }) { request, _, account in
            let (weeks, days) = try Self.span(request)
            let now = services.now()
            let picture = try await services.trainingPicture(account, weeks: weeks, days: days, now: now)
            return Self.render(
                TrainingPage(
                    picture, weekCount: weeks, dayCount: days, now: now, reader: Reader(account),
                    viewer: account.username))
        }
    }

    /// `weeks` (12 or 52) and `days` (90 or 365) from the query; anything else is the default.
    static func span(_ request: Request) throws(StoreError) -> (weeks: Int, days: Int) {
        let weeks = request.uri.queryParameters["weeks"].flatMap { Int(String($0)) } ?? 12
        let days = request.uri.queryParameters["days"].flatMap { Int(String($0)) } ?? 90
        guard [12, 52].contains(weeks), [90, 365].contains(days) else {
            throw StoreError(.unprocessableContent, "invalid_span", "weeks is 12 or 52, and days 90 or 365")
        }
        return (weeks, days)
    }
}

extension Services {
    func trainingPicture(_ account: Account, weeks: Int, days: Int, now: WallInstant) async throws -> TrainingPicture {
        // Runs stored before their seconds at each heart rate were kept (schema 24) are read once.
        try await fillEfforts(account: account.id)
        let runs = try await repository.trainingRuns(
            account: account.id, since: TrainingPicture.since(now: now, weekCount: weeks, dayCount: days))
        let female = try await repository.profile(account: account.id).values[.gender] == "woman"
        return TrainingPicture(
            runs: runs, now: now, zone: account.timeZone, weekCount: weeks, dayCount: days,
            settings: (account.restingHeartRate, account.maximumHeartRate), female: female)
    }
}

extension TrainingView: ResponseGenerator, ResponseEncodable {}

struct TrainingRoutes {
    let services: Services

    func register(_ router: RouteRecorder) {
        registerSteps(router)
        registerStepsOutsideRuns(router)
        router.get("/v1/me/training") { request, _ in
            let account = try await services.caller(request).account
            let (weeks, days) = try WebPages.span(request)
            return try await services.trainingPicture(account, weeks: weeks, days: days, now: services.now()).view
        }
    }
}
