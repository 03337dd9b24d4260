extension StoreApplication {
    /// What the operator sets (handoff-store's options): where the store listens, its accounts,
    /// uploads and device-linking limits, and the baton's default lease.
    public struct Configuration: Sendable {
        public var network = Network()
        public var accounts = AccountService.Configuration()
        public var uploads = Uploads()
        public var devices = DeviceLimits()
        /// How long a baton stays with a holder whose pack has gone quiet, unless the group says.
        public var defaultLeaseSeconds: Int64 = 6 * 3600
        /// Map tiles under a run's route, only when the operator sets them.
        public var mapTiles: MapTiles?
        public var live = Live()
        /// E-mail, only when the operator sets an SMTP server (`--smtp`).
        public var mail: Mail?
        public init() {}
    }
}

extension StoreApplication.Configuration {
    /// Where and how the store sends e-mail (`Mailer`).
    public struct Mail: Sendable {
        public var smtp: SMTPConfiguration
        /// How often the mailer looks for mail to send.
        public var interval: Duration = .seconds(1)
        /// The most one message's exchange with the SMTP server may take.
        public var timeout: Duration = .seconds(30)
        public init(smtp: SMTPConfiguration) { self.smtp = smtp }
    }
}

extension StoreApplication.Configuration {
    /// The group as it happens (issue 35).
    public struct Live: Sendable {
        /// How often an event stream (`GET /v1/groups/{id}/events`) with nothing to say sends a
        /// comment, so that proxies keep it open and a vanished client is noticed; each also
        /// reads the group's events again.
        public var heartbeat: Duration = .seconds(15)
        public init() {}
    }
}

extension StoreApplication.Configuration {
    /// Where the store listens, the address people reach it at, how long a connection may be
    /// slow, and whom to trust for the client's address.
    public struct Network: Sendable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// The address people open for the device page, when the store is behind a proxy;
        /// otherwise the address the store listens on (never the request's Host, which the
        /// client chooses).
        public var publicURL: String?
        /// A connection that has not sent a whole request head this long after connecting is
        /// closed (`HeaderTimeoutHandler`): a client that connects and trickles holds nothing.
        public var headerTimeout: Duration = .seconds(10)
        /// A kept-alive connection that has sent no whole request part this long after its
        /// previous response (or, mid-head, after its last part) is closed (Hummingbird's
        /// `idleTimeout`).
        public var idleTimeout: Duration = .seconds(300)
        /// The reverse proxy's address: requests from it are counted under the last address of
        /// their `X-Forwarded-For`. Unset, that header is ignored.
        public var trustedProxy: String?
        public init() {}
    }

    /// Activity files: the largest accepted, and how many are read at once.
    public struct Uploads: Sendable {
        /// The largest activity file accepted.
        public var maxRunBytes = 32 * 1024 * 1024
        /// Uploaded activity files read at once, off the cooperative pool; more wait in a queue
        /// of `queue`, beyond which uploads are answered `503` with `Retry-After`.
        public var concurrency = 2
        public var queue = 256
        public init() {}
    }

    /// Device codes asked for from one client address, and wrong user codes entered by one
    /// account, within `windowSeconds` (RFC 8628 §5.1, §5.2).
    public struct DeviceLimits: Sendable {
        public var codesPerAddress = 30
        public var approvalsPerAccount = 10
        public var windowSeconds: Int64 = 15 * 60
        public init() {}
    }
}
