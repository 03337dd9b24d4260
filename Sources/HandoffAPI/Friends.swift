/// `POST /v1/friends` and `POST /v1/blocks`: the other person, by username.
public struct FriendAsk: Codable, Sendable, Hashable {
    public var username: String

    public init(username: String) { self.username = username }
}

/// One person in `GET /v1/friends`: a friend, someone the caller asked (`asked`), or someone
/// asking the caller (`asking`: `POST /v1/friends/{username}/accept` makes them friends).
public struct FriendView: Codable, Sendable, Hashable {
    public var username: String
    public var status: String

    public init(username: String, status: String) {
        self.username = username
        self.status = status
    }
}

/// `GET /v1/friends`: friends and open asks both ways, by name.
public struct FriendList: Codable, Sendable, Hashable {
    public var friends: [FriendView]

    public init(friends: [FriendView]) { self.friends = friends }
}
