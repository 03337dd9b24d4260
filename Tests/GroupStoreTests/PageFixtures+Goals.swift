import HandoffAPI
import HandoffModel

@testable import GroupStore

/// The goals page's fixture (a weekly distance goal met three weeks running, a daily step goal
/// and a weekly ride count), the steps page's, and the rings the home and person pages show.
extension PageMakers {
    static func goalProgress(now: WallInstant) -> [GoalProgress] {
        let day = 86_400 * nanosecondsPerSecond
        var runs: [GoalRun] = []
        for back in stride(from: 0, to: 90, by: 2) {
            runs.append(
                GoalRun(
                    started: now.advanced(byNanoseconds: -Int64(back) * day), sport: back % 6 == 4 ? .bike : .run,
                    distanceMM: Int64(4 + back % 7) * 1_000_000, timerMS: 1_800_000, steps: Int64(6_000 + back * 37)))
        }
        let today = TrainingPicture.localDay(now, zone: "UTC")
        return [
            PersonalGoal(id: 1, period: .day, measure: .steps, sport: nil, target: 8_000),
            PersonalGoal(id: 2, period: .week, measure: .distance, sport: nil, target: 20_000_000),
            PersonalGoal(id: 3, period: .week, measure: .runs, sport: .bike, target: 2),
        ].map { GoalProgress($0, runs: runs, today: today, zone: "UTC") }
    }

    func goalCards(owner: String?) -> [GoalCard] {
        Self.goalProgress(now: PageFixture.now).map { progress in
            var card = GoalCard(progress, units: .km, owner: owner)
            (card.title, card.amount, card.streak, card.span, card.delete) = (
                t(card.title), t(card.amount), card.streak.map(t), t(card.span), card.delete.map(t)
            )
            (card.ring.percent, card.ring.dash, card.ring.label) = (
                t(card.ring.percent), t(card.ring.dash), t(card.ring.label)
            )
            card.history = card.history.map { .init(met: $0.met, label: t($0.label)) }
            return card
        }
    }

    func goals(error: Bool) -> GoalsPage {
        var page = GoalsPage(
            Self.goalProgress(now: PageFixture.now), reader: .standard, viewer: "ada",
            chosen: error ? ["period": "day", "measure": "time", "sport": "swim", "target": "2000"] : [:])
        page.frame = frame(page.frame.title, viewer: "ada")
        page.goals = goalCards(owner: nil)
        var form = page.form
        form.action = t(form.action)
        form.target = t(form.target)
        form.error = error ? t("The target is more than 0 and at most 1440 minutes for that period.") : nil
        for path in [\GoalsPage.Form.periods, \.measures, \.sports] {
            form[keyPath: path] = form[keyPath: path].map {
                .init(value: t($0.value), label: t($0.label), selected: $0.selected)
            }
        }
        page.form = form
        // Without a reminder on the error page; with one (and e-mail) on the other.
        var reminder = ReminderForm(
            error ? nil : Reminder(days: [1, 3, 5], minute: 450, mail: true, calendarKey: "0123abcd"),
            mailing: !error, origin: "https://club.example")
        reminder.action = t(reminder.action)
        reminder.time = t(reminder.time)
        reminder.days = reminder.days.map { .init(name: t($0.name), label: t($0.label), on: $0.on) }
        reminder.calendar = reminder.calendar.map(t)
        reminder.delete = reminder.delete.map(t)
        page.reminder = reminder
        return page
    }

    func steps(error: Bool = false) -> StepsPage {
        let now = PageFixture.now
        let day = 86_400 * nanosecondsPerSecond
        var runs: [(started: WallInstant, steps: Int)] = []
        for back in 0..<30 where back % 3 != 1 {
            let steps: Int = 4_000 + back * 311 % 7_000
            runs.append((now.advanced(byNanoseconds: -Int64(back) * day), steps))
        }
        // Some days have steps the pack counted outside runs, one of them a day without a run.
        let today = TrainingPicture.localDay(now, zone: "UTC")
        let outside = Dictionary(uniqueKeysWithValues: [0, 1, 4, 9].map { (today - Int64($0), 1_200 + $0 * 377) })
        var page = StepsPage(
            StepDays(runs: runs, outside: outside, goal: 8_000, now: now, zone: "UTC"), viewer: "ada")
        page.frame = frame(page.frame.title, viewer: "ada")
        var chart = page.chart
        (chart.label, chart.top, chart.line) = (t(chart.label), t(chart.top), chart.line.map(t))
        chart.bars = chart.bars.map {
            .init(x: t($0.x), y: t($0.y), height: t($0.height), met: $0.met, title: t($0.title))
        }
        chart.ticks = chart.ticks.map { .init(x: t($0.x), label: t($0.label)) }
        page.chart = chart
        page.rows = page.rows.map { .init(day: t($0.day), steps: t($0.steps), outside: t($0.outside)) }
        page.stats = page.stats.map { .init(label: t($0.label), value: t($0.value)) }
        (page.goal.action, page.goal.value) = (t(page.goal.action), t(error ? "12" : page.goal.value))
        page.goal.error = error ? t("A daily goal is a number of steps from 100 to 100,000, or empty for none.") : nil
        return page
    }
}
