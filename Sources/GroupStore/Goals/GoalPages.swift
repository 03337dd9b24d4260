import Foundation
import HandoffAPI
import HandoffModel
import Hummingbird

/// `/me/goals`: each of the person's goals as a ring with its streak and last 12 periods, and the
/// form that sets one (per day or week; distance in their units, time in minutes, activities
/// or steps; one sport or all).
struct GoalsPage: PageModel {
    static let template = "goals"
    var frame: Frame
    var goals: [GoalCard]
    var form: Form
    /// The reminder to run, and the calendar feed.
    var reminder: ReminderForm?

    struct Form: Sendable, Equatable {
        var action = SitePath.goals.path
        var periods: [Preferences.Choice]
        var measures: [Preferences.Choice]
        var sports: [Preferences.Choice]
        var target: String
        var error: String?
    }

    init(_ progress: [GoalProgress], reader: Reader, viewer: String, chosen: [String: String] = [:]) {
        frame = Frame("Goals", viewer: viewer)
        goals = progress.map { GoalCard($0, units: reader.units, owner: nil) }
        let period = chosen["period"] ?? "week"
        let measure = chosen["measure"] ?? "distance"
        let sport = chosen["sport"] ?? ""
        form = Form(
            periods: [("day", "Each day"), ("week", "Each week")].map {
                Preferences.Choice(value: $0.0, label: $0.1, selected: $0.0 == period)
            },
            measures: Self.measures(reader.units).map {
                Preferences.Choice(value: $0.0.rawValue, label: $0.1, selected: $0.0.rawValue == measure)
            },
            sports: [Preferences.Choice(value: "", label: "All sports", selected: sport.isEmpty)]
                + Sport.allCases.map {
                    Preferences.Choice(
                        value: $0.rawValue, label: $0 == .other ? "Other" : $0.title, selected: $0.rawValue == sport)
                }, target: String((chosen["target"] ?? "").prefix(20)))
    }

    static func measures(_ units: Units) -> [(PersonalGoal.Measure, String)] {
        [(.distance, "Distance (\(units.name))"), (.time, "Time (minutes)"), (.runs, "Activities"), (.steps, "Steps")]
    }

    /// The goal a form asks for, its target in the person's units (distance) or minutes (time).
    static func goal(_ form: [String: String], units: Units) throws(StoreError) -> PersonalGoal {
        let text = (form["target"] ?? "").trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".")
        guard let number = Double(text) else {
            throw StoreError(.unprocessableContent, "invalid_target", "Give the target as a number, such as 20.")
        }
        let measure = form["measure"] ?? ""
        let target =
            switch measure {
            case "distance": number * units.meters
            case "time": number * 60
            default: number
            }
        let sport = form["sport"].flatMap { $0.isEmpty ? nil : $0 }
        do {
            return try PersonalGoal.parse(
                GoalSet(period: form["period"] ?? "", measure: measure, sport: sport, target: target))
        } catch  where error.code == "invalid_target" {
            let limit = (PersonalGoal.Measure(rawValue: measure)?.dayLimit ?? 1) * (form["period"] == "day" ? 1 : 7)
            let shown =
                switch measure {
                case "distance": "\(Int(limit / units.meters)) \(units.name)"
                case "time": "\(Int(limit / 60)) minutes"
                default: StepsPage.number(Int(limit))
                }
            throw StoreError(
                .unprocessableContent, "invalid_target",
                "The target is more than 0 and at most \(shown) for that period.")
        }
    }
}

extension WebPages {
    func registerGoalPages(_ router: PageRouter) {
        @Sendable func page(_ account: Account, chosen: [String: String] = [:]) async throws -> GoalsPage {
            var page = GoalsPage(
                try await services.goalProgress(account, viewer: account.id, now: services.now()),
                reader: Reader(account), viewer: account.username, chosen: chosen)
            page.reminder = ReminderForm(
                try await services.repository.reminder(account: account.id),
                mailing: services.configuration.mail != nil, origin: services.origin)
            return page
        }
        router.signedIn(.get, "/me/goals", next: { $0.uri.path }) { _, _, account in
            Self.render(try await page(account))
        }
        router.signedIn(.post, "/me/goals", next: { _ in SitePath.goals.path }) { request, context, account in
            let form = try await Self.form(request, context)
            do {
                let goal = try GoalsPage.goal(form, units: Reader(account).units)
                _ = try await services.repository.setGoal(account: account.id, goal)
            } catch let error as StoreError where error.status == .unprocessableContent {
                var shown = try await page(account, chosen: form)
                shown.form.error = error.message
                return Self.render(shown, status: .unprocessableContent)
            }
            return Self.redirect(SitePath.goals)
        }
        router.signedIn(.post, "/me/goals/:id/delete", next: { _ in SitePath.goals.path }) { _, context, account in
            let id = context.parameters.get("id").flatMap { Int64($0) } ?? 0
            _ = try await services.repository.deleteGoal(account: account.id, id: id)
            return Self.redirect(SitePath.goals)
        }
    }
}

extension GoalView: ResponseGenerator, ResponseEncodable {}
extension GoalList: ResponseGenerator, ResponseEncodable {}

/// `GET`/`POST /v1/me/goals`, `DELETE /v1/me/goals/{id}`.
struct GoalRoutes {
    let services: Services

    static func noGoal(_ id: String) -> StoreError {
        StoreError(.notFound, "not_found", "you have no goal \(id.prefix(20)): GET /v1/me/goals lists yours")
    }

    func register(_ router: RouteRecorder) {
        registerLevel(router)
        router.get("/v1/me/goals") { request, _ in
            let account = try await services.caller(request).account
            return GoalList(
                goals: try await services.goalProgress(account, viewer: account.id, now: services.now()).map(\.view))
        }
        router.post("/v1/me/goals") { request, context in
            let account = try await services.caller(request).account
            let goal = try PersonalGoal.parse(try await request.json(GoalSet.self, context))
            let (kept, created) = try await services.repository.setGoal(account: account.id, goal)
            let progress = try await services.goalProgress(account, viewer: account.id, now: services.now())
            guard let view = progress.first(where: { $0.goal.id == kept.id })?.view else {
                throw Self.noGoal(String(kept.id))
            }
            return EditedResponse(status: created ? .created : .ok, response: view)
        }
        router.delete("/v1/me/goals/:id") { request, context in
            let account = try await services.caller(request).account
            let text = context.parameters.get("id") ?? ""
            guard let id = Int64(text), try await services.repository.deleteGoal(account: account.id, id: id) else {
                throw Self.noGoal(text)
            }
            return HTTPResponse.Status.noContent
        }
    }
}
