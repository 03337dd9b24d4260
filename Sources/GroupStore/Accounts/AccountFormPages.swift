import ActivityFormats
import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// Signing up, the first-visit page, and the settings: preferences, account, password, export
/// and deleting the account.
extension WebPages {
    func registerAccountFormPages(_ router: PageRouter) {
        let policy = services.configuration.accounts.signUps
        router.anyone(.get, "/signup") { request, _ in
            let invite = request.uri.queryParameters["invite"].map { String($0).lowercased() }
            // The first account is the operator's, whatever the policy (`AccountService.signUp`).
            let effective = try await services.repository.hasAccounts() ? policy : .open
            return Self.render(SignUpPage(policy: effective, invite: invite))
        }
        router.anyone(.post, "/signup") { request, context in
            let form = try await Self.form(request, context)
            let invite = form["invite"].flatMap { $0.isEmpty ? nil : $0.lowercased() }
            let effective = try await services.repository.hasAccounts() ? policy : .open
            var page = SignUpPage(policy: effective, invite: invite)
            do {
                // A dead invite code is said before any account is made.
                if let invite, try await !services.repository.inviteExists(invite) {
                    throw StoreError(
                        .notFound, "unknown_invite",
                        "no group has the invite code \(invite): check the link with the person who sent it")
                }
                let (account, issued) = try await services.accounts.signUp(
                    email: form["email"] ?? "", username: form["username"] ?? "", password: form["password"] ?? "",
                    address: services.clientAddress(request, context), inviteCode: invite)
                context.logger.info("Account created from the web", metadata: ["account": "\(account.id)"])
                var next = SitePath.welcome.path
                if let invite {
                    let group = try await services.repository.join(
                        inviteCode: invite, account: account.id, now: services.now())
                    next = SitePath.group(group.id).path
                }
                var response = Self.redirect(next)
                response.headers[.setCookie] = sessionCookie(issued.token, remember: false)
                return response
            } catch let error as StoreError
                where error.status != .serviceUnavailable && error.status != .insufficientStorage
            {
                page.error = error.message
                page.form?.email = form["email"] ?? ""
                page.form?.username = form["username"] ?? ""
                var response = Self.render(page, status: error.status)
                if let wait = error.retryAfter { response.headers[.retryAfter] = String(wait) }
                return response
            }
        }
        router.anyone(.get, "/reset/:token") { _, context in
            let token = context.parameters.get("token") ?? ""
            guard let account = try await services.repository.passwordReset(token: token, now: services.now()) else {
                return Self.message("No such link", AccountService.resetGone.message, status: .notFound)
            }
            return Self.render(ResetPage(username: account.username, action: SitePath.reset(token).path))
        }
        router.anyone(.post, "/reset/:token") { request, context in
            let token = context.parameters.get("token") ?? ""
            let form = try await Self.form(request, context)
            do {
                try await services.accounts.resetPassword(token: token, password: form["password"] ?? "")
            } catch let error as StoreError where error.status == .notFound {
                return Self.message("No such link", error.message, status: .notFound)
            } catch let error as StoreError where error.status == .unprocessableContent || error.status == .badRequest {
                let account = try await services.repository.passwordReset(token: token, now: services.now())
                var page = ResetPage(username: account?.username ?? "", action: SitePath.reset(token).path)
                page.error = error.message
                return Self.render(page, status: error.status)
            }
            return Self.render(
                MessagePage(
                    "Password changed", "Your new password works now; every session and pack link ended.",
                    isError: false, link: Link(href: SitePath.login().path, label: "Sign in")))
        }
        router.signedIn(.get, "/welcome") { request, _, account in
            Self.render(
                WelcomePage(viewer: account.username, reader: Reader(account), origin: services.origin(request)))
        }
        router.signedIn(.get, "/settings") { request, _, account in
            var page = try await settings(account)
            page.notice = request.uri.queryParameters["done"].flatMap { Self.notices[String($0)] }
            return Self.render(page)
        }
        router.signedIn(.post, "/settings/preferences") { request, context, account in
            let form = try await Self.form(request, context)
            guard let units = Units(rawValue: form["units"] ?? ""), let zone = form["zone"],
                PageFormat.zones.contains(zone)
            else {
                var page = try await settings(account)
                page.error = "Choose kilometres or miles, and a time zone from the list."
                return Self.render(page, status: .unprocessableContent)
            }
            try await services.repository.setPreferences(account: account.id, units: units.rawValue, timeZone: zone)
            let next = Self.safeNext(form["next"])
            return Self.redirect(next == SitePath.settings.path ? SitePath.settings.path + "?done=preferences" : next)
        }
        router.signedIn(.post, "/settings/visibility") { request, context, account in
            let form = try await Self.form(request, context)
            switch AudienceForm.read(form) {
            case .success(let audience):
                try await services.repository.setDefaultAudience(account: account.id, audience)
                return Self.redirect(SitePath.settings.path + "?done=visibility")
            case .failure(let error):
                var page = try await settings(account)
                page.error = error.message
                return Self.render(page, status: error.status)
            }
        }
        router.signedIn(.post, "/settings/heart-rate") { request, context, account in
            let form = try await Self.form(request, context)
            let text = (form["maximum"] ?? "").trimmingCharacters(in: .whitespaces)
            let bpm = Int(text)
            // A form without the resting field (an older page) leaves it as it is.
            let restText = form["resting"].map { $0.trimmingCharacters(in: .whitespaces) }
            let resting = restText.map { Int($0) } ?? account.restingHeartRate
            let maximumOK = text.isEmpty || bpm.map(AccountRules.maximumHeartRates.contains) == true
            let restingOK =
                restText.map { $0.isEmpty || Int($0).map(AccountRules.restingHeartRates.contains) == true } ?? true
            guard maximumOK, restingOK, (bpm ?? 230) > (resting ?? 0) + 20 else {
                var page = try await settings(account)
                let (low, high) = (AccountRules.maximumHeartRates, AccountRules.restingHeartRates)
                page.error =
                    !maximumOK
                    ? "A maximum heart rate is a whole number of beats per minute from \(low.lowerBound) to \(low.upperBound), or empty."
                    : !restingOK
                        ? "A resting heart rate is a whole number of beats per minute from \(high.lowerBound) to \(high.upperBound), or empty."
                        : "The resting heart rate must be at least 20 beats below the maximum."
                page.heart.maximum = text
                page.heart.resting = restText ?? page.heart.resting
                return Self.render(page, status: .unprocessableContent)
            }
            try await services.repository.setHeartRates(account: account.id, maximum: bpm, resting: resting)
            return Self.redirect(SitePath.settings.path + "?done=heart-rate")
        }
        router.signedIn(.post, "/settings/account") { request, context, account in
            let form = try await Self.form(request, context)
            let username = form["username"].flatMap { $0 == account.username ? nil : $0 }
            let email = form["email"].flatMap { $0.lowercased() == account.email ? nil : $0 }
            return try await change(request, context, account, done: "account") {
                _ = try await services.accounts.update(
                    account, token: Self.sessionCookie(request) ?? "", username: username, email: email,
                    password: nil, currentPassword: form["current_password"], address: $0)
            }
        }
        router.signedIn(.post, "/settings/password") { request, context, account in
            let form = try await Self.form(request, context)
            return try await change(request, context, account, done: "password") {
                _ = try await services.accounts.update(
                    account, token: Self.sessionCookie(request) ?? "", username: nil, email: nil,
                    password: form["password"] ?? "", currentPassword: form["current_password"] ?? "", address: $0)
            }
        }
        router.signedIn(.post, "/settings/delete") { request, context, account in
            let form = try await Self.form(request, context)
            guard form["confirm"] == "1" else {
                var page = try await settings(account)
                page.error = "Tick the box that says you understand, then delete the account."
                return Self.render(page, status: .unprocessableContent)
            }
            return try await change(request, context, account, done: nil) {
                try await services.accounts.delete(account, password: form["password"] ?? "", address: $0)
            }
        }
        router.signedIn(.get, "/settings/export") { _, context, account in
            do {
                return try await export(account, logger: context.logger)
            } catch is ZipArchive.TooLarge {
                return Self.message(
                    "Too much for one zip",
                    "Your runs make more than 4 GB (or 65,000 files), more than one zip holds: "
                        + "download them from their pages, or ask the store's operator for a copy.",
                    status: .contentTooLarge, account: account)
            }
        }
    }

