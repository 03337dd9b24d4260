import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

struct GroupView: ResponseEncodable {
    let id: Int64
    let name: String
    let owner: String?
    let goalM: Double
    let deadline: String?
    let inviteCode: String
    let leaseHours: Double
    let autoPass: Bool
    let totalM: Double
    let percent: Double
    let createdAt: String

    init(_ group: Group, owner: String?) {
        id = group.id
        name = group.name
        self.owner = owner
        goalM = metres(group.goalMM)
        deadline = group.deadline.map(iso)
        inviteCode = group.inviteCode
        leaseHours = Double(group.leaseSeconds) / 3600
        autoPass = group.autoPass
        totalM = metres(group.totalMM)
        percent = group.goalMM > 0 ? (Double(group.totalMM) * 1000 / Double(group.goalMM)).rounded() / 10 : 0
        createdAt = iso(group.created)
    }

    enum CodingKeys: String, CodingKey {
        case id, name, owner, deadline, percent
        case goalM = "goal_m"
        case inviteCode = "invite_code"
        case leaseHours = "lease_hours"
        case autoPass = "auto_pass"
        case totalM = "total_m"
        case createdAt = "created_at"
    }

    /// Absent values are written as null, as the API document says.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(owner, forKey: .owner)
        try c.encode(goalM, forKey: .goalM)
        try c.encode(deadline, forKey: .deadline)
        try c.encode(inviteCode, forKey: .inviteCode)
        try c.encode(leaseHours, forKey: .leaseHours)
        try c.encode(autoPass, forKey: .autoPass)
        try c.encode(totalM, forKey: .totalM)
        try c.encode(percent, forKey: .percent)
        try c.encode(createdAt, forKey: .createdAt)
    }
}

struct MemberView: Encodable {
    let username: String
    let distanceM: Double
    let runs: Int64
    let weekM: Double
    let joinedAt: String
    let turn: Int64

    init(_ member: Member) {
        username = member.username
        distanceM = metres(member.distanceMM)
        runs = member.runs
        weekM = metres(member.weekMM)
        joinedAt = iso(member.joined)
        turn = member.turn
    }

    enum CodingKeys: String, CodingKey {
        case username, runs, turn
        case distanceM = "distance_m"
        case weekM = "week_m"
        case joinedAt = "joined_at"
    }
}

struct BatonView: ResponseEncodable {
    let holder: String?
    let since: String?
    let expiresAt: String?

    init(_ baton: Baton) {
        holder = baton.holderName
        since = baton.since.map(iso)
        expiresAt = baton.expires.map(iso)
    }

    enum CodingKeys: String, CodingKey {
        case holder, since
        case expiresAt = "expires_at"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(holder, forKey: .holder)
        try c.encode(since, forKey: .since)
        try c.encode(expiresAt, forKey: .expiresAt)
    }
}

struct LegView: Encodable {
    let id: Int64
    let runner: String?
    let takenAt: String
    let endedAt: String?
    let ended: String?
    let passedTo: String?
    let distanceM: Double
    let runs: Int64

    init(_ leg: Leg) {
        id = leg.id
        runner = leg.username
        takenAt = iso(leg.taken)
        endedAt = leg.ended.map(iso)
        ended = leg.endedHow
        passedTo = leg.passedTo
        distanceM = metres(leg.distanceMM)
        runs = leg.runs
    }

    enum CodingKeys: String, CodingKey {
        case id, runner, ended, runs
        case takenAt = "taken_at"
        case endedAt = "ended_at"
        case passedTo = "passed_to"
        case distanceM = "distance_m"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(runner, forKey: .runner)
        try c.encode(takenAt, forKey: .takenAt)
        try c.encode(endedAt, forKey: .endedAt)
        try c.encode(ended, forKey: .ended)
        try c.encode(passedTo, forKey: .passedTo)
        try c.encode(distanceM, forKey: .distanceM)
        try c.encode(runs, forKey: .runs)
    }
}

struct BatonState: ResponseEncodable {
    let baton: BatonView
    let legs: [LegView]
}

struct ProgressView: ResponseEncodable {
    let group: GroupView
    let members: [MemberView]
    let formerMembersM: Double
    let baton: BatonView
    let legs: [LegView]

    init(_ progress: Progress) {
        group = GroupView(
            progress.group, owner: progress.members.first { $0.accountID == progress.group.ownerID }?.username)
        members = progress.members.map(MemberView.init)
        formerMembersM = metres(progress.group.formerMM)
        baton = BatonView(progress.baton)
        legs = progress.legs.map(LegView.init)
    }

    enum CodingKeys: String, CodingKey {
        case group, members, baton, legs
        case formerMembersM = "former_members_m"
    }
}

struct GroupList: ResponseEncodable {
    let groups: [GroupView]
}

struct MemberList: ResponseEncodable {
    let members: [MemberView]
}

/// Groups, their members and rotation, and the baton.
struct GroupRoutes {
    let services: Services

