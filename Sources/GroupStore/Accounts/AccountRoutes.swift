import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// An account as the API shows it: never its password hash.
struct AccountView: ResponseEncodable {
    let id: Int64
    let email: String
    let username: String
    let createdAt: String

    init(_ account: Account) {
        id = account.id
        email = account.email
        username = account.username
        createdAt = CivilTime(account.created).iso8601()
    }

    enum CodingKeys: String, CodingKey {
        case id, email, username
        case createdAt = "created_at"
    }
}

struct SignedIn: ResponseEncodable {
    let account: AccountView
    let token: String
    let expiresAt: String

    init(_ account: Account, _ issued: AccountService.Issued) {
        self.account = AccountView(account)
        token = issued.token
        expiresAt = issued.expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case account, token
        case expiresAt = "expires_at"
    }
}

struct AccountRoutes {
    let services: Services
    var accounts: AccountService { services.accounts }

    struct SignUp: Decodable {
        let email: String
        let username: String
        let password: String
    }

    struct SignIn: Decodable {
        let login: String
        let password: String
    }

    struct Change: Decodable {
        let username: String?
        let email: String?
        let password: String?
        let currentPassword: String?
        enum CodingKeys: String, CodingKey {
            case username, email, password
            case currentPassword = "current_password"
        }
    }

    struct Delete: Decodable {
        let password: String
    }

    struct Weeks: ResponseEncodable {
        struct Week: Encodable {
            let weekStarting: String
            let distanceM: Double
            let runs: Int64
            enum CodingKeys: String, CodingKey {
                case weekStarting = "week_starting"
                case distanceM = "distance_m"
                case runs
            }
        }
        let weeks: [Week]
    }

    func register(_ router: RouteRecorder) {
        router.post("/v1/accounts") { request, context in
            let body = try await request.json(SignUp.self, context)
            let (account, issued) = try await accounts.signUp(
                email: body.email, username: body.username, password: body.password,
                address: services.clientAddress(request, context))
            context.logger.info("Account created", metadata: ["account": "\(account.id)"])
            return EditedResponse(status: .created, response: SignedIn(account, issued))
        }
        router.post("/v1/sessions") { request, context in
            let body = try await request.json(SignIn.self, context)
            let (account, issued) = try await accounts.signIn(
                login: body.login, password: body.password, address: services.clientAddress(request, context))
            return SignedIn(account, issued)
        }
        router.delete("/v1/sessions/current") { request, _ in
            let token = try bearer(request)
            let credential = try await accounts.authenticate(token: token)
            // A pack signing out unlinks itself: its device goes with its token.
            if let device = credential.device {
                try await services.repository.revokeDevice(device, account: credential.account.id)
            } else {
                try await accounts.signOut(token: token)
            }
            return HTTPResponse.Status.noContent
        }
        router.get("/v1/me") { request, _ in
            AccountView(try await services.caller(request, device: true).account)
        }
        router.patch("/v1/me") { request, context in
            let token = try bearer(request)
            let account = try await services.caller(request).account
            let body = try await request.json(Change.self, context)
            let changed = try await accounts.update(
                account, token: token, username: body.username, email: body.email, password: body.password,
                currentPassword: body.currentPassword, address: services.clientAddress(request, context))
            return AccountView(changed)
        }
        router.delete("/v1/me") { request, context in
            let account = try await services.caller(request).account
            let body = try await request.json(Delete.self, context)
            try await accounts.delete(
                account, password: body.password, address: services.clientAddress(request, context))
            context.logger.info("Account deleted", metadata: ["account": "\(account.id)"])
            return HTTPResponse.Status.noContent
        }
        router.get("/v1/me/weeks") { request, _ in
            let account = try await services.caller(request).account
            let text = request.uri.queryParameters["count"].map(String.init) ?? "12"
            guard let count = Int(text), (1...520).contains(count) else {
                throw StoreError(.unprocessableContent, "invalid_count", "count is a number of weeks from 1 to 520")
            }
            let weeks = try await services.repository.weeklyDistance(
                account: account.id, weeks: count, now: services.now())
            return Weeks(
                weeks: weeks.map {
                    .init(
                        weekStarting: iso(WallInstant(nanosecondsSinceEpoch: $0.week)), distanceM: metres($0.mm),
                        runs: $0.runs)
                })
        }
    }
}
