/// A group with its goal and total (`Group`). Absent values are written as null.
public struct GroupView: Codable, Sendable, Hashable {
    public var id: Int64
    public var name: String
    /// The owner's username; null once the owner's account is gone.
    public var owner: String?
    public var goalM: Double
    public var deadline: String?
    public var inviteCode: String
    public var leaseHours: Double
    public var autoPass: Bool
    public var totalM: Double
    public var percent: Double
    public var createdAt: String
    /// The sports that count toward the goal, each with its factor (a bike's kilometre may
    /// count as 0.25): `{"run": 1, "walk": 1}` unless the owner said otherwise.
    public var sports: [String: Double]

    public init(
        id: Int64, name: String, owner: String?, goalM: Double, deadline: String?, inviteCode: String,
        leaseHours: Double, autoPass: Bool, totalM: Double, percent: Double, createdAt: String,
        sports: [String: Double] = ["run": 1, "walk": 1]
    ) {
        self.id = id
        self.name = name
        self.owner = owner
        self.goalM = goalM
        self.deadline = deadline
        self.inviteCode = inviteCode
        self.leaseHours = leaseHours
        self.autoPass = autoPass
        self.totalM = totalM
        self.percent = percent
        self.createdAt = createdAt
        self.sports = sports
    }

    enum CodingKeys: String, CodingKey {
        case id, name, owner, deadline, percent, sports
        case goalM = "goal_m"
        case inviteCode = "invite_code"
        case leaseHours = "lease_hours"
        case autoPass = "auto_pass"
        case totalM = "total_m"
        case createdAt = "created_at"
    }

    public func encode(to encoder: any Encoder) throws {
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
        try c.encode(sports, forKey: .sports)
    }
}

/// A member's part in a group (`Member`).
public struct MemberView: Codable, Sendable, Hashable {
    public var username: String
    public var distanceM: Double
    public var runs: Int64
    public var weekM: Double
    public var joinedAt: String
    /// The member's place in the baton's rotation.
    public var turn: Int64
    /// The member's place by distance, from 1 (equal distances by who joined the store first);
    /// absent where the list does not say (rotation order, a search by name).
    public var rank: Int64?

    public init(
        username: String, distanceM: Double, runs: Int64, weekM: Double, joinedAt: String, turn: Int64,
        rank: Int64? = nil
    ) {
        self.username = username
        self.distanceM = distanceM
        self.runs = runs
        self.weekM = weekM
        self.joinedAt = joinedAt
        self.turn = turn
        self.rank = rank
    }

    enum CodingKeys: String, CodingKey {
        case username, runs, turn, rank
        case distanceM = "distance_m"
        case weekM = "week_m"
        case joinedAt = "joined_at"
    }
}

/// `GET /v1/groups`: the account's groups.
public struct GroupList: Codable, Sendable, Hashable {
    public var groups: [GroupView]

    public init(groups: [GroupView]) { self.groups = groups }
}

/// `PUT /v1/groups/{group}/rotation`'s reply: the first members in their new order, and where
/// `GET /v1/groups/{group}/members?order=rotation` goes on (null on the last page; absent from a
/// store older than the pages).
public struct MemberList: Codable, Sendable, Hashable {
    public var members: [MemberView]
    public var nextCursor: String?

    public init(members: [MemberView], nextCursor: String? = nil) {
        self.members = members
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case members
        case nextCursor = "next_cursor"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(members, forKey: .members)
        try c.encode(nextCursor, forKey: .nextCursor)
    }
}

/// `GET /v1/groups/{group}/members`: a page of the group's members.
public struct MemberPage: Codable, Sendable, Hashable {
    public var members: [MemberView]
    /// The next page's `cursor`, or null on the last page.
    public var nextCursor: String?
    /// How many members the group has.
    public var memberCount: Int64

    public init(members: [MemberView], nextCursor: String?, memberCount: Int64) {
        self.members = members
        self.nextCursor = nextCursor
        self.memberCount = memberCount
    }

    enum CodingKeys: String, CodingKey {
        case members
        case nextCursor = "next_cursor"
        case memberCount = "member_count"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(members, forKey: .members)
        try c.encode(nextCursor, forKey: .nextCursor)
        try c.encode(memberCount, forKey: .memberCount)
    }
}

/// `GET /v1/groups/{group}/progress`: the group, its first members by distance, the viewer's
/// place, the baton and recent legs. The fields after `legs` are absent from a store older than
/// the pages, so they are optional here; this store always writes them.
public struct ProgressView: Codable, Sendable, Hashable {
    public var group: GroupView
    /// The first page of members by distance, each with their `rank`.
    public var members: [MemberView]
    /// Distance that counted for runners who have left the group since.
    public var formerMembersM: Double
    public var baton: BatonView
    public var legs: [LegView]
    /// `GET /v1/groups/{group}/members`'s `cursor` for the members after `members`; null when
    /// `members` is all of them.
    public var nextCursor: String?
    public var memberCount: Int64?
    /// The viewer's own row, with their `rank`.
    public var me: MemberView?
    /// `GET /v1/groups/{group}/legs`'s `cursor` for the legs after `legs`; null when there are none.
    public var legsNextCursor: String?

