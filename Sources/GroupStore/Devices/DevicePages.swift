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
                return Self.message(
                    "Not found", "You have no such pack: it may be unlinked already.", status: .notFound,
                    account: account)
            }
        }
        router.signedIn(.get, "/devices/:device/unlink") { _, context, account in
            let id = try context.id("device", "pack")
            guard let device = try await repository.devices(account: account.id).first(where: { $0.id == id }) else {
                return Self.message(
                    "Not found", "You have no such pack: it may be unlinked already.", status: .notFound,
                    account: account)
            }
            return Self.render(
                UnlinkPage(
                    frame: Frame("Unlink \(device.name)?", viewer: account.username), name: device.name,
                    action: SitePath.unlinkDevice(id).path, back: SitePath.settings.path))
        }
        router.signedIn(.get, "/device", next: { SitePath.device(code: Self.code($0)).path }) { request, _, account in
            let code = Self.code(request)
            // RFC 8628 §5.4: a code that came in the address may have come from someone else, so
            // say which pack asks, and link only when the person confirms.
            var page = DevicePage(viewer: account.username, code: code)
            if !code.isEmpty {
                if let name = try await repository.waitingDevice(
                    userCode: DeviceRoutes.normalize(code), now: services.now())
                {
                    page.ask = .init(pack: name, account: account.username)
                } else {
                    page.error =
                        "No pack is waiting with the code \(code): check the code the pack shows, or run “handoff link” again (codes last 15 minutes)."
                }
            }
            return Self.render(page)
        }
        router.signedIn(.post, "/device", next: { _ in SitePath.device().path }) { request, context, account in
            let form = try await Self.form(request, context)
            let code = form["user_code"] ?? ""
            do {
                try await services.limitDeviceApprovals(account: account.id)
                let name = try await repository.approveDevice(
                    userCode: DeviceRoutes.normalize(code), account: account.id, now: services.now())
                var page = DevicePage(viewer: account.username, code: code)
                page.frame.title = "Pack linked"
                page.form = nil
                page.linked = name
                return Self.render(page)
            } catch let error as StoreError {
                var page = DevicePage(viewer: account.username, code: code)
                page.error = error.message
                var response = Self.render(page, status: error.status)
                if let wait = error.retryAfter { response.headers[.retryAfter] = String(wait) }
                return response
            }
        }
    }

    /// The code in the device page's address, as the pack's `verification_uri_complete` puts it.
    static func code(_ request: Request) -> String { request.uri.queryParameters["code"].map(String.init) ?? "" }

}

/// The question before a pack is unlinked.
struct UnlinkPage: PageModel {
    static let template = "unlink"
    var frame: Frame
    var name: String
    var action: String
    var back: String
}

/// The page where a person enters the code a pack shows, and its answer.
struct DevicePage: PageModel {
    static let template = "device"
    var frame: Frame
    var home = SitePath.home.path
    /// Which pack asks, when the address carried its code (RFC 8628 §5.4).
    var ask: Ask?
    var error: String?
    /// The name of the pack just linked.
    var linked: String?
    var form: Form?

    struct Ask: Sendable, Equatable {
        var pack: String
        var account: String
    }

    struct Form: Sendable, Equatable {
        var action = SitePath.device().path
        var code: String
    }

    init(viewer: String, code: String) {
        frame = Frame("Link a pack", viewer: viewer, current: .device())
        form = Form(code: code)
    }
}

/// The account's packs, each with a button that unlinks it: its token stops working at once.
struct PacksPart: Sendable, Equatable {
    var rows: [Row]
    var link = SitePath.device().path

    struct Row: Sendable, Equatable {
        var name: String
        var linked: TimeText
        var lastHeard: String
        var unlink: String
    }

    init(rows: [Row]) { self.rows = rows }

    init(_ devices: [Device], now: WallInstant, zone: String = "UTC") {
        rows = devices.map { device in
            Row(
                name: device.name, linked: PageFormat.time(device.created, zone: zone),
                lastHeard: PageFormat.duration(now.nanosecondsSinceEpoch - device.lastSeen.nanosecondsSinceEpoch),
                unlink: SitePath.unlinkDevice(device.id).path)
        }
    }
}
