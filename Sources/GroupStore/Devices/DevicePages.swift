import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// The pages of packs: linking one with the code it shows (RFC 8628), and unlinking one.
extension WebPages {
    func registerDevicePages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.post, "/devices/:device/unlink") { _, context, account in
            do {
                try await repository.revokeDevice(try context.id("device", "pack"), account: account.id)
                return Self.redirect(.home)
            } catch let error as StoreError where error.status == .notFound {
                return Self.page(
                    "Not found", "<p>You have no such pack: it may be unlinked already.</p>", status: .notFound,
                    account: account)
            }
        }
        router.signedIn(.get, "/device", next: { SitePath.device(code: Self.code($0)).path }) { request, _, account in
            let code = Self.code(request)
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
        router.signedIn(.post, "/device", next: { _ in SitePath.device().path }) { request, context, account in
            let form = try await Self.form(request, context)
            let code = form["user_code"] ?? ""
            do {
                try await services.limitDeviceApprovals(account: account.id)
                let name = try await repository.approveDevice(
                    userCode: DeviceRoutes.normalize(code), account: account.id, now: services.now())
                return Self.page(
                    "Pack linked",
                    "<p>The pack <strong>\(html(name))</strong> is linked to your account. It will finish on its own in a few seconds.</p><p>You can unlink it at any time from <a href=\"\(SitePath.home.path)\">your page</a>.</p>",
                    account: account)
            } catch let error as StoreError {
                var response = Self.page(
                    "Link a pack", "<p class=\"error\">\(html(error.message))</p>" + Self.deviceForm(code: code),
                    status: error.status, account: account)
                if let wait = error.retryAfter { response.headers[.retryAfter] = String(wait) }
                return response
            }
        }
    }

    /// The code in the device page's address, as the pack's `verification_uri_complete` puts it.
    static func code(_ request: Request) -> String { request.uri.queryParameters["code"].map(String.init) ?? "" }

    /// The account's packs, each with a button that unlinks it: its token stops working at once.
    static func packs(_ devices: [Device], now: WallInstant) -> String {
        var out = "<h2>Your packs</h2>"
        guard !devices.isEmpty else {
            return out + "<p>No pack is linked. Run <code>handoff link</code> on the pack, then enter its code "
                + "<a href=\"\(SitePath.device().path)\">here</a>.</p>"
        }
        out += "<table id=\"packs\"><tr><th>Pack</th><th>Linked</th><th>Last heard</th><th></th></tr>"
        for device in devices {
            out +=
                "<tr><td>\(html(device.name))</td><td>\(PageFormat.time(device.created))</td>"
                + "<td>\(PageFormat.duration(now.nanosecondsSinceEpoch - device.lastSeen.nanosecondsSinceEpoch)) ago</td>"
                + "<td><form method=\"post\" action=\"\(SitePath.unlinkDevice(device.id).path)\"><button>Unlink</button></form></td></tr>"
        }
        return out + "</table><p><a href=\"\(SitePath.device().path)\">Link another pack</a></p>"
    }

    static func deviceForm(code: String) -> String {
        """
        <p>Enter the code your pack shows (<code>handoff link</code> prints it).</p>
        <form method="post" action="\(SitePath.device().path)">
        <label>Code <input name="user_code" value="\(html(code))" autocomplete="off" autocapitalize="characters" placeholder="BCDF-GHJK" required></label>
        <button>Link this pack to my account</button>
        </form>
        """
    }
}
