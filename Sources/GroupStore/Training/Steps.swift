import Foundation
import HandoffAPI
import HandoffModel
import Hummingbird

/// Steps per day (issue 34): each run's steps (the pack's pedometer, or an imported file's)
/// counted on the day it started, on the person's calendar, over the last 30 days; with the
/// person's daily goal. `/me/steps` draws them as bars with the goal as a line.
///
/// A pack's steps outside runs (`PUT /v1/me/steps`, per day of the pack's calendar) add to the
/// day of the same date.
struct StepDays: Sendable {
    static let count = 30
    var days: [(day: Int64, steps: Int, outside: Int)]
    var goal: Int?

    init(
        runs: [(started: WallInstant, steps: Int)], outside: [Int64: Int] = [:], goal: Int?, now: WallInstant,
        zone: String
    ) {
        let today = TrainingPicture.localDay(now, zone: zone)
        var byDay: [Int64: Int] = [:]
        for run in runs { byDay[TrainingPicture.localDay(run.started, zone: zone), default: 0] &+= run.steps }
        days = ((today - Int64(Self.count - 1))...today).map { day in
            let out = outside[day] ?? 0
            return (day, (byDay[day] ?? 0) &+ out, out)
        }
        self.goal = goal
    }

    var view: StepsView {
        StepsView(
            days: days.map { .init(date: TrainingPicture.date($0.day), steps: $0.steps, outsideRuns: $0.outside) },
            goal: goal)
    }
}

extension StoreRepository {
    /// The steps of the account's runs that started at or after `since`.
    func runSteps(account: Int64, since: WallInstant) async throws -> [(started: WallInstant, steps: Int)] {
        try await read { db in
            try await db.query(
                "SELECT started_ns, steps FROM run WHERE account_id = ? AND started_ns >= ? AND steps IS NOT NULL",
                account, since.nanosecondsSinceEpoch
            ).map { (WallInstant(nanosecondsSinceEpoch: try $0.int("started_ns")), Int(try $0.int("steps"))) }
        }
    }

    /// The daily step goal for all sports, kept among the person's goals.
    func dayStepsGoal(account: Int64) async throws -> Int? {
        try await goals(account: account).first { $0.period == .day && $0.measure == .steps && $0.sport == nil }
            .map { Int($0.target) }
    }

    func setDayStepsGoal(account: Int64, _ goal: Int?) async throws {
        if let goal {
            _ = try await setGoal(
                account: account, PersonalGoal(period: .day, measure: .steps, sport: nil, target: Int64(goal)))
        } else {
            try await clearGoal(account: account, period: .day, measure: .steps, sport: nil)
        }
    }
}

extension Services {
    func stepDays(_ account: Account, now: WallInstant) async throws -> StepDays {
        // Runs stored before steps were kept are read once, as for records.
        try await fillEfforts(account: account.id)
        let since = now.advanced(byNanoseconds: -Int64(StepDays.count + 1) * TrainingPicture.day)
        let today = TrainingPicture.localDay(now, zone: account.timeZone)
        return StepDays(
            runs: try await repository.runSteps(account: account.id, since: since),
            outside: try await repository.stepsOutsideRuns(account: account.id, from: today - Int64(StepDays.count)),
            goal: try await repository.dayStepsGoal(account: account.id), now: now, zone: account.timeZone)
    }
}

/// `/me/steps`: the last 30 days as bars, the daily goal as a line across them, each day's count
/// in a table, and the form that sets the goal.
struct StepsPage: PageModel {
    static let template = "steps"
    var frame: Frame
    var chart: Chart
    var rows: [Row]
    var stats: [RunPage.Stat]
    var goal: Goal

    struct Chart: Sendable, Equatable {
        var label: String
        var top: String
        var bars: [Bar]
        var line: String?
        var ticks: [TrainingPage.Tick]
    }

    struct Bar: Sendable, Equatable {
        var x: String
        var y: String
        var height: String
        var met: Bool
        var title: String
    }

    struct Row: Sendable, Equatable {
        var day: String
        var steps: String
        var outside: String
    }

