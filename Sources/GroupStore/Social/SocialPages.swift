import Foundation
import HandoffModel
import Hummingbird

/// The people on a run's page: whose run it is (on another person's page), its kudos and
/// comments, and the forms the viewer may use.
struct RunSocial: Sendable, Equatable {
    /// The runner and their page, on another person's page.
    var runner: Link?
    /// "2 kudos, from bob and cleo", or that there are none.
    var kudos = ""
    var kudosButton: Button?
    var comments: [Comment] = []
    /// Where a new comment is sent; nil for nobody signed in.
    var comment: String?
    var longest = CommentRules.longest
    /// For nobody signed in: where to sign in to give kudos or comment.
    var signIn: Link?
    /// When the run started, and what its runner wrote about it.
    var when: TimeText?
    var description: String?
    /// The owner's form for the title and description.
    var post: PostForm?
    /// The run's photos and who ran it too.
    var extras = Extras()

    struct Extras: Sendable, Equatable {
        /// The run's photos, and the owner's form to add more.
        var photos: RunPhotos?
        /// Friends who ran it too, and the forms that name them or answer.
        var together: TogetherPart?
        /// The owner's card and share page.
        var share: ShareLinks?
    }

    struct PostForm: Sendable, Equatable {
        var action: String
        var title: String
        var standard: String
        var description: String
        var longestTitle = RunPost.longestTitle
        var longestDescription = RunPost.longestDescription
    }

    mutating func post(_ post: RunPost, run: StoredRun, zone: String, reader: Reader, owner: Bool) {
        when = PageFormat.time(run.started, zone: reader.zone)
        description = post.description
        if owner {
            self.post = PostForm(
                action: SitePath.runPost(run.uuid).path, title: post.title ?? "",
                standard: RunPost.standardTitle(run, zone: zone), description: post.description ?? "")
        }
    }

    struct Button: Sendable, Equatable {
        var action: String
        var value: String
        var label: String
    }

    struct Comment: Sendable, Equatable {
        var id: String
        var author: Link
        var when: TimeText
        var text: String
        var edited: Bool
        /// The author's form to change it.
        var edit: String?
        /// The author's or the run's owner's button to delete it.
        var delete: String?
        /// Anyone else's way to report it to the operator.
        var report: String?
        /// Hidden by the operator: shown to its author alone, saying so.
        var hidden: Bool
    }

    init(runner: String?) { self.runner = runner.map { Link(href: SitePath.person($0).path, label: $0) } }

    /// What `viewer` (nil: nobody signed in) is shown of the kudos and comments on `uuid`.
    init(
        runner: String?, uuid: String, kudos: RunKudos, comments: [StoredComment], viewer: Account?, owner: Bool,
        reader: Reader
    ) {
        self.runner = runner.map { Link(href: SitePath.person($0).path, label: $0) }
        self.kudos =
            kudos.count == 0
            ? "No kudos yet."
            : "\(kudos.count) kudos, from \(PageFormat.list(kudos.from))."
        if viewer != nil, !owner {
            kudosButton = Button(
                action: SitePath.runKudos(uuid).path, value: kudos.given ? "no" : "yes",
                label: kudos.given ? "Take back your kudos" : "Give kudos")
        }
        self.comments = comments.map { comment in
            let mine = comment.authorID == viewer?.id
            return Comment(
                id: "comment-\(comment.id)",
                author: Link(href: SitePath.person(comment.author).path, label: comment.author),
                when: PageFormat.time(comment.created, zone: reader.zone), text: comment.text,
                edited: comment.edited != nil, edit: mine ? SitePath.commentEdit(uuid, comment.id).path : nil,
                delete: mine || owner ? SitePath.commentDelete(uuid, comment.id).path : nil,
                report: viewer != nil && !mine ? SitePath.reportComment(uuid, comment.id).path : nil,
                hidden: comment.hidden)
        }
        comment = viewer == nil ? nil : SitePath.runComments(uuid).path
        signIn = viewer == nil ? Link(href: SitePath.login(next: SitePath.run(uuid).path).path, label: "Sign in") : nil
    }
}

