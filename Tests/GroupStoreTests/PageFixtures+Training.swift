import HandoffAPI
import HandoffModel
import Training

@testable import GroupStore

/// The training page's fixture: twelve weeks of runs, rides, walks and a swim, some without
/// heart rate, drawn as the store draws them.
extension PageMakers {
    static func trainingRuns(now: WallInstant) -> [TrainingRun] {
        let day = 86_400 * nanosecondsPerSecond
        var runs: [TrainingRun] = []
        for back in stride(from: 1, to: 84, by: 2) {
            let sport: Sport = [.run, .bike, .walk, .run, .swim, .run][(back / 2) % 6]
            let km = sport == .bike ? 30.0 : sport == .swim ? 1.5 : Double(5 + back % 9)
            runs.append(
                TrainingRun(
                    sport: sport, started: now.advanced(byNanoseconds: -Int64(back) * day),
                    distanceMM: Int64(km * 1_000_000), elapsedMS: Int64(km * (sport == .bike ? 120_000 : 330_000)),
                    averageHeartRate: back % 5 == 0 ? nil : Int64(135 + back % 30),
                    heartSeconds: back % 5 == 0
                        ? nil
                        : HeartRateHistogram(
                            samples: (0..<Int(km * 300)).map { (Double($0), 120 + (back * 7 + $0 / 60) % 60) })))
        }
        return runs
    }

    func training() -> TrainingPage {
        let now = PageFixture.now
        let picture = TrainingPicture(
            runs: Self.trainingRuns(now: now), now: now, zone: "UTC", weekCount: 12, dayCount: 90,
            settings: (nil, 188), female: false)
        var page = TrainingPage(picture, weekCount: 12, dayCount: 90, now: now, reader: .standard, viewer: "ada")
        page.frame = frame(page.frame.title, viewer: "ada")
        page.spans = page.spans.map(link)
        page.json = t(page.json)
        page.weekly = translated(page.weekly)
        page.zones = page.zones.map(translated)
        page.calendar.title = t(page.calendar.title)
        page.calendar.weeks = page.calendar.weeks.map { week in
            week.map { .init(day: t($0.day), distance: $0.distance.map(t), active: $0.active, today: $0.today) }
        }
        var load = page.load
        (load.label, load.fitness, load.fatigue, load.form, load.zero, load.note) = (
            t(load.label), t(load.fitness), t(load.fatigue), t(load.form), t(load.zero), t(load.note)
        )
        load.now = load.now.map { .init(label: t($0.label), value: t($0.value)) }
        page.load = load
        return page
    }

    func translated(_ chart: TrainingPage.Weekly) -> TrainingPage.Weekly {
        var weekly = chart
        (weekly.label, weekly.top) = (t(weekly.label), t(weekly.top))
        weekly.bars = weekly.bars.map {
            .init(
                kind: t($0.kind), x: t($0.x), y: t($0.y), width: t($0.width), height: t($0.height), title: t($0.title))
        }
        weekly.ticks = weekly.ticks.map { .init(x: t($0.x), label: t($0.label)) }
        weekly.legend = weekly.legend.map { .init(kind: t($0.kind), name: t($0.name)) }
        weekly.rows = weekly.rows.map { .init(week: t($0.week), total: t($0.total)) }
        return weekly
    }
}