    struct Create: Decodable {
        let name: String
        let goalM: Double
        let deadline: String?
        let leaseHours: Double?
        let autoPass: Bool?
        enum CodingKeys: String, CodingKey {
            case name, deadline
            case goalM = "goal_m"
            case leaseHours = "lease_hours"
            case autoPass = "auto_pass"
        }
    }

    /// A PATCH: absent keys keep their value; `"deadline": null` removes the deadline.
    struct Change: Decodable {
        let name: String?
        let goalM: Double?
        let deadline: String??
        let leaseHours: Double?
        let newInviteCode: Bool?
        let autoPass: Bool?
        enum CodingKeys: String, CodingKey {
            case name, deadline
            case goalM = "goal_m"
            case leaseHours = "lease_hours"
            case newInviteCode = "new_invite_code"
            case autoPass = "auto_pass"
        }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decodeIfPresent(String.self, forKey: .name)
            goalM = try c.decodeIfPresent(Double.self, forKey: .goalM)
            leaseHours = try c.decodeIfPresent(Double.self, forKey: .leaseHours)
            newInviteCode = try c.decodeIfPresent(Bool.self, forKey: .newInviteCode)
            autoPass = try c.decodeIfPresent(Bool.self, forKey: .autoPass)
            deadline = c.contains(.deadline) ? .some(try c.decodeIfPresent(String.self, forKey: .deadline)) : .none
        }
    }

    struct Join: Decodable {
        let inviteCode: String
        enum CodingKeys: String, CodingKey { case inviteCode = "invite_code" }
    }

    struct Rotation: Decodable {
        let members: [String]
    }

    struct Pass: Decodable {
        let to: String?
    }

    static func name(_ raw: String) throws(StoreError) -> String {
        let name = try TextRules.plain(raw, field: "name").trimmingCharacters(in: .whitespaces)
        guard (1...80).contains(name.count) else {
            throw StoreError(.unprocessableContent, "invalid_name", "a group's name is 1 to 80 characters")
        }
        return name
    }

    func view(_ group: Group) async throws -> GroupView {
        let owner = try await group.ownerID.asyncMap { try await services.repository.account(id: $0)?.username }
        return GroupView(group, owner: owner ?? nil)
    }

    func register(_ router: RouteRecorder) {
        let repository = services.repository
        router.post("/v1/groups") { request, context in
            let account = try await services.caller(request).account
            let body = try await request.json(Create.self, context)
            let now = services.now()
            let group = try await repository.createGroup(
                name: try Self.name(body.name), goalMM: try Self.goal(body.goalM),
                deadline: try body.deadline.map { text throws(StoreError) in try Self.deadline(text, now: now) },
                leaseSeconds: try body.leaseHours.map { hours throws(StoreError) in try Self.lease(hours) }
                    ?? services.configuration.defaultLeaseSeconds, autoPass: body.autoPass ?? false,
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
            let body = try await request.json(Join.self, context)
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
            let body = try await request.json(Change.self, context)
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
            let group = try await repository.updateGroup(id, owner: account.id) { group in
                if let name { group.name = name }
                if let goal { group.goalMM = goal }
                if let lease { group.leaseSeconds = lease }
                if case .some(let value) = deadline { group.deadline = value }
                if let code { group.inviteCode = code }
                if let autoPass = body.autoPass { group.autoPass = autoPass }
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
            let members = try await repository.setRotation(
                try context.id("group", "group"), owner: account.id, usernames: body.members, now: services.now())
            return MemberList(members: members.map(MemberView.init))
        }
        router.get("/v1/groups/:group/baton") { request, context in
            let account = try await services.caller(request, device: true).account
            let (baton, legs) = try await repository.baton(
                try context.id("group", "group"), account: account.id, now: services.now())
            return BatonState(baton: BatonView(baton), legs: legs.map(LegView.init))
        }
        router.post("/v1/groups/:group/baton/take") { request, context in
            let account = try await services.caller(request, device: true).account
            return BatonView(
                try await repository.takeBaton(
                    try context.id("group", "group"), account: account.id, now: services.now()))
        }
        router.post("/v1/groups/:group/baton/renew") { request, context in
            let account = try await services.caller(request, device: true).account
            return BatonView(
                try await repository.renewBaton(
                    try context.id("group", "group"), account: account.id, now: services.now()))
        }
        router.post("/v1/groups/:group/baton/pass") { request, context in
            let account = try await services.caller(request, device: true).account
            var request = request
            let bytes = try await request.collectBody(upTo: context.maxUploadSize)
            let body = bytes.readableBytes == 0 ? Pass(to: nil) : try StoreJSON.decoder.decode(Pass.self, from: bytes)
            return BatonView(
                try await repository.passBaton(
                    try context.id("group", "group"), account: account.id, to: body.to, now: services.now()))
        }
        router.post("/v1/groups/:group/baton/release") { request, context in
            let account = try await services.caller(request, device: true).account
            try await repository.releaseBaton(
                try context.id("group", "group"), account: account.id, now: services.now())
            return HTTPResponse.Status.noContent
        }
    }
}
