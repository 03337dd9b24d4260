import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird

extension FriendView: ResponseGenerator, ResponseEncodable {}
extension FriendList: ResponseGenerator, ResponseEncodable {}

/// Friends and blocks over the API (a person's session; a pack's device token gets 403).
struct FriendRoutes {
    let services: Services

    /// The other person, by username: 404 when nobody has it.
    func other(_ username: String) async throws -> Account {
        guard !username.isEmpty, let other = try await services.repository.account(username: username) else {
            throw StoreRepository.noRunner
        }
        return other
    }

    func register(_ router: RouteRecorder) {
        let repository = services.repository
        router.post("/v1/friends") { request, context in
            let account = try await services.caller(request).account
            let body = try await request.json(FriendAsk.self, context)
            let other = try await other(body.username)
            let status = try await repository.askFriend(account.id, other.id, now: services.now())
            return FriendView(username: other.username, status: status.rawValue)
        }
        router.post("/v1/friends/:username/accept") { request, context in
            let account = try await services.caller(request).account
            let other = try await other(context.parameters.get("username") ?? "")
            try await repository.acceptFriend(account.id, other.id, now: services.now())
            return FriendView(username: other.username, status: Friendship.friends.rawValue)
        }
        router.delete("/v1/friends/:username") { request, context in
            let account = try await services.caller(request).account
            let other = try await other(context.parameters.get("username") ?? "")
            try await repository.removeFriend(account.id, other.id)
            return HTTPResponse.Status.noContent
        }
        router.get("/v1/friends") { request, _ in
            let account = try await services.caller(request).account
            return FriendList(
                friends: try await repository.friends(account.id).map {
                    FriendView(username: $0.username, status: $0.status.rawValue)
                })
        }
        router.post("/v1/blocks") { request, context in
            let account = try await services.caller(request).account
            let body = try await request.json(FriendAsk.self, context)
            let other = try await other(body.username)
            try await repository.block(account.id, other.id, now: services.now())
            return HTTPResponse.Status.noContent
        }
        registerFeed(router)
        router.delete("/v1/blocks/:username") { request, context in
            let account = try await services.caller(request).account
            let other = try await other(context.parameters.get("username") ?? "")
            try await repository.unblock(account.id, other.id)
            return HTTPResponse.Status.noContent
        }
    }
}
