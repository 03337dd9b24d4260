import HandoffAPI
import HandoffModel

@testable import GroupStore

/// The notifications page's fixtures: two unread and one read, with the header's count; and none.
extension PageMakers {
    func notifications(empty: Bool) -> NotificationsPage {
        var page = NotificationsPage(
            [], unread: empty ? 0 : 2, next: empty ? nil : 40, reader: .standard, viewer: "ada")
        page.frame = frame(page.frame.title, viewer: "ada", current: .notifications())
        if !empty {
            page.frame.bell?.count = t("2")
            page.frame.bell?.unread = t("2 unread")
            page.markRead = .init(action: t("/notifications/read"), upTo: t("43"))
            let at = { (minutes: Int64) in
                let time = PageFormat.time(
                    PageFixture.now.advanced(byNanoseconds: -minutes * 60 * nanosecondsPerSecond))
                return TimeText(iso: t(time.iso), text: t(time.text))
            }
            page.items = [
                .init(
                    text: t("bob passed you the baton in Night <owls>: it is yours."), href: t("/groups/7"),
                    when: at(3),
                    unread: true),
                .init(
                    text: t("cleo commented on your run of Tue 24 Nov 2026, 16:49 UTC."),
                    href: t("/runs/0f8fad5b-d9cb-469f-a165-70867728950e#responses"), when: at(50), unread: true),
                .init(text: t("dan asks to be your friend."), href: t("/friends"), when: at(2_000), unread: false),
            ]
            page.next = Link(href: t("/notifications?before=40"), label: t("Older notifications →"))
        }
        return page
    }
}
