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
            var mail = MailForm([.kudos: true, .batonFree: false])
            mail.action = t(mail.action)
            mail.topics = mail.topics.map { .init(name: t($0.name), label: t($0.label), on: $0.on) }
            page.mail = mail
        }
        return page
    }

    /// The unsubscribe question, and the forgotten-password form.
    func ask(field: Bool) -> AskPage {
        AskPage(
            frame: frame(field ? "Forgot your password?" : "Stop these e-mails?", viewer: nil),
            text: t(
                field
                    ? "Give your e-mail address or your name: a link to set a new password goes to your e-mail address."
                    : "Handoff e-mails ada when the baton is passed to you. Stop these e-mails?"),
            action: t(field ? "/forgot" : "/unsubscribe/0123?topic=baton_passed"),
            button: t(field ? "Send the link" : "Stop these e-mails"),
            field: field
                ? .init(name: t("login"), label: t("E-mail address or name"), autocomplete: t("username")) : nil)
    }
}
