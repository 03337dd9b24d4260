import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird

/// Linking a pack (RFC 8628, the device authorization grant): the pack asks for a code, shows
/// the person the short user code and where to enter it, and polls; once the person enters the
/// code while signed in, the next poll returns a device token, good for uploading runs and the
/// baton until it is revoked. The pack has no screen and no browser: this is the flow made for
/// that. Errors keep the RFC's names as their codes (`authorization_pending`, `slow_down`,
/// `expired_token`) inside the API's usual error body.
struct DeviceRoutes {
    let services: Services

    static let codeLifetime: Int64 = 15 * 60
    static let pollInterval: Int64 = 5
    static let deviceTokenLifetime: Int64 = 10 * 365 * 86_400
    /// RFC 8628 §6.1: consonants only (no vowels, so no words), unambiguous, case-free.
    static let userCodeAlphabet = Array("BCDFGHJKLMNPQRSTVWXZ")

    /// Upper case, letters only: "bcdf-ghjk" and "BCDF GHJK" are the same code.
    static func normalize(_ code: String) -> String {
        String(code.uppercased().filter { $0.isASCII && $0.isLetter })
    }

    static func display(_ code: String) -> String { "\(code.prefix(4))-\(code.dropFirst(4))" }

    func register(_ router: RouteRecorder) {
        let repository = services.repository
        router.post("/v1/device/code") { request, context in
            let body = try await request.json(DeviceCodeRequest.self, context)
            let name = try TextRules.plain(body.name, field: "name").trimmingCharacters(in: .whitespaces)
            guard (1...64).contains(name.count) else {
                throw StoreError(
                    .unprocessableContent, "invalid_name",
                    "name the pack in 1 to 64 characters (it shows on your account)")
            }
            try await services.limitDeviceCodes(address: services.clientAddress(request, context))
            let deviceCode = AccountService.randomToken()
            var generator = SystemRandomNumberGenerator()
            let userCode = String((0..<8).map { _ in Self.userCodeAlphabet.randomElement(using: &generator)! })
            try await repository.createDeviceCode(
                deviceHash: AccountService.digest(deviceCode), userCode: userCode, name: name,
                lifetime: Self.codeLifetime, interval: Self.pollInterval, now: services.now())
            let page = services.origin(request) + "/device"
            return DeviceCode(
                deviceCode: deviceCode, userCode: Self.display(userCode), verificationURI: page,
                verificationURIComplete: page + "?code=" + Self.display(userCode), expiresIn: Self.codeLifetime,
                interval: Self.pollInterval)
        }
        router.post("/v1/device/token") { request, context in
            let body = try await request.json(DeviceTokenRequest.self, context)
            let token = AccountService.randomToken()
            let now = services.now()
            let expires = now.advanced(byNanoseconds: Self.deviceTokenLifetime * nanosecondsPerSecond)
            switch try await repository.pollDevice(
                deviceHash: AccountService.digest(body.deviceCode), tokenHash: AccountService.digest(token),
                tokenExpires: expires, now: now)
            {
            case .pending(let interval):
                throw StoreError(
                    .badRequest, "authorization_pending",
                    "the code has not been entered yet: ask again in \(interval) seconds")
            case .slowDown(let interval):
                throw StoreError(
                    .badRequest, "slow_down", "polling too fast: wait \(interval) seconds between polls")
            case .approved(let account, let name):
                guard let owner = try await repository.account(id: account) else { throw StoreError.unauthorized }
                context.logger.info("Pack linked", metadata: ["account": "\(account)", "device": "\(name)"])
                return DeviceToken(accessToken: token, expiresIn: Self.deviceTokenLifetime, account: AccountView(owner))
            }
        }
        router.post("/v1/device/approve") { request, context in
            let account = try await services.caller(request).account
            let body = try await request.json(DeviceApproval.self, context)
            try await services.limitDeviceApprovals(account: account.id)
            let name = try await repository.approveDevice(
                userCode: Self.normalize(body.userCode), account: account.id, now: services.now())
            return DeviceApproved(name: name)
        }
        router.get("/v1/devices") { request, _ in
            let account = try await services.caller(request).account
            return DeviceList(devices: try await repository.devices(account: account.id).map(DeviceView.init))
        }
        router.delete("/v1/devices/:device") { request, context in
            let account = try await services.caller(request).account
            try await repository.revokeDevice(try context.id("device", "device"), account: account.id)
            return HTTPResponse.Status.noContent
        }
    }
}

extension Services {
    /// Where people reach this store: the configured public URL, or the address it listens on.
    /// Never the request's `Host`: a client could put another site there, and the pack shows
    /// the address to its runner as the place to type the code.
    func origin(_ request: Request) -> String { origin }

    /// The address people reach the store at: the public one when set, else where it listens.
    var origin: String {
        let network = configuration.network
        if let url = network.publicURL { return url.hasSuffix("/") ? String(url.dropLast()) : url }
        let host = network.host.contains(":") ? "[\(network.host)]" : network.host
        return "http://\(host):\(listening.port ?? network.port)"
    }

    /// RFC 8628 §5.2: device codes asked for from one address are limited (each is a row).
    func limitDeviceCodes(address: String) async throws {
        if let wait = try await repository.countAttempt(
            key: "device-code:\(address)", limit: configuration.devices.codesPerAddress,
            windowSeconds: configuration.devices.windowSeconds, now: now())
        {
            throw StoreError(
                .tooManyRequests, "too_many_codes",
                "too many packs asked to link from your address: try again in \(wait / 60 + 1) minutes",
                retryAfter: Int(wait))
        }
    }

    /// RFC 8628 §5.1: user codes entered by one account are limited, so codes cannot be guessed.
    func limitDeviceApprovals(account: Int64) async throws {
        if let wait = try await repository.countAttempt(
            key: "device-approve:\(account)", limit: configuration.devices.approvalsPerAccount,
            windowSeconds: configuration.devices.windowSeconds, now: now())
        {
            throw StoreError(
                .tooManyRequests, "too_many_attempts",
                "too many codes entered: try again in \(wait / 60 + 1) minutes", retryAfter: Int(wait))
        }
    }
}
