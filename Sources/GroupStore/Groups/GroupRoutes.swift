import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird

/// Groups, their members and rotation (the baton is in Baton/BatonRoutes.swift).
struct GroupRoutes {
    let services: Services

    static func name(_ raw: String) throws(StoreError) -> String {
        let name = try TextRules.plain(raw, field: "name").trimmingCharacters(in: .whitespaces)
        guard (1...80).contains(name.count) else {
            throw StoreError(.unprocessableContent, "invalid_name", "a group's name is 1 to 80 characters")
        }
        return name
    }

    /// The order `GET /v1/groups/{group}/members` lists in: `order` (distance unless asked), or
    /// by name with `q`, a name's start.
    static func memberOrder(_ request: Request) throws(StoreError) -> MemberOrder {
        let order = request.query("order")
        if let q = request.query("q") {
            guard order == nil || order == "name" else {
                throw StoreError(
                    .unprocessableContent, "invalid_order",
                    "q finds members by the start of their name, in name order: leave order out, or set it to name")
            }
            let start = try TextRules.plain(q, field: "search")
            guard start.count <= 64 else {
                throw StoreError(
                    .unprocessableContent, "invalid_query", "q is the start of a name: 64 characters at most")
            }
            return .name(prefix: TextRules.key(start))
        }
        switch order {
        case nil, "distance": return .distance
        case "rotation": return .rotation
        case "name": return .name(prefix: "")
        default:
            throw StoreError(.unprocessableContent, "invalid_order", "order is distance, rotation or name")
        }
    }

    func view(_ group: Group) async throws -> GroupView {
        let owner = try await group.ownerID.asyncMap { try await services.repository.account(id: $0)?.username }
        return GroupView(group, owner: owner ?? nil)
    }

    func register(_ router: RouteRecorder) {
        let repository = services.repository
        router.post("/v1/groups") { request, context in
            let account = try await services.caller(request).account
            let body = try await request.json(GroupCreate.self, context)
            let now = services.now()
            let group = try await repository.createGroup(
                name: try Self.name(body.name), goalMM: try Self.goal(body.goalM),
                deadline: try body.deadline.map { text throws(StoreError) in try Self.deadline(text, now: now) },
                leaseSeconds: try body.leaseHours.map { hours throws(StoreError) in try Self.lease(hours) }
                    ?? services.configuration.defaultLeaseSeconds, autoPass: body.autoPass ?? false,
                sports: try body.sports.map { sports throws(StoreError) in try SportRules.checked(sports) }
                    ?? .standard,
                inviteCode: Self.inviteCode(), owner: account.id, now: now)
            context.logger.info("Group created", metadata: ["group": "\(group.id)", "account": "\(account.id)"])
            return EditedResponse(status: .created, response: GroupView(group, owner: account.username))
        }
        router.get("/v1/groups") { request, _ in
            let account = try await services.caller(request, device: true).account
            var views: [GroupView] = []
            for group in try await repository.groups(account: account.id) { views.append(try await view(group)) }
            return GroupList(groups: views)
        }
        router.post("/v1/groups/join") { request, context in
            let account = try await services.caller(request).account
            let body = try await request.json(GroupJoin.self, context)
            let code = body.inviteCode.trimmingCharacters(in: .whitespaces).lowercased()
            let group = try await repository.join(inviteCode: code, account: account.id, now: services.now())
            return try await view(group)
        }
        router.get("/v1/groups/:group") { request, context in
            let account = try await services.caller(request, device: true).account
            return try await view(try await repository.group(try context.id("group", "group"), account: account.id))
        }
        router.patch("/v1/groups/:group") { request, context in
            let account = try await services.caller(request).account
            let id = try context.id("group", "group")
            let body = try await request.json(GroupChange.self, context)
            let now = services.now()
            let name = try body.name.map { text throws(StoreError) in try Self.name(text) }
            let goal = try body.goalM.map { m throws(StoreError) in try Self.goal(m) }
            let lease = try body.leaseHours.map { h throws(StoreError) in try Self.lease(h) }
            let deadline: WallInstant?? =
                switch body.deadline {
                case .none: .none
                case .some(.none): .some(.none)
                case .some(.some(let text)): .some(try Self.deadline(text, now: now))
                }
            let code = body.newInviteCode == true ? Self.inviteCode() : nil
            let sports = try body.sports.map { sports throws(StoreError) in try SportRules.checked(sports) }
            let group = try await repository.updateGroup(id, owner: account.id) { group in
                if let name { group.name = name }
                if let goal { group.goalMM = goal }
                if let lease { group.leaseSeconds = lease }
                if case .some(let value) = deadline { group.deadline = value }
                if let code { group.inviteCode = code }
                if let autoPass = body.autoPass { group.autoPass = autoPass }
                if let sports { group.sports = sports }
            }
            return try await view(group)
        }
        router.delete("/v1/groups/:group") { request, context in
            let account = try await services.caller(request).account
            try await repository.deleteGroup(try context.id("group", "group"), owner: account.id)
            return HTTPResponse.Status.noContent
        }
        router.get("/v1/groups/:group/progress") { request, context in
            let account = try await services.caller(request, device: true).account
            return ProgressView(
                try await repository.progress(
                    try context.id("group", "group"), account: account.id, now: services.now()))
        }
        router.get("/v1/groups/:group/members") { request, context in
            let account = try await services.caller(request, device: true).account
            let id = try context.id("group", "group")
            let limits = StoreRepository.memberLimits
            let limit = try request.pageLimit(standard: limits.standard, most: limits.most)
            let order = try Self.memberOrder(request)
            let cursor = try request.pageCursor(order.cursorKind)
            let (page, count) = try await repository.members(
                id, account: account.id, order: order, after: cursor, limit: limit, now: services.now())
            return MemberPage(page, count: count)
        }
        router.delete("/v1/groups/:group/members/:username") { request, context in
            let account = try await services.caller(request).account
            let id = try context.id("group", "group")
            let name = context.parameters.get("username") ?? ""
            let member: Int64
            if name == "me" || TextRules.key(name) == TextRules.key(account.username) {
                member = account.id
            } else {
                guard let other = try await repository.account(username: name) else {
                    _ = try await repository.group(id, account: account.id)
                    throw StoreError(.notFound, "member_not_found", "that runner is not a member of this group")
                }
                member = other.id
            }
            try await repository.leave(id, member: member, by: account.id, now: services.now())
            return HTTPResponse.Status.noContent
        }
        router.put("/v1/groups/:group/rotation") { request, context in
            let account = try await services.caller(request).account
            let body = try await request.json(Rotation.self, context)
            let page = try await repository.setRotation(
                try context.id("group", "group"), owner: account.id, usernames: body.members,
                limit: StoreRepository.memberLimits.most, now: services.now())
            return MemberList(members: page.rows.map(MemberView.init), nextCursor: page.next?.text)
        }
    }
}