    static let notices = [
        "preferences": "Saved: every page now shows your units and time zone.",
        "account": "Saved your username and email.",
        "heart-rate": "Saved: every run's heart-rate zones now come from your maximum.",
        "profile": "Saved: your profile shows each part to the people you chose.",
        "photo": "Saved: your photo is shown to the people you chose.",
        "week-goal": "Saved: your home page shows your week against the goal.",
        "visibility": "Saved: your new runs are seen as you chose. Each run you stored before keeps its own choice.",
        "password": "Changed your password: your other sessions ended and your packs were unlinked.",
    ]

    /// The session cookie: for the session's lifetime when the person asked to stay signed in,
    /// else until the browser closes.
    func sessionCookie(_ token: String, remember: Bool) -> String {
        let lifetime = remember ? "; Max-Age=\(services.configuration.accounts.sessionLifetimeSeconds)" : ""
        return "\(Self.cookie)=\(token); Path=/; HttpOnly; SameSite=Strict\(secure)\(lifetime)"
    }

    func settings(_ account: Account) async throws -> SettingsPage {
        let repository = services.repository
        let devices = try await repository.devices(account: account.id)
        var page = SettingsPage(
            account: account, packs: PacksPart(devices, now: services.now(), zone: account.timeZone),
            runs: try await repository.runCount(account: account.id),
            groups: try await repository.groups(account: account.id).count,
            profile: try await repository.profile(account: account.id), now: services.now())
        page.profile.photo = PhotoForm(
            try await repository.profilePhoto(account: account.id), username: account.username)
        return page
    }

    /// Runs a change that asks for the password; then to the settings with a notice (`done`), or,
    /// with `done` nil (the account deleted), to a page that says so, the cookie cleared.
    func change(
        _ request: Request, _ context: StoreContext, _ account: Account, done: String?,
        _ body: (String) async throws -> Void
    ) async throws -> Response {
        do {
            try await body(services.clientAddress(request, context))
        } catch let error as StoreError
            where error.status != .serviceUnavailable && error.status != .insufficientStorage
        {
            var page = try await settings(account)
            page.error = error.message
            var response = Self.render(page, status: error.status)
            if let wait = error.retryAfter { response.headers[.retryAfter] = String(wait) }
            return response
        }
        guard let done else {
            var response = Self.render(
                MessagePage(
                    "Account deleted", "Your account, runs and packs' links are gone.", isError: false,
                    link: Link(href: SitePath.signup().path, label: "Create another account")))
            response.headers[.setCookie] = "\(Self.cookie)=; Path=/; HttpOnly; SameSite=Strict\(secure); Max-Age=0"
            return response
        }
        return Self.redirect(SitePath.settings.path + "?done=" + done)
    }

    static func json(_ object: Any) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]))
    }
}
