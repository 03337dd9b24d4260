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
    let accounts: AccountService

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

    func register(_ group: RouterGroup<BasicRequestContext>) {
        group.post("accounts") { request, context in
            let body = try await request.decode(as: SignUp.self, context: context)
            let (account, issued) = try await accounts.signUp(
                email: body.email, username: body.username, password: body.password)
            context.logger.info("Account created", metadata: ["account": "\(account.id)"])
            return EditedResponse(status: .created, response: SignedIn(account, issued))
        }
        group.post("sessions") { request, context in
            let body = try await request.decode(as: SignIn.self, context: context)
            let (account, issued) = try await accounts.signIn(login: body.login, password: body.password)
            return SignedIn(account, issued)
        }
        group.delete("sessions/current") { request, _ in
            let token = try bearer(request)
            _ = try await accounts.authenticate(token: token)
            try await accounts.signOut(token: token)
            return HTTPResponse.Status.noContent
        }
        group.get("me") { request, _ in
            let (account, _) = try await accounts.authenticate(token: try bearer(request))
            return AccountView(account)
        }
        group.patch("me") { request, context in
            let token = try bearer(request)
            let (account, scope) = try await accounts.authenticate(token: token)
            try Self.person(scope)
            let body = try await request.decode(as: Change.self, context: context)
            let changed = try await accounts.update(
                account, token: token, username: body.username, email: body.email, password: body.password,
                currentPassword: body.currentPassword)
            return AccountView(changed)
        }
        group.delete("me") { request, context in
            let (account, scope) = try await accounts.authenticate(token: try bearer(request))
            try Self.person(scope)
            let body = try await request.decode(as: Delete.self, context: context)
            try await accounts.delete(account, password: body.password)
            context.logger.info("Account deleted", metadata: ["account": "\(account.id)"])
            return HTTPResponse.Status.noContent
        }
    }

    /// Account changes need a person's session, not a pack's device token.
    static func person(_ scope: TokenScope) throws(StoreError) {
        guard scope == .session else {
            throw StoreError(.forbidden, "wrong_scope", "a device token cannot change the account: sign in as a person")
        }
    }
}
