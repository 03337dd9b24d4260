// Linking a pack (RFC 8628): the pack asks for a code, a signed-in person approves it, the
// pack's next poll gets a device token.

/// `POST /v1/device/code`.
public struct DeviceCodeRequest: Codable, Sendable, Hashable {
    /// The pack's name, as its account shows it.
    public var name: String

    public init(name: String) { self.name = name }
}

/// `POST /v1/device/code`'s reply.
public struct DeviceCode: Codable, Sendable, Hashable {
    public var deviceCode: String
    public var userCode: String
    public var verificationURI: String
    public var verificationURIComplete: String
    public var expiresIn: Int64
    public var interval: Int64

    public init(
        deviceCode: String, userCode: String, verificationURI: String, verificationURIComplete: String,
        expiresIn: Int64, interval: Int64
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
        case interval
    }
}

/// `POST /v1/device/token`: one poll.
public struct DeviceTokenRequest: Codable, Sendable, Hashable {
    public var deviceCode: String

    public init(deviceCode: String) { self.deviceCode = deviceCode }

    enum CodingKeys: String, CodingKey { case deviceCode = "device_code" }
}

/// `POST /v1/device/token`'s reply once the code is approved.
public struct DeviceToken: Codable, Sendable, Hashable {
    public var accessToken: String
    public var tokenType: String
    public var scope: String
    public var expiresIn: Int64
    public var account: AccountView

    public init(
        accessToken: String, tokenType: String = "Bearer", scope: String = "runs baton", expiresIn: Int64,
        account: AccountView
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.scope = scope
        self.expiresIn = expiresIn
        self.account = account
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case scope
        case expiresIn = "expires_in"
        case account
    }
}

/// `POST /v1/device/approve`.
public struct DeviceApproval: Codable, Sendable, Hashable {
    public var userCode: String

    public init(userCode: String) { self.userCode = userCode }

    enum CodingKeys: String, CodingKey { case userCode = "user_code" }
}

/// `POST /v1/device/approve`'s reply: the pack's name.
public struct DeviceApproved: Codable, Sendable, Hashable {
    public var name: String

    public init(name: String) { self.name = name }
}

/// A linked pack (`Device`).
public struct DeviceView: Codable, Sendable, Hashable {
    public var id: Int64
    public var name: String
    public var linkedAt: String
    public var lastSeenAt: String

    public init(id: Int64, name: String, linkedAt: String, lastSeenAt: String) {
        self.id = id
        self.name = name
        self.linkedAt = linkedAt
        self.lastSeenAt = lastSeenAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case linkedAt = "linked_at"
        case lastSeenAt = "last_seen_at"
    }
}

/// `GET /v1/devices`.
public struct DeviceList: Codable, Sendable, Hashable {
    public var devices: [DeviceView]

    public init(devices: [DeviceView]) { self.devices = devices }
}
