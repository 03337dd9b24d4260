import Foundation
import HandoffAPI
import HandoffModel
import Hummingbird

extension PersonView: ResponseGenerator, ResponseEncodable {}
extension ComparisonView: ResponseGenerator, ResponseEncodable {}
extension ProfileSettings: ResponseGenerator, ResponseEncodable {}

extension ProfileSettings {
    init(_ profile: Profile) {
        func entry(_ field: ProfileField) -> ProfileEntry? {
            profile.values[field].map { ProfileEntry(value: $0, visibility: profile.level(field).rawValue) }
        }
        self.init(
            nickname: entry(.nickname), heightCm: entry(.height), weightKg: entry(.weight), gender: entry(.gender),
            birthYear: entry(.birthYear))
    }

    /// The fields as the settings' form sends them, to be read by the same rules.
    var form: [String: String] {
        var form: [String: String] = [:]
        for (field, entry) in [
            (ProfileField.nickname, nickname), (.height, heightCm), (.weight, weightKg), (.gender, gender),
            (.birthYear, birthYear),
        ] {
            guard let entry else { continue }
            form[field.rawValue] = entry.value
            form[field.rawValue + "_visibility"] = entry.visibility
        }
        return form
    }
}

extension RunTotals {
    init(runs: Int64, distanceMM: Int64, timerMS: Int64, longestMM: Int64) {
        self.init(
            runs: runs, distanceM: Double(distanceMM) / 1000, timerS: Double(timerMS) / 1000,
            longestM: Double(longestMM) / 1000)
    }
}

/// People over the API, as on their pages: a person as the caller may see them (the same 404 for
/// nobody of that name and for a block), the caller and another side by side, and the caller's
/// own profile.
struct PeopleRoutes {
    let services: Services

    func register(_ router: RouteRecorder) {
        let repository = services.repository
        router.get("/v1/people/:username") { request, context in
            let account = try await services.caller(request).account
            let username = context.parameters.get("username") ?? ""
            guard let person = try await repository.person(username: username, viewer: account.id) else {
                throw StoreRepository.noRunner
            }
            let runs = try await repository.feed(
                viewer: account.id, scope: .mine, limit: StoreRepository.recentOnProfile, after: nil, person: person.id)
            let fields = Dictionary(person.fields, uniquingKeysWith: { a, _ in a })
            let totals = person.totals
            return PersonView(
                username: person.username,
                profile: ProfileFields(
                    nickname: fields[.nickname], heightCm: fields[.height].flatMap { Int($0) },
                    weightKg: fields[.weight].flatMap { Double($0) }, gender: fields[.gender],
                    birthYear: fields[.birthYear].flatMap { Int($0) }),
                photo: person.photo.map(PhotoView.init),
                friendship: person.relation.isOwner ? "self" : person.friendship?.rawValue,
                totals: RunTotals(
                    runs: Int64(totals.runs), distanceMM: totals.distanceMM, timerMS: totals.timerMS,
                    longestMM: totals.longestMM),
                runs: runs.runs.map(FeedItem.init))
        }
        router.get("/v1/compare/:username") { request, context in
            let account = try await services.caller(request).account
            let username = context.parameters.get("username") ?? ""
            guard
                let comparison = try await repository.compare(
                    viewer: account.id, username: username, now: services.now())
            else { throw StoreRepository.noRunner }
            func totals(_ tally: Comparison.Tally) -> RunTotals {
                RunTotals(
                    runs: tally.runs, distanceMM: tally.distanceMM, timerMS: tally.timerMS, longestMM: tally.longestMM)
            }
            return ComparisonView(
                username: comparison.other.username,
                periods: comparison.periods.map {
                    .init(period: $0.period.apiName, mine: totals($0.mine), theirs: totals($0.theirs))
                },
                weeks: comparison.weeks.map {
                    .init(
                        weekStarting: String(iso(WallInstant(nanosecondsSinceEpoch: $0.start)).prefix(10)),
                        mineM: Double($0.mine) / 1000, theirsM: Double($0.theirs) / 1000)
                })
        }
        router.get("/v1/me/profile") { request, _ in
            let account = try await services.caller(request).account
            return ProfileSettings(try await repository.profile(account: account.id))
        }
        router.put("/v1/me/profile") { request, context in
            let account = try await services.caller(request).account
            let body = try await request.json(ProfileSettings.self, context)
            let profile = try ProfileForm.read(body.form, now: services.now()).get()
            try await repository.setProfile(account: account.id, profile)
            return ProfileSettings(try await repository.profile(account: account.id))
        }
    }
}

extension ComparePeriod {
    /// The period's name in the API.
    var apiName: String {
        switch self {
        case .week: "week"
        case .fourWeeks: "four_weeks"
        case .year: "year"
        case .all: "all"
        }
    }
}
