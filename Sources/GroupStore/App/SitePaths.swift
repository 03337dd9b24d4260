import Foundation

/// The paths of the store's pages, built from ids in one place (as the Swift Package Index's
/// `SiteURL`): every link, form action and redirect of a page is a `SitePath`, so a page that
/// moves is renamed here and nowhere else. Routes are still registered with literal paths:
/// scripts/check_openapi.py reads them from the sources.
enum SitePath: Equatable {
    /// The signed-in person's page: their groups and packs.
    case home
    /// The sign-in form, and where to go once signed in (a path on this site).
    case login(next: String? = nil)
    case logout
    /// The page where a person enters a pack's code, filled in when the pack's link carried one.
    case device(code: String? = nil)
    case unlinkDevice(Int64)
    /// A group's page: its top members, or those found by `q` (a name's start), or the page of
    /// members after the cursor `after`.
    case group(Int64, q: String? = nil, after: String? = nil)
    /// The stylesheet, its address naming its version.
    case stylesheet
    /// The pages' one script, its address naming its version.
    case script
    /// The person's runs, newest first, from the cursor `after`.
    case runs(after: String? = nil)
    /// A run's page, at the element `at` (a fragment) when given.
    case run(String, at: String? = nil)
    /// A run's file: the original (`format` nil) or written as FIT, GPX or TCX.
    case runDownload(String, format: String?)
    /// The question before a run is deleted, and the form that deletes it.
    case runDelete(String)
    case upload
    /// The sign-up form; with a group's invite code, it joins that group too.
    case signup(invite: String? = nil)
    /// The first-visit page of a new account.
    case welcome
    case settings
    case preferences
    case heartRate
    case feed(after: String? = nil)
    case feedScope
    /// The person's notifications, newest first, from before the one numbered `before`.
    case notifications(before: Int64? = nil)
    /// POST: every notification marked as read.
    case notificationsRead
    /// POST: which topics the person gets e-mail about.
    case notificationsMail
    /// An e-mail's unsubscribe link: the person's secret and the message's topic.
    case unsubscribe(token: String, topic: String)
    /// "Forgot your password": a reset link by e-mail, when the store sends e-mail.
    case forgot
    /// POST: the person's reminder to run, set or removed.
    case reminder
    case reminderDelete
    /// The person's private calendar feed.
    case calendar(key: String)
    /// The person's live run and its share links; a new link; revoking one.
    case myLive
    case liveLinks
    case liveLinkRevoke(Int64)
    /// A live run's share link (issue 35).
    case live(token: String)
    case friends
    /// POST: one of the friends page's buttons, for the account `id`.
    case friendAction(Int64, FriendAction)
    case defaultAudience
    case runAudience(String)
    /// POST: the run's sport (`sport=run|bike|walk|swim|other`).
    case runSport(String)
    /// POST: an activity entered by hand (the form on the upload page).
    case runEnter
    /// The person's training picture (12 or 52 weeks, 90 or 365 days), on a page and in JSON.
    case training(weeks: Int, days: Int)
    case trainingJSON(weeks: Int, days: Int)
    /// The person's steps over the last 30 days.
    case steps
    /// POST: the person's daily step goal.
    case stepsGoal
    /// The person's goals with their rings and history; POST: a goal set or replaced.
    case goals
    /// POST: one of the person's goals removed.
    case goalDelete(Int64)
    /// POST: the viewer's kudos on a run, given (`give=yes`) or taken back.
    case runKudos(String)
    /// POST: a new comment on a run.
    case runComments(String)
    case commentEdit(String, Int64)
    /// POST: the owner's title and description of a run.
    case runPost(String)
    case commentDelete(String, Int64)
    /// The form that reports a comment, or a person's profile, to the store's operator.
    case reportComment(String, Int64)
    case reportPerson(String)
    /// A photo, served to whoever may see it.
    case photo(String)
    /// POST: the settings' profile photo form, and the button that deletes the photo.
    case settingsPhoto
    case settingsPhotoDelete
    /// POST: photos added to a run, and the button that deletes one.
    case runPhotos(String)
    case runPhotoDelete(String, String)
    /// POST: the owner names a friend who ran the run too (or links their run), or takes one off;
    /// the named friend answers.
    case together(String)
    case togetherRemove(String)
    case togetherAnswer(String, accept: Bool)
    /// A run's card (SVG), a public run's share page, the person's week card, and the form of
    /// their weekly goal.
    case runCard(String)
    case runShare(String)
    case weekCard
    case weekGoal
    /// POST: the runner has seen the new kudos and comments on their runs.
    case responsesSeen
    /// A person's page, by username.
    case person(String)
    /// The viewer and someone else side by side.
    case compare(String)
    /// POST: the settings' profile form.
    case settingsProfile
    case settingsAccount
    case settingsPassword
    case deleteAccount
    case export
    case newGroup
    /// The page an invite link opens.
    case join(String)
    /// The operator's one-time password reset link.
    case reset(String)
    case editGroup(Int64)
    case leaveGroup(Int64)
    case removeMember(Int64, Int64)
    /// POST: the owner replaces the group's invite link.
    case newInvite(Int64)
    /// The owner moves a member one place earlier or later in the baton's rotation.
    case moveInRotation(Int64, Int64, earlier: Bool)

