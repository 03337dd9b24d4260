@testable import GroupStore

/// The report form's fixtures: a comment quoted, and a profile refused with the words kept.
extension PageMakers {
    func report(comment: Bool) -> ReportPage {
        let target: ReportTarget =
            comment ? .comment(uuid: "0f8fad5b-d9cb-469f-a165-70867728950e", id: 7) : .profile(username: "bob")
        var page = ReportPage(
            target, author: t("bob"), quote: comment ? t("Strong finish!\nSee you Tuesday.") : nil, viewer: t("ada"))
        page.frame = frame(page.frame.title, viewer: "ada")
        page.about = t(page.about)
        page.action = t(page.action)
        page.back = t(page.back)
        page.reason = t(comment ? "" : "Fake name")
        if !comment {
            page.error = t("a reason is at most 1000 characters and this one has 1001: shorten it")
        }
        return page
    }
}
