import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird

extension KudosView: ResponseGenerator, ResponseEncodable {}
extension CommentView: ResponseGenerator, ResponseEncodable {}
extension CommentList: ResponseGenerator, ResponseEncodable {}

extension KudosView {
    init(_ kudos: RunKudos) { self.init(count: kudos.count, given: kudos.given, from: kudos.from) }
}

extension CommentView {
    init(_ comment: StoredComment) {
        self.init(
            id: comment.id, author: comment.author, text: comment.text, createdAt: iso(comment.created),
            editedAt: comment.edited.map(iso), hidden: comment.hidden ? true : nil)
    }
}

/// Kudos and comments over the API: on any run the caller may see (`RunVisibility`), and the
/// same 404 as for no run on one they may not. A person's session; a pack's device token gets 403.
struct SocialRoutes {
    let services: Services

    static func commentID(_ context: StoreContext) throws(StoreError) -> Int64 {
        guard let id = context.parameters.get("comment").flatMap({ Int64($0) }) else {
            throw StoreRepository.noComment
        }
        return id
    }

    func register(_ router: RouteRecorder) {
        let repository = services.repository
        router.get("/v1/runs/:uuid/kudos") { request, context in
            let account = try await services.caller(request).account
            return KudosView(try await repository.kudos(uuid: try RunRoutes.uuid(context), viewer: account.id))
        }
        router.post("/v1/runs/:uuid/kudos") { request, context in
            let account = try await services.caller(request).account
            return KudosView(
                try await repository.setKudos(
                    uuid: try RunRoutes.uuid(context), viewer: account.id, give: true, now: services.now()))
        }
        router.delete("/v1/runs/:uuid/kudos") { request, context in
            let account = try await services.caller(request).account
            return KudosView(
                try await repository.setKudos(
                    uuid: try RunRoutes.uuid(context), viewer: account.id, give: false, now: services.now()))
        }
        router.get("/v1/runs/:uuid/comments") { request, context in
            let account = try await services.caller(request).account
            let (_, comments) = try await repository.comments(uuid: try RunRoutes.uuid(context), viewer: account.id)
            return CommentList(comments: comments.map(CommentView.init))
        }
        router.post("/v1/runs/:uuid/comments") { request, context in
            let account = try await services.caller(request).account
            let uuid = try RunRoutes.uuid(context)
            let body = try await request.json(CommentBody.self, context)
            let comment = try await repository.addComment(
                uuid: uuid, viewer: account.id, text: body.text, now: services.now())
            return EditedResponse(status: .created, response: CommentView(comment))
        }
        router.patch("/v1/runs/:uuid/comments/:comment") { request, context in
            let account = try await services.caller(request).account
            let uuid = try RunRoutes.uuid(context)
            let id = try Self.commentID(context)
            let body = try await request.json(CommentBody.self, context)
            return CommentView(
                try await repository.editComment(
                    uuid: uuid, id: id, viewer: account.id, text: body.text, now: services.now()))
        }
        router.delete("/v1/runs/:uuid/comments/:comment") { request, context in
            let account = try await services.caller(request).account
            try await repository.deleteComment(
                uuid: try RunRoutes.uuid(context), id: try Self.commentID(context), viewer: account.id)
            return HTTPResponse.Status.noContent
        }
    }
}