    /// The path with its query, percent-encoded: ready for a `Location` as it is (it holds no `"`,
    /// `<`, `>` nor `'`); a page's template escapes it like any other value.
    var path: String {
        switch self {
        case .home: "/"
        case .login(let next): "/login" + Self.query("next", next)
        case .logout: "/logout"
        case .device(let code): "/device" + Self.query("code", code)
        case .unlinkDevice(let id): "/devices/\(id)/unlink"
        case .group(let id, let q, let after):
            "/groups/\(id)" + Self.query([("q", q), ("after", after)])
        case .stylesheet: "/static/style.css" + Self.query("v", StaticFile.stylesheet.version)
        case .script: "/static/app.js" + Self.query("v", StaticFile.script.version)
        case .runs(let after): "/runs" + Self.query("after", after)
        case .run(let uuid, let at):
            "/runs/" + Self.percentEncode(uuid) + (at.map { "#" + Self.percentEncode($0) } ?? "")
        case .runDownload(let uuid, let format):
            "/runs/\(Self.percentEncode(uuid))/download" + Self.query("format", format)
        case .runDelete(let uuid): "/runs/\(Self.percentEncode(uuid))/delete"
        case .upload: "/runs/upload"
        case .signup(let invite): "/signup" + Self.query("invite", invite)
        case .welcome: "/welcome"
        case .settings: "/settings"
        case .preferences: "/settings/preferences"
        case .heartRate: "/settings/heart-rate"
        case .feed(let after): "/feed" + Self.query("after", after)
        case .feedScope: "/feed/scope"
        case .notifications(let before): "/notifications" + Self.query("before", before.map(String.init))
        case .notificationsRead: "/notifications/read"
        case .notificationsMail: "/notifications/mail"
        case .unsubscribe(let token, let topic):
            "/unsubscribe/" + Self.percentEncode(token) + Self.query("topic", topic)
        case .forgot: "/forgot"
        case .reminder: "/me/reminder"
        case .reminderDelete: "/me/reminder/delete"
        case .calendar(let key): "/me/calendar.ics" + Self.query("key", key)
        case .myLive: "/me/live"
        case .liveLinks: "/me/live/links"
        case .liveLinkRevoke(let id): "/me/live/links/\(id)/revoke"
        case .live(let token): "/live/" + token
        case .friends: "/friends"
        case .friendAction(let id, let action): "/friends/\(id)/\(action.rawValue)"
        case .defaultAudience: "/settings/visibility"
        case .runAudience(let uuid): "/runs/\(Self.percentEncode(uuid))/visibility"
        case .runSport(let uuid): "/runs/\(Self.percentEncode(uuid))/sport"
        case .runEnter: "/runs/enter"
        case .training(let weeks, let days): "/me/training?weeks=\(weeks)&days=\(days)"
        case .trainingJSON(let weeks, let days): "/v1/me/training?weeks=\(weeks)&days=\(days)"
        case .steps: "/me/steps"
        case .stepsGoal: "/me/steps/goal"
        case .goals: "/me/goals"
        case .goalDelete(let id): "/me/goals/\(id)/delete"
        case .runKudos(let uuid): "/runs/\(Self.percentEncode(uuid))/kudos"
        case .runComments(let uuid): "/runs/\(Self.percentEncode(uuid))/comments"
        case .runPost(let uuid): "/runs/\(Self.percentEncode(uuid))/post"
        case .commentEdit(let uuid, let id): "/runs/\(Self.percentEncode(uuid))/comments/\(id)/edit"
        case .commentDelete(let uuid, let id): "/runs/\(Self.percentEncode(uuid))/comments/\(id)/delete"
        case .reportComment(let uuid, let id): "/runs/\(Self.percentEncode(uuid))/comments/\(id)/report"
        case .reportPerson(let username): "/people/" + Self.percentEncode(username) + "/report"
        case .photo(let key): "/photos/" + Self.percentEncode(key)
        case .settingsPhoto: "/settings/photo"
        case .settingsPhotoDelete: "/settings/photo/delete"
        case .runPhotos(let uuid): "/runs/\(Self.percentEncode(uuid))/photos"
        case .runPhotoDelete(let uuid, let key):
            "/runs/\(Self.percentEncode(uuid))/photos/\(Self.percentEncode(key))/delete"
        case .together(let uuid): "/runs/\(Self.percentEncode(uuid))/together"
        case .togetherRemove(let uuid): "/runs/\(Self.percentEncode(uuid))/together/remove"
        case .togetherAnswer(let uuid, let accept):
            "/runs/\(Self.percentEncode(uuid))/together/" + (accept ? "accept" : "decline")
        case .runCard(let uuid): "/runs/\(Self.percentEncode(uuid))/card.svg"
        case .runShare(let uuid): "/runs/\(Self.percentEncode(uuid))/share"
        case .weekCard: "/me/week/card.svg"
        case .weekGoal: "/settings/week-goal"
        case .responsesSeen: "/responses/seen"
        case .person(let username): "/people/" + Self.percentEncode(username)
        case .compare(let username): "/compare/" + Self.percentEncode(username)
        case .settingsProfile: "/settings/profile"
        case .settingsAccount: "/settings/account"
        case .settingsPassword: "/settings/password"
        case .deleteAccount: "/settings/delete"
        case .export: "/settings/export"
        case .newGroup: "/groups/new"
        case .newInvite(let id): "/groups/\(id)/invite"
        case .join(let code): "/join/" + Self.percentEncode(code)
        case .reset(let token): "/reset/" + Self.percentEncode(token)
        case .editGroup(let id): "/groups/\(id)/edit"
        case .leaveGroup(let id): "/groups/\(id)/leave"
        case .removeMember(let id, let account): "/groups/\(id)/members/\(account)/remove"
        case .moveInRotation(let id, let account, let earlier):
            "/groups/\(id)/rotation/\(account)/" + (earlier ? "earlier" : "later")
        }
    }

    private static func query(_ name: String, _ value: String?) -> String { query([(name, value)]) }

    /// "?name=value&…" of the parameters that have a value; "" when none has.
    private static func query(_ parameters: [(name: String, value: String?)]) -> String {
        let given = parameters.compactMap { name, value in
            value.flatMap { $0.isEmpty ? nil : "\(name)=" + percentEncode($0) }
        }
        return given.isEmpty ? "" : "?" + given.joined(separator: "&")
    }

    /// Everything but letters, digits, `-._~` and `/` percent-encoded: a query value that
    /// holds a path stays readable, and `?`, `&`, `=`, `#` in it stay its own.
    static func percentEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~/")))
            ?? ""
    }
}
