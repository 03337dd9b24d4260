import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// The account's pages: the home page (groups and packs), signing in and out.
extension WebPages {
    func registerAccountPages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.get, "/") { _, _, account in
            let groups = try await repository.groups(account: account.id)
            let devices = try await repository.devices(account: account.id)
            return Self.render(
                HomePage(
                    frame: Frame("Your groups", viewer: account.username, current: .home),
                    groups: groups.map { Link(href: SitePath.group($0.id).path, label: $0.name) },
                    packs: PacksPart(devices, now: services.now(), zone: account.timeZone)))
        }
        router.anyone(.get, "/login") { request, _ in
            Self.render(
                LoginPage(
                    next: Self.safeNext(request.uri.queryParameters["next"].map(String.init)),
                    signUp: services.configuration.accounts.signUps == .open ? SitePath.signup().path : nil))
        }
        router.anyone(.post, "/login") { request, context in
            let form = try await Self.form(request, context)
            let next = Self.safeNext(form["next"])
            let remember = form["remember"] == "1"
            do {
                let (_, issued) = try await services.accounts.signIn(
                    login: form["login"] ?? "", password: form["password"] ?? "",
                    address: services.clientAddress(request, context))
                var response = Self.redirect(next)
                // "Stay signed in" keeps the cookie for the session's lifetime; otherwise it ends
                // with the browser.
                response.headers[.setCookie] = sessionCookie(issued.token, remember: remember)
                return response
            } catch let error as StoreError {
                // What was typed stays, but the password.
                var response = Self.render(
                    LoginPage(
                        next: next, login: form["login"] ?? "", remember: remember, error: error.message,
                        signUp: services.configuration.accounts.signUps == .open ? SitePath.signup().path : nil),
                    status: error.status)
                if let wait = error.retryAfter { response.headers[.retryAfter] = String(wait) }
                return response
            }
        }
        router.anyone(.post, "/logout") { request, _ in
            if let token = Self.sessionCookie(request) { try await services.accounts.signOut(token: token) }
            var response = Self.redirect(.login())
            response.headers[.setCookie] = "\(Self.cookie)=; Path=/; HttpOnly; SameSite=Strict\(secure); Max-Age=0"
            return response
        }
    }

}

/// The sign-in form, with what was typed kept after a wrong password (all but the password).
struct LoginPage: PageModel {
    static let template = "login"
    var frame = Frame("Sign in", viewer: nil, current: .login())
    var action = SitePath.login().path
    var next: String
    var login = ""
    var remember = false
    var error: String?
    var signUp: String?
}

/// The signed-in person's page: their groups and packs.
struct HomePage: PageModel {
    static let template = "home"
    var frame: Frame
    var groups: [Link]
    var packs: PacksPart
}
