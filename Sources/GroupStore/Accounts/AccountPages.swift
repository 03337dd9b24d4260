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
            return Self.page(
                "Your groups",
                (groups.isEmpty
                    ? "<p>You are in no group yet. Create one or join one with an invite code (see the README).</p>"
                    : "<ul>"
                        + groups.map { "<li><a href=\"\(SitePath.group($0.id).path)\">\(html($0.name))</a></li>" }
                        .joined()
                        + "</ul>") + Self.packs(devices, now: services.now()), account: account)
        }
        router.anyone(.get, "/login") { request, _ in
            Self.page(
                "Sign in", Self.loginForm(next: Self.safeNext(request.uri.queryParameters["next"].map(String.init))))
        }
        router.anyone(.post, "/login") { request, context in
            let form = try await Self.form(request, context)
            let next = Self.safeNext(form["next"])
            do {
                let (_, issued) = try await services.accounts.signIn(
                    login: form["login"] ?? "", password: form["password"] ?? "",
                    address: services.clientAddress(request, context))
                var response = Self.redirect(next)
                response.headers[.setCookie] =
                    "\(Self.cookie)=\(issued.token); Path=/; HttpOnly; SameSite=Strict\(secure); Max-Age=\(services.configuration.accounts.sessionLifetimeSeconds)"
                return response
            } catch let error as StoreError {
                var response = Self.page(
                    "Sign in", "<p class=\"error\">\(html(error.message))</p>" + Self.loginForm(next: next),
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

    static func loginForm(next: String) -> String {
        """
        <form method="post" action="\(SitePath.login().path)">
        <input type="hidden" name="next" value="\(html(next))">
        <label>Email or username <input name="login" autocomplete="username" required></label>
        <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
        <button>Sign in</button>
        </form>
        """
    }
}
