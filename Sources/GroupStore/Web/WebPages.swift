import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// The store's web pages, rendered on the server with no scripts and no requests elsewhere: the
/// sign-in form, the page where a person enters a pack's code, and a group's page. A signed-in
/// browser holds its session token in an HttpOnly, SameSite=Strict cookie; forms also check that
/// a browser's Origin, when it sends one, is this store.
struct WebPages {
    let services: Services
    static let cookie = "handoff_session"

    func register(_ router: RouteRecorder) {
        let repository = services.repository
        router.get("/") { request, _ in
            guard let account = try await signedIn(request) else { return Self.redirect("/login") }
            let groups = try await repository.groups(account: account.id)
            let devices = try await repository.devices(account: account.id)
            return Self.page(
                "Your groups",
                (groups.isEmpty
                    ? "<p>You are in no group yet. Create one or join one with an invite code (see the README).</p>"
                    : "<ul>"
                        + groups.map { "<li><a href=\"/groups/\($0.id)\">\(html($0.name))</a></li>" }.joined()
                        + "</ul>") + Self.packs(devices, now: services.now()), account: account)
        }
        router.post("/devices/:device/unlink") { request, context in
            if let refused = refusedOrigin(request) { return refused }
            guard let account = try await signedIn(request) else { return Self.redirect("/login") }
            do {
                try await repository.revokeDevice(try context.id("device", "pack"), account: account.id)
                return Self.redirect("/")
            } catch let error as StoreError where error.status == .notFound {
                return Self.page(
                    "Not found", "<p>You have no such pack: it may be unlinked already.</p>", status: .notFound,
                    account: account)
            }
        }
        router.get("/login") { request, _ in
            Self.page(
                "Sign in", Self.loginForm(next: Self.safeNext(request.uri.queryParameters["next"].map(String.init))))
        }
        router.post("/login") { request, context in
            if let refused = refusedOrigin(request) { return refused }
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
        router.post("/logout") { request, _ in
            if let refused = refusedOrigin(request) { return refused }
            if let token = Self.sessionCookie(request) { try await services.accounts.signOut(token: token) }
            var response = Self.redirect("/login")
            response.headers[.setCookie] = "\(Self.cookie)=; Path=/; HttpOnly; SameSite=Strict\(secure); Max-Age=0"
            return response
        }
        router.get("/device") { request, _ in
            let code = request.uri.queryParameters["code"].map(String.init) ?? ""
            guard let account = try await signedIn(request) else {
                let back = "/device" + (code.isEmpty ? "" : "?code=" + Self.percentEncode(code))
                return Self.redirect("/login?next=" + Self.percentEncode(back))
            }
            // RFC 8628 §5.4: a code that came in the address may have come from someone else, so
            // say which pack asks, and link only when the person confirms.
            var intro = ""
            if !code.isEmpty {
                if let name = try await repository.waitingDevice(
                    userCode: DeviceRoutes.normalize(code), now: services.now())
                {
                    intro =
                        "<p class=\"ask\">A pack named <strong>\(html(name))</strong> asks to be linked to your account, <strong>\(html(account.username))</strong>. Link it only if it is your pack showing this code now.</p>"
                } else {
                    intro =
                        "<p class=\"error\">No pack is waiting with the code \(html(code)): check the code the pack shows, or run <code>handoff link</code> again (codes last 15 minutes).</p>"
                }
            }
            return Self.page("Link a pack", intro + Self.deviceForm(code: code), account: account)
        }
        router.post("/device") { request, context in
            if let refused = refusedOrigin(request) { return refused }
            guard let account = try await signedIn(request) else { return Self.redirect("/login?next=/device") }
            let form = try await Self.form(request, context)
            let code = form["user_code"] ?? ""
            do {
                try await services.limitDeviceApprovals(account: account.id)
                let name = try await repository.approveDevice(
                    userCode: DeviceRoutes.normalize(code), account: account.id, now: services.now())
                return Self.page(
                    "Pack linked",
                    "<p>The pack <strong>\(html(name))</strong> is linked to your account. It will finish on its own in a few seconds.</p><p>You can unlink it at any time from <a href=\"/\">your page</a>.</p>",
                    account: account)
            } catch let error as StoreError {
                var response = Self.page(
                    "Link a pack", "<p class=\"error\">\(html(error.message))</p>" + Self.deviceForm(code: code),
                    status: error.status, account: account)
                if let wait = error.retryAfter { response.headers[.retryAfter] = String(wait) }
                return response
            }
        }
        router.get("/groups/:group") { request, context in
            guard let account = try await signedIn(request) else {
                return Self.redirect("/login?next=" + Self.percentEncode(request.uri.path))
            }
            do {
                let progress = try await repository.progress(
                    try context.id("group", "group"), account: account.id, now: services.now())
                return Self.page(progress.group.name, GroupPage.render(progress, now: services.now()), account: account)
            } catch let error as StoreError where error.status == .notFound {
                return Self.page("Not found", "<p>\(html(error.message))</p>", status: .notFound, account: account)
            }
        }
    }

    /// Behind TLS (a public URL that is https), the cookie is only ever sent over TLS.
    var secure: String {
        services.configuration.publicURL?.lowercased().hasPrefix("https://") == true ? "; Secure" : ""
    }

    /// The account of the browser's session cookie, if it is valid.
    func signedIn(_ request: Request) async throws -> Account? {
        guard let token = Self.sessionCookie(request) else { return nil }
        guard let credential = try? await services.accounts.authenticate(token: token), credential.scope == .session
        else { return nil }
        return credential.account
    }

    /// A form posted from another site is refused with a page that says so (SameSite=Strict
    /// already keeps the cookie away; this covers browsers that ignore it). `Origin: null`
    /// (a sandboxed frame, a `data:` page, some redirects) is another site too: nil means go on.
    func refusedOrigin(_ request: Request) -> Response? {
        guard let origin = request.headers[.origin] else { return nil }
        // The host must be ours; the scheme may differ behind a TLS proxy.
        let host = origin.split(separator: "://", maxSplits: 1).last.map(String.init) ?? origin
        let ours = services.origin(request).split(separator: "://", maxSplits: 1).last.map(String.init) ?? ""
        if origin != "null", host == ours || host == request.head.authority { return nil }
        return Self.page(
            "Not sent",
            "<p class=\"error\">This form was sent from a page that is not the store's own "
                + "(its origin is \(html(origin))), so it was not acted on. If you meant to send it, open "
                + "<a href=\"/\">the store</a> and send it from there.</p>", status: .forbidden)
    }

    static func sessionCookie(_ request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for item in header.split(separator: ";") {
                let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0] == cookie, !pair[1].isEmpty { return pair[1] }
            }
        }
        return nil
    }

    /// Only a path on this site, else "/": it starts with one "/" and is printable ASCII with no
    /// space and no backslash. So never another host: not `//evil`, `/\\evil`, `https://…`, nor
    /// `/<TAB>/evil`, which a browser reads as `//evil` because URL parsing drops tabs and line
    /// breaks (WHATWG URL §4.4).
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"),
            next.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) && $0 != "\\" })
        else { return "/" }
        return next
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }

    static func form(_ request: Request, _ context: StoreContext) async throws -> [String: String] {
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        var fields: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let key = parts.first { fields[key] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }

    static func percentEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~/")))
            ?? ""
    }

    static func loginForm(next: String) -> String {
        """
        <form method="post" action="/login">
        <input type="hidden" name="next" value="\(html(next))">
        <label>Email or username <input name="login" autocomplete="username" required></label>
        <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
        <button>Sign in</button>
        </form>
        """
    }

    /// The account's packs, each with a button that unlinks it: its token stops working at once.
    static func packs(_ devices: [Device], now: WallInstant) -> String {
        var out = "<h2>Your packs</h2>"
        guard !devices.isEmpty else {
            return out + "<p>No pack is linked. Run <code>handoff link</code> on the pack, then enter its code "
                + "<a href=\"/device\">here</a>.</p>"
        }
        out += "<table id=\"packs\"><tr><th>Pack</th><th>Linked</th><th>Last heard</th><th></th></tr>"
        for device in devices {
            out +=
                "<tr><td>\(html(device.name))</td><td>\(GroupPage.time(device.created))</td>"
                + "<td>\(GroupPage.duration(now.nanosecondsSinceEpoch - device.lastSeen.nanosecondsSinceEpoch)) ago</td>"
                + "<td><form method=\"post\" action=\"/devices/\(device.id)/unlink\"><button>Unlink</button></form></td></tr>"
        }
        return out + "</table><p><a href=\"/device\">Link another pack</a></p>"
    }

    static func deviceForm(code: String) -> String {
        """
        <p>Enter the code your pack shows (<code>handoff link</code> prints it).</p>
        <form method="post" action="/device">
        <label>Code <input name="user_code" value="\(html(code))" autocomplete="off" autocapitalize="characters" placeholder="BCDF-GHJK" required></label>
        <button>Link this pack to my account</button>
        </form>
        """
    }

    static func page(
        _ title: String, _ body: String, status: HTTPResponse.Status = .ok, account: Account? = nil
    )
        -> Response
    {
        let signOut =
            account.map {
                "<form method=\"post\" action=\"/logout\" class=\"who\">\(html($0.username)) <button>Sign out</button></form>"
            } ?? ""
        let document = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(html(title)) · Handoff</title>
            <style>\(style)</style></head>
            <body><header><a href="/">Handoff</a>\(signOut)</header>
            <main><h1>\(html(title))</h1>
            \(body)
            </main></body></html>
            """
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .contentSecurityPolicy:
                    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
                .cacheControl: "no-store",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                HTTPField.Name("Referrer-Policy")!: "same-origin",
            ], body: .init(byteBuffer: ByteBuffer(string: document)))
    }

    static let style = """
        body{font:16px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
        header{display:flex;justify-content:space-between;align-items:center;padding:.5em 1em;background:#234;color:#fff}
        header a{color:#fff;font-weight:bold;text-decoration:none}.who{margin:0;color:#fff}
        main{max-width:46em;margin:0 auto;padding:1em}label{display:block;margin:.5em 0}
        input{font:inherit;padding:.3em;margin-left:.5em}button{font:inherit;padding:.3em .8em}
        .error{color:#a00;font-weight:bold}.bar{background:#ddd;border-radius:4px;height:1.4em;overflow:hidden}
        .bar div{background:#2a7;height:100%}table{border-collapse:collapse;width:100%}
        th,td{text-align:left;padding:.3em .5em;border-bottom:1px solid #ddd}td.n,th.n{text-align:right}
        .baton{font-size:1.1em;padding:.6em;background:#fff;border:1px solid #ddd;border-radius:4px}
        td form{margin:0}
        """
}

/// Escapes text for HTML content and attribute values.
func html(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for c in text.unicodeScalars {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.unicodeScalars.append(c)
        }
    }
    return out
}

/// A group's page: the goal as a bar, the baton, the members' distances, recent legs.
enum GroupPage {
    static func km(_ mm: Int64) -> String { String(format: "%.1f km", Double(mm) / 1_000_000) }

    static func render(_ progress: Progress, now: WallInstant) -> String {
        let group = progress.group
        let fraction = group.goalMM > 0 ? min(1, Double(group.totalMM) / Double(group.goalMM)) : 0
        let percent = String(format: "%.1f", fraction * 100)
        var out = """
            <section aria-label="goal"><p><strong>\(km(group.totalMM))</strong> of \(km(group.goalMM)) (\(percent) %)\(
                group.deadline.map { " · deadline \(time($0))" } ?? "")</p>
            <div class="bar" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow="\(percent)"><div style="width:\(percent)%"></div></div></section>
            """
        if let holder = progress.baton.holderName, let since = progress.baton.since {
            out += """
                <p class="baton" id="baton"><strong>\(html(holder))</strong> holds the baton since \(time(since)) (\(duration(now.nanosecondsSinceEpoch - since.nanosecondsSinceEpoch)) ago).</p>
                """
        } else {
            out += "<p class=\"baton\" id=\"baton\">The baton is free: the next runner takes it.</p>"
        }
        out +=
            "<h2>Members</h2><table id=\"members\"><tr><th>Runner</th><th class=\"n\">Distance</th><th class=\"n\">This week</th><th class=\"n\">Runs</th></tr>"
        for member in progress.members.sorted(by: { ($0.distanceMM, $1.username) > ($1.distanceMM, $0.username) }) {
            out +=
                "<tr><td>\(html(member.username))\(member.accountID == group.ownerID ? " (owner)" : "")</td><td class=\"n\">\(km(member.distanceMM))</td><td class=\"n\">\(km(member.weekMM))</td><td class=\"n\">\(member.runs)</td></tr>"
        }
        if group.formerMM > 0 {
            out += "<tr><td>former members</td><td class=\"n\">\(km(group.formerMM))</td><td></td><td></td></tr>"
        }
        out += "</table><h2>Recent legs</h2>"
        if progress.legs.isEmpty {
            out += "<p>No legs yet.</p>"
        } else {
            out +=
                "<table id=\"legs\"><tr><th>Runner</th><th>Taken</th><th>Ended</th><th class=\"n\">Distance</th></tr>"
            for leg in progress.legs {
                let ended =
                    leg.ended.map { time in
                        Self.time(time) + " (" + html(leg.endedHow ?? "")
                            + (leg.passedTo.map { " to " + html($0) } ?? "")
                            + ")"
                    } ?? "running"
                out +=
                    "<tr><td>\(html(leg.username ?? "a former member"))</td><td>\(time(leg.taken))</td><td>\(ended)</td><td class=\"n\">\(km(leg.distanceMM))</td></tr>"
            }
            out += "</table>"
        }
        return out
    }

    /// A time as a person reads it, "Tue 24 Nov 2026, 15:49 UTC", in a `<time>` element that
    /// carries the exact instant. The page has no script to learn the reader's time zone, so it
    /// says UTC rather than guess.
    static func time(_ instant: WallInstant) -> String {
        let civil = CivilTime(instant)
        let days = instant.nanosecondsSinceEpoch / nanosecondsPerSecond / 86_400
        // 1 January 1970 was a Thursday.
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][Int(((days % 7) + 7) % 7)]
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][
            civil.month - 1]
        let clock = String(format: "%02d:%02d", civil.hour, civil.minute)
        let text = "\(weekday) \(civil.day) \(month) \(civil.year), \(clock) UTC"
        return "<time datetime=\"\(html(iso(instant)))\">\(html(text))</time>"
    }

    static func duration(_ nanoseconds: Int64) -> String {
        let minutes = max(0, nanoseconds / nanosecondsPerSecond / 60)
        if minutes < 60 { return "\(minutes) min" }
        if minutes < 48 * 60 { return "\(minutes / 60) h \(minutes % 60) min" }
        return "\(minutes / 1440) days"
    }
}
