import Foundation
import HandoffModel

/// The sign-up form, with what was typed kept after a refusal (all but the password); or, when
/// the store takes no sign-ups here, why.
struct SignUpPage: PageModel {
    static let template = "signup"
    var frame = Frame("Create an account", viewer: nil, current: .signup())
    /// Why there is no form: sign-ups are closed, or by invitation.
    var closed: String?
    var error: String?
    var form: Form?
    var signIn = SitePath.login().path

    struct Form: Sendable, Equatable {
        var action: String
        var invite: String
        var email = ""
        var username = ""
    }

    init(policy: AccountService.SignUps, invite: String?) {
        switch (policy, invite) {
        case (.closed, _): closed = "This store makes no new accounts: ask its operator for one."
        case (.invite, nil):
            closed = "This store makes accounts by invitation: open the invite link a member of a group sent you."
        default: form = Form(action: SitePath.signup(invite: invite).path, invite: invite ?? "")
        }
    }
}

/// The form a one-time reset link opens: a new password for the account it names.
struct ResetPage: PageModel {
    static let template = "reset"
    var frame = Frame("Choose a new password", viewer: nil)
    var username: String
    var action: String
    var error: String?
}

/// The units and time zone form, on the first-visit page and in the settings.
struct Preferences: Sendable, Equatable {
    var action = SitePath.preferences.path
    var next: String
    var units: [Choice]
    var zones: [Zone]

    struct Choice: Sendable, Equatable {
        var value: String
        var label: String
        var selected: Bool
    }

    struct Zone: Sendable, Equatable {
        var name: String
        var selected: Bool
    }

    init(_ reader: Reader, next: String, zones: [String] = PageFormat.zones) {
        self.next = next
        units = [
            Choice(value: "km", label: "Kilometres", selected: reader.units == .km),
            Choice(value: "mi", label: "Miles", selected: reader.units == .mi),
        ]
        self.zones = zones.map { Zone(name: $0, selected: $0 == reader.zone) }
    }
}

/// The page a new account lands on: units and time zone, the pack's `handoff link` command for
/// this store, and a group to create or join.
struct WelcomePage: PageModel {
    static let template = "welcome"
    var frame: Frame
    var preferences: Preferences
    var command: String
    var device = SitePath.device().path
    var newGroup = SitePath.newGroup.path
    var home = SitePath.home.path

    init(viewer: String, reader: Reader, origin: String) {
        frame = Frame("Welcome, \(viewer)", viewer: viewer)
        preferences = Preferences(reader, next: SitePath.welcome.path)
        command = "handoff link --store \(origin)"
    }
}

/// The account's settings: units and time zone, username and email, password, packs, the
/// export, and deleting the account.
struct SettingsPage: PageModel {
    /// A number as a form shows it: "25", "12.5".
    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%g", rounded)
    }

    static let template = "settings"
    var frame: Frame
    var notice: String?
    var error: String?
    var preferences: Preferences
    var heart: HeartForm
    var profile: ProfileForm
    var audience: AudienceForm
    var account: AccountForm
    var password = SitePath.settingsPassword.path
    var packs: PacksPart
    var export = SitePath.export.path
    var delete: Delete

    /// The maximum heart rate, empty when not said.
    struct HeartForm: Sendable, Equatable {
        var action = SitePath.heartRate.path
        var maximum: String
        var resting = ""
        /// The weekly distance goal, in the person's units ("" for none), and its form.
        var goal = ""
        var goalAction = SitePath.weekGoal.path
        var unit = "km"
    }

    struct AccountForm: Sendable, Equatable {
        var action = SitePath.settingsAccount.path
        var username: String
        var email: String
    }

    struct Delete: Sendable, Equatable {
        var action = SitePath.deleteAccount.path
        var consequence: String
    }

    init(account: Account, packs: PacksPart, runs: Int, groups: Int, profile: Profile = Profile(), now: WallInstant) {
        frame = Frame("Settings", viewer: account.username, current: .settings)
        self.profile = ProfileForm(profile, now: now)
        preferences = Preferences(Reader(account), next: SitePath.settings.path)
        heart = HeartForm(maximum: account.maximumHeartRate.map(String.init) ?? "")
        heart.resting = account.restingHeartRate.map(String.init) ?? ""
        let units = Reader(account).units
        heart.unit = units.name
        heart.goal = account.weekGoalMM.map { Self.number(Double($0) / 1000 / units.meters) } ?? ""
        audience = AudienceForm(
            action: SitePath.defaultAudience.path, runLabel: "Who sees your new runs", account.audience)
        self.account = AccountForm(username: account.username, email: account.email)
        self.packs = packs
        delete = Delete(
            consequence:
                "Your \(runs == 1 ? "run" : "\(runs) runs"), your packs' links and your sessions are deleted for good. "
                + (groups == 0
                    ? "You are in no group."
                    : "Your distance stays in the totals of your \(groups == 1 ? "group" : "\(groups) groups"), as a former member's; a group you own passes to its longest-standing member.")
                + " Export everything first if you want a copy.")
    }
}
