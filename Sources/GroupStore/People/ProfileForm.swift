import Foundation
import HandoffModel
import Hummingbird

/// The settings' profile form: each field with its value and who sees it.
struct ProfileForm: Sendable, Equatable {
    var action = SitePath.settingsProfile.path
    var fields: [Field]
    /// The photo's own form (a file is sent as multipart/form-data).
    var photo: PhotoForm?

    struct Field: Sendable, Equatable {
        var name: String
        var label: String
        var value: String
        /// The input's attributes: `type="number" min="100" max="250"` and the like, made here.
        var number: Number?
        /// The choices of a field picked from a list (gender).
        var menu: Menu?
        /// "Who sees your height".
        var who: String
        var levels: [Preferences.Choice]
    }

    struct Menu: Sendable, Equatable {
        var choices: [Preferences.Choice]
    }

    struct Number: Sendable, Equatable {
        var min: String
        var max: String
        var step: String
    }

    init(_ profile: Profile, typed: [String: String] = [:], now: WallInstant) {
        fields = ProfileField.allCases.map { field in
            let value = typed[field.rawValue] ?? profile.values[field] ?? ""
            let level = typed[field.rawValue + "_visibility"].flatMap(RunVisibility.init) ?? profile.level(field)
            var number: Number?
            switch field {
            case .height: number = Number(min: "100", max: "250", step: "1")
            case .weight: number = Number(min: "30", max: "250", step: "0.1")
            case .birthYear: number = Number(min: "1900", max: String(CivilTime(now).year), step: "1")
            default: number = nil
            }
            return Field(
                name: field.rawValue, label: field.label, value: value, number: number,
                menu: field == .gender
                    ? Menu(
                        choices: [Preferences.Choice(value: "", label: "Not said", selected: value.isEmpty)]
                            + ["woman", "man", "nonbinary"].map {
                                Preferences.Choice(
                                    value: $0, label: ProfileField.genders[$0] ?? $0, selected: value == $0)
                            }) : nil,
                who: "Who sees your \(field.noun)", levels: AudienceForm.choices(level))
        }
    }

    /// The profile a form sent, or what was wrong with it.
    static func read(_ form: [String: String], now: WallInstant) -> Result<Profile, StoreError> {
        Result { () throws(StoreError) -> Profile in
            var profile = Profile()
            for field in ProfileField.allCases {
                let value = try field.value(form[field.rawValue] ?? "", now: now)
                guard !value.isEmpty else { continue }
                profile.values[field] = value
                profile.levels[field] = try RunVisibility.named(
                    form[field.rawValue + "_visibility"] ?? "private", field: field.rawValue + "_visibility")
            }
            return profile
        }
    }
}

extension WebPages {
    func registerProfileForm(_ router: PageRouter) {
        router.signedIn(.post, "/settings/profile") { request, context, account in
            let form = try await Self.form(request, context)
            let now = services.now()
            switch ProfileForm.read(form, now: now) {
            case .success(let profile):
                try await services.repository.setProfile(account: account.id, profile)
                return Self.redirect(SitePath.settings.path + "?done=profile")
            case .failure(let error):
                var page = try await settings(account)
                page.error = error.message
                let photo = page.profile.photo
                page.profile = ProfileForm(
                    try await services.repository.profile(account: account.id), typed: form, now: now)
                page.profile.photo = photo
                return Self.render(page, status: error.status)
            }
        }
    }
}