    public init(
        group: GroupView, members: [MemberView], formerMembersM: Double, baton: BatonView, legs: [LegView],
        nextCursor: String? = nil, memberCount: Int64? = nil, me: MemberView? = nil, legsNextCursor: String? = nil
    ) {
        self.group = group
        self.members = members
        self.formerMembersM = formerMembersM
        self.baton = baton
        self.legs = legs
        self.nextCursor = nextCursor
        self.memberCount = memberCount
        self.me = me
        self.legsNextCursor = legsNextCursor
    }

    enum CodingKeys: String, CodingKey {
        case group, members, baton, legs, me
        case formerMembersM = "former_members_m"
        case nextCursor = "next_cursor"
        case memberCount = "member_count"
        case legsNextCursor = "legs_next_cursor"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(group, forKey: .group)
        try c.encode(members, forKey: .members)
        try c.encode(formerMembersM, forKey: .formerMembersM)
        try c.encode(baton, forKey: .baton)
        try c.encode(legs, forKey: .legs)
        try c.encode(nextCursor, forKey: .nextCursor)
        try c.encodeIfPresent(memberCount, forKey: .memberCount)
        try c.encodeIfPresent(me, forKey: .me)
        try c.encode(legsNextCursor, forKey: .legsNextCursor)
    }
}

/// `POST /v1/groups`.
public struct GroupCreate: Codable, Sendable, Hashable {
    public var name: String
    public var goalM: Double
    public var deadline: String?
    public var leaseHours: Double?
    public var autoPass: Bool?
    /// Which sports count, each with its factor; absent: run and walk, each as 1.
    public var sports: [String: Double]?

    public init(
        name: String, goalM: Double, deadline: String? = nil, leaseHours: Double? = nil, autoPass: Bool? = nil,
        sports: [String: Double]? = nil
    ) {
        self.name = name
        self.goalM = goalM
        self.deadline = deadline
        self.leaseHours = leaseHours
        self.autoPass = autoPass
        self.sports = sports
    }

    enum CodingKeys: String, CodingKey {
        case name, deadline, sports
        case goalM = "goal_m"
        case leaseHours = "lease_hours"
        case autoPass = "auto_pass"
    }
}

/// `PATCH /v1/groups/{group}`: absent keys keep their value; `"deadline": null` removes the
/// deadline (`.some(nil)`), an absent `deadline` keeps it (`nil`).
public struct GroupChange: Codable, Sendable, Hashable {
    public var name: String?
    public var goalM: Double?
    public var deadline: String??
    public var leaseHours: Double?
    public var newInviteCode: Bool?
    public var autoPass: Bool?
    /// Which sports count from now on (runs already counted stay as they counted).
    public var sports: [String: Double]?

    public init(
        name: String? = nil, goalM: Double? = nil, deadline: String?? = nil, leaseHours: Double? = nil,
        newInviteCode: Bool? = nil, autoPass: Bool? = nil, sports: [String: Double]? = nil
    ) {
        self.name = name
        self.goalM = goalM
        self.deadline = deadline
        self.leaseHours = leaseHours
        self.newInviteCode = newInviteCode
        self.autoPass = autoPass
        self.sports = sports
    }

    enum CodingKeys: String, CodingKey {
        case name, deadline, sports
        case goalM = "goal_m"
        case leaseHours = "lease_hours"
        case newInviteCode = "new_invite_code"
        case autoPass = "auto_pass"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        goalM = try c.decodeIfPresent(Double.self, forKey: .goalM)
        leaseHours = try c.decodeIfPresent(Double.self, forKey: .leaseHours)
        newInviteCode = try c.decodeIfPresent(Bool.self, forKey: .newInviteCode)
        autoPass = try c.decodeIfPresent(Bool.self, forKey: .autoPass)
        sports = try c.decodeIfPresent([String: Double].self, forKey: .sports)
        deadline = c.contains(.deadline) ? .some(try c.decodeIfPresent(String.self, forKey: .deadline)) : .none
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeIfPresent(goalM, forKey: .goalM)
        if case .some(let deadline) = deadline { try c.encode(deadline, forKey: .deadline) }
        try c.encodeIfPresent(leaseHours, forKey: .leaseHours)
        try c.encodeIfPresent(newInviteCode, forKey: .newInviteCode)
        try c.encodeIfPresent(autoPass, forKey: .autoPass)
        try c.encodeIfPresent(sports, forKey: .sports)
    }
}

/// `POST /v1/groups/join`.
public struct GroupJoin: Codable, Sendable, Hashable {
    public var inviteCode: String

    public init(inviteCode: String) { self.inviteCode = inviteCode }

    enum CodingKeys: String, CodingKey { case inviteCode = "invite_code" }
}

/// `PUT /v1/groups/{group}/rotation`: every member's username, in the baton's new order.
public struct Rotation: Codable, Sendable, Hashable {
    public var members: [String]

    public init(members: [String]) { self.members = members }
}