    struct Goal: Sendable, Equatable {
        var action: String
        var value: String
        var error: String?
    }

    static func number(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return String(out.reversed())
    }

    init(_ steps: StepDays, viewer: String) {
        frame = Frame("Steps", viewer: viewer)
        let most = steps.days.map(\.steps).max() ?? 0
        let top = Double(max(most, steps.goal ?? 0, 1000))
        let (left, width, height) = (50.0, 422.0, 120.0)
        let step = width / Double(steps.days.count)
        func y(_ value: Int) -> Double { 10 + height - Double(value) / top * height }
        chart = Chart(
            label: "Steps a day over the last \(steps.days.count) days; the most, \(Self.number(most))"
                + (steps.goal.map { "; the goal, \(Self.number($0))" } ?? "") + ".",
            top: Self.number(Int(top)),
            bars: steps.days.enumerated().compactMap { index, day in
                guard day.steps > 0 else { return nil }
                return Bar(
                    x: RunMap.number(left + Double(index) * step + step * 0.15), y: RunMap.number(y(day.steps)),
                    height: RunMap.number(Double(day.steps) / top * height),
                    met: steps.goal.map { day.steps >= $0 } ?? false,
                    title: "\(PageFormat.day(TrainingPage.instant(day.day))): \(Self.number(day.steps)) steps")
            },
            line: steps.goal.map { "M\(RunMap.number(left)),\(RunMap.number(y($0)))H\(RunMap.number(left + width))" },
            ticks: steps.days.enumerated().filter { ($0.offset - steps.days.count + 4) % 7 == 0 }.map {
                TrainingPage.Tick(
                    x: RunMap.number(left + (Double($0.offset) + 0.5) * step),
                    label: TrainingPage.short(TrainingPage.instant($0.element.day)))
            })
        rows = steps.days.reversed().filter { $0.steps > 0 }.map {
            Row(
                day: PageFormat.day(TrainingPage.instant($0.day)), steps: Self.number($0.steps),
                outside: Self.number($0.outside))
        }
        let total = steps.days.reduce(0) { $0 + $1.steps }
        stats = [
            RunPage.Stat(label: "Today", value: Self.number(steps.days.last?.steps ?? 0)),
            RunPage.Stat(label: "A day, on average", value: Self.number(total / max(1, steps.days.count))),
            RunPage.Stat(
                label: "Days the goal was met",
                value: steps.goal.map { goal in String(steps.days.filter { $0.steps >= goal }.count) } ?? "No goal set"),
        ]
        goal = Goal(action: SitePath.stepsGoal.path, value: steps.goal.map(String.init) ?? "")
    }
}

extension WebPages {
    func registerStepsPages(_ router: PageRouter) {
        router.signedIn(.get, "/me/steps", next: { $0.uri.path }) { _, _, account in
            Self.render(StepsPage(try await services.stepDays(account, now: services.now()), viewer: account.username))
        }
        router.signedIn(.post, "/me/steps/goal", next: { _ in SitePath.steps.path }) { request, context, account in
            let form = try await Self.form(request, context)
            let text = (form["goal"] ?? "").trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: "")
            guard text.isEmpty || Int(text).map({ (100...100_000).contains($0) }) == true else {
                var page = StepsPage(
                    try await services.stepDays(account, now: services.now()), viewer: account.username)
                page.goal.value = String(text.prefix(20))
                page.goal.error = "A daily goal is a number of steps from 100 to 100,000, or empty for none."
                return Self.render(page, status: .unprocessableContent)
            }
            try await services.repository.setDayStepsGoal(account: account.id, Int(text))
            return Self.redirect(SitePath.steps.path)
        }
    }
}

extension StepsView: ResponseGenerator, ResponseEncodable {}

extension TrainingRoutes {
    func registerSteps(_ router: RouteRecorder) {
        router.get("/v1/me/steps") { request, _ in
            let account = try await services.caller(request).account
            return try await services.stepDays(account, now: services.now()).view
        }
    }
}