extension WebPages {
    func registerSocialPages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.post, "/runs/:uuid/kudos") { request, context, account in
            let form = try await Self.form(request, context)
            return try await Self.seenRun(context, account) { uuid in
                _ = try await repository.setKudos(
                    uuid: uuid, viewer: account.id, give: form["give"] != "no", now: services.now())
                return Self.redirect(.run(uuid, at: "responses"))
            }
        }
        router.signedIn(.post, "/runs/:uuid/comments") { request, context, account in
            let form = try await Self.form(request, context)
            return try await Self.seenRun(context, account) { uuid in
                let comment = try await repository.addComment(
                    uuid: uuid, viewer: account.id, text: form["text"] ?? "", now: services.now())
                return Self.redirect(.run(uuid, at: "comment-\(comment.id)"))
            }
        }
        router.signedIn(.post, "/runs/:uuid/comments/:comment/edit") { request, context, account in
            let form = try await Self.form(request, context)
            return try await Self.seenRun(context, account) { uuid in
                let id = try SocialRoutes.commentID(context)
                _ = try await repository.editComment(
                    uuid: uuid, id: id, viewer: account.id, text: form["text"] ?? "", now: services.now())
                return Self.redirect(.run(uuid, at: "comment-\(id)"))
            }
        }
        router.signedIn(.post, "/runs/:uuid/comments/:comment/delete") { _, context, account in
            try await Self.seenRun(context, account) { uuid in
                try await repository.deleteComment(
                    uuid: uuid, id: try SocialRoutes.commentID(context), viewer: account.id)
                return Self.redirect(.run(uuid, at: "responses"))
            }
        }
        router.signedIn(.post, "/runs/:uuid/post") { request, context, account in
            let form = try await Self.form(request, context)
            return try await Self.seenRun(context, account) { uuid in
                let post = try RunPost.checked(title: form["title"] ?? "", description: form["description"] ?? "")
                try await repository.setPost(uuid: uuid, account: account.id, post)
                return Self.redirect(.run(uuid))
            }
        }
        router.signedIn(.post, "/responses/seen") { _, _, account in
            try await repository.markResponsesSeen(account: account.id, now: services.now())
            return Self.redirect(.home)
        }
    }

    /// Runs `body` with the run's uuid, for a form on a run the person may see: a run they may
    /// not see (or none, or a comment not theirs) is the run page's 404; a refused text is a page
    /// that says why, with the way back.
    static func seenRun(
        _ context: StoreContext, _ account: Account, _ body: (String) async throws -> Response
    ) async throws -> Response {
        let uuid = (context.parameters.get("uuid") ?? "").lowercased()
        do {
            return try await body(try RunRoutes.uuid(context))
        } catch let error as StoreError where error.status == .unprocessableContent || error.status == .conflict {
            return message(
                "Not sent", error.message, status: error.status, account: account,
                link: Link(href: SitePath.run(uuid).path, label: "Back to the run"))
        } catch let error as StoreError where error.status == .notFound {
            return message(
                "No such run or comment",
                "There is nothing at this address that you may change: it may have been deleted.",
                status: .notFound, account: account, link: Link(href: SitePath.runs().path, label: "Your runs"))
        }
    }
}

/// The home page's count of new kudos and comments on the person's runs, the newest of them, and
/// the button that marks them seen (until the notifications page).
struct Reactions: Sendable, Equatable {
    var title: String
    var items: [Item]
    var seen = SitePath.responsesSeen.path

    struct Item: Sendable, Equatable {
        var text: String
        var quote: String?
        var href: String
        var when: TimeText
    }

    /// nil when there is nothing new.
    init?(count: Int, newest: [Reaction], reader: Reader) {
        guard count > 0 else { return nil }
        let many = count >= StoreRepository.mostResponsesCounted ? "\(count) or more" : String(count)
        title = count == 1 ? "1 new kudos or comment on your runs" : "\(many) new kudos and comments on your runs"
        items = newest.map { reaction in
            let run =
                "your \(RunPage.sportName(reaction.run.sport).lowercased()) of \(PageFormat.time(reaction.run.started, zone: reader.zone).text)"
            return Item(
                text: reaction.kind == .kudos
                    ? "\(reaction.from) gave kudos to \(run)" : "\(reaction.from) commented on \(run)",
                quote: reaction.text, href: SitePath.run(reaction.run.uuid, at: "responses").path,
                when: PageFormat.time(reaction.at, zone: reader.zone))
        }
    }
}
