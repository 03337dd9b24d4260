import HandoffAPI
import HandoffModel
import Hummingbird

/// `GET /v1/notifications` (a page of the person's notifications, newest first, `before` and
/// `limit`) and `POST /v1/notifications/read` (marks them read up to `up_to`, all without it).
struct NotificationRoutes {
    let services: Services
    static let limits = (standard: 50, most: 200)

    func register(_ router: RouteRecorder) {
        router.get("/v1/notifications") { request, _ -> NotificationList in
            let account = try await services.caller(request).account
            let before = try Self.before(request)
            let limit = try request.pageLimit(standard: Self.limits.standard, most: Self.limits.most)
            let page = try await services.repository.notifications(account: account.id, before: before, limit: limit)
            let zone = Reader(account).zone
            return NotificationList(
                notifications: page.rows.map { NotificationView($0, zone: zone) }, unread: page.unread, next: page.next)
        }
        router.post("/v1/notifications/read") { request, context -> NotificationCount in
            let account = try await services.caller(request).account
            let read = try await request.json(NotificationsRead.self, context)
            if let upTo = read.upTo, upTo < 1 {
                throw StoreError(
                    .unprocessableContent, "invalid_up_to",
                    "up_to is the number of a notification (the newest to mark read), 1 or more")
            }
            let unread = try await services.repository.markNotificationsRead(
                account: account.id, upTo: read.upTo, now: services.now())
            return NotificationCount(unread: unread)
        }
    }

    /// The `before` of a page after the first: a notification's number.
    static func before(_ request: Request) throws(StoreError) -> Int64? {
        guard let text = request.uri.queryParameters["before"].map(String.init) else { return nil }
        guard let before = Int64(text), before > 0 else {
            throw StoreError(
                .unprocessableContent, "invalid_before",
                "before is the number of a notification (the `next` of the page before), 1 or more")
        }
        return before
    }
}

extension NotificationView {
    init(_ stored: StoredNotification, zone: String) {
        let (text, href) = stored.worded(zone: zone)
        self.init(
            id: stored.id, kind: stored.kind.rawValue, at: iso(stored.created), read: stored.read, text: text,
            href: href, actor: stored.actor, group: stored.team?.id, run: stored.run?.uuid)
    }
}

extension NotificationList: ResponseGenerator, ResponseEncodable {}
extension NotificationCount: ResponseGenerator, ResponseEncodable {}

/// The person's notifications, newest first, the unread marked; a button marks them all read.
struct NotificationsPage: PageModel {
    static let template = "notifications"
    var frame: Frame
    var items: [Item]
    /// The form that marks read every one up to the newest shown, when any is unread.
    var markRead: MarkRead?
    var next: Link?
    /// The e-mail choices, when the store sends e-mail.
    var mail: MailForm?

    struct MarkRead: Sendable, Equatable {
        var action = SitePath.notificationsRead.path
        var upTo: String
    }

    struct Item: Sendable, Equatable {
        var text: String
        var href: String
        var when: TimeText
        var unread: Bool
    }

    init(_ rows: [StoredNotification], unread: Int, next: Int64?, reader: Reader, viewer: String) {
        frame = Frame(
            unread > 0 ? "Notifications (\(unread) unread)" : "Notifications", viewer: viewer, current: .notifications()
        )
        items = rows.map { row in
            let (text, href) = row.worded(zone: reader.zone)
            return Item(
                text: text, href: href, when: PageFormat.time(row.created, zone: reader.zone), unread: !row.read)
        }
        markRead = unread > 0 ? MarkRead(upTo: String(rows.first?.id ?? Int64.max)) : nil
        self.next = next.map { Link(href: SitePath.notifications(before: $0).path, label: "Older notifications →") }
    }
}

extension WebPages {
    func registerNotificationPages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.get, "/notifications", next: { $0.uri.path }) { request, _, account in
            let before: Int64?
            do {
                before = try NotificationRoutes.before(request)
            } catch let error as StoreError {
                return Self.message(
                    "Not a page of your notifications", error.message, status: .unprocessableContent,
                    account: account, link: Link(href: SitePath.notifications().path, label: "The newest notifications")
                )
            }
            let page = try await repository.notifications(
                account: account.id, before: before, limit: NotificationRoutes.limits.standard)
            var model = NotificationsPage(
                page.rows, unread: page.unread, next: page.next, reader: Reader(account), viewer: account.username)
            if services.configuration.mail != nil {
                model.mail = MailForm(try await repository.mailChoices(account: account.id))
            }
            return Self.render(model)
        }
        router.signedIn(.post, "/notifications/read") { request, context, account in
            // Up to the newest the page showed: what came after it stays unread.
            let upTo = try await Self.form(request, context)["up_to"].flatMap { Int64($0) }
            _ = try await repository.markNotificationsRead(account: account.id, upTo: upTo, now: services.now())
            return Self.redirect(.notifications())
        }
    }
}
