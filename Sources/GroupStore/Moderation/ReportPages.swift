import Foundation
import HandoffModel
import Hummingbird

/// The form that reports a comment or a profile to the store's operator.
struct ReportPage: PageModel {
    static let template = "report"
    var frame: Frame
    var about: String
    /// The comment's words, as the reporter sees them.
    var quote: String?
    var reported: String
    var action: String
    var back: String
    var reason = ""
    var error: String?
    var longest = ReportRules.longest

    /// The form for `target`, whose words (a comment's) are `quote`, by `author`.
    init(_ target: ReportTarget, author: String, quote: String?, viewer: String) {
        switch target {
        case .comment(let uuid, let id):
            frame = Frame("Report a comment", viewer: viewer)
            about = "You are reporting this comment by \(author) to the store's operator:"
            action = SitePath.reportComment(uuid, id).path
            back = SitePath.run(uuid, at: "comment-\(id)").path
        case .profile(let username):
            frame = Frame("Report \(username)'s profile", viewer: viewer)
            about =
                "You are reporting \(username)'s profile (their name, nickname and picture) to the store's operator."
            action = SitePath.reportPerson(username).path
            back = SitePath.person(username).path
        }
        reported = author
        self.quote = quote
    }
}

extension WebPages {
    func registerReportPages(_ router: PageRouter) {
        router.signedIn(.get, "/runs/:uuid/comments/:comment/report", next: { $0.uri.path }) { _, context, account in
            try await reportForm(try Self.reportTarget(context, comment: true), account, reason: "", error: nil)
        }
        router.signedIn(.post, "/runs/:uuid/comments/:comment/report") { request, context, account in
            try await fileReport(request, context, account, target: try Self.reportTarget(context, comment: true))
        }
        router.signedIn(.get, "/people/:username/report", next: { $0.uri.path }) { _, context, account in
            try await reportForm(try Self.reportTarget(context, comment: false), account, reason: "", error: nil)
        }
        router.signedIn(.post, "/people/:username/report") { request, context, account in
            try await fileReport(request, context, account, target: try Self.reportTarget(context, comment: false))
        }
    }

    static func reportTarget(_ context: StoreContext, comment: Bool) throws(StoreError) -> ReportTarget {
        guard comment else { return .profile(username: context.parameters.get("username") ?? "") }
        return .comment(uuid: try RunRoutes.uuid(context), id: try SocialRoutes.commentID(context))
    }

    /// The form, or for a comment or person the viewer may not see, the 404 of nothing there.
    func reportForm(_ target: ReportTarget, _ account: Account, reason: String, error: String?) async throws -> Response
    {
        let repository = services.repository
        var page: ReportPage
        do {
            switch target {
            case .comment(let uuid, let id):
                let (_, comments) = try await repository.comments(uuid: uuid, viewer: account.id)
                guard let comment = comments.first(where: { $0.id == id }) else { throw StoreRepository.noComment }
                page = ReportPage(target, author: comment.author, quote: comment.text, viewer: account.username)
            case .profile(let username):
                guard let person = try await repository.person(username: username, viewer: account.id) else {
                    throw StoreRepository.noRunner
                }
                page = ReportPage(target, author: person.username, quote: nil, viewer: account.username)
            }
        } catch let error as StoreError where error.status == .notFound {
            return Self.message(
                "Nothing to report", "There is nothing at this address that you may see: it may have been deleted.",
                status: .notFound, account: account, link: Link(href: SitePath.home.path, label: "Home"))
        }
        page.reason = reason
        page.error = error
        return Self.render(page, status: error == nil ? .ok : .unprocessableContent)
    }

    func fileReport(
        _ request: Request, _ context: StoreContext, _ account: Account, target: ReportTarget
    ) async throws -> Response {
        let form = try await Self.form(request, context)
        let reason = form["reason"] ?? ""
        do {
            _ = try await services.repository.report(target, reporter: account.id, reason: reason, now: services.now())
        } catch let error as StoreError where error.status == .unprocessableContent || error.status == .conflict {
            return try await reportForm(target, account, reason: reason, error: error.message)
        } catch let error as StoreError where error.status == .notFound {
            return try await reportForm(target, account, reason: reason, error: nil)
        }
        let back: Link =
            switch target {
            case .comment(let uuid, _): Link(href: SitePath.run(uuid).path, label: "Back to the run")
            case .profile(let username): Link(href: SitePath.person(username).path, label: "Back to \(username)'s page")
            }
        return Self.render(
            MessagePage(
                "Report sent",
                "Thank you: the store's operator will look at it. Until then you can block the person on your friends page, so that neither of you sees the other.",
                isError: false, link: back, viewer: account.username))
    }
}
