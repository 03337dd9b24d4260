import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird

struct AccountRoutes {
    let services: Services
    var accounts: AccountService { services.accounts }

    func register(_ router: RouteRecorder) {
        router.post("/v1/accounts") { request, context in
            let body = try await request.json(SignUp.self, context)
            let invite = body.inviteCode?.trimmingCharacters(in: .whitespaces).lowercased()
            let (account, issued) = try await accounts.signUp(
                email: body.email, username: body.username, password: body.password,
                address: services.clientAddress(request, context), inviteCode: invite)
            // Signing up with a group's invite code joins the group too.
            if let invite, !invite.isEmpty {
                _ = try? await services.repository.join(inviteCode: invite, account: account.id, now: services.now())
            }
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
            let body = try await request.json(AccountChange.self, context)
            let changed = try await accounts.update(
                account, token: token, username: body.username, email: body.email, password: body.password,
                currentPassword: body.currentPassword, address: services.clientAddress(request, context))
            return AccountView(changed)
        }
        router.delete("/v1/me") { request, context in
            let account = try await services.caller(request).account
            let body = try await request.json(AccountDeletion.self, context)
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
                account: account.id, weeks: count, now: services.now(), zone: account.timeZone)
            return Weeks(
                weeks: weeks.map {
                    Weeks.Week(
                        weekStarting: iso(WallInstant(nanosecondsSinceEpoch: $0.week)), distanceM: metres($0.mm),
                        runs: $0.runs)
                })
        }
    }
}
