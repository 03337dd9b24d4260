import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird

extension ReportView: ResponseGenerator, ResponseEncodable {}

/// Reports over the API: a person's session reports a comment or profile they may see (the same
/// 404 as for nothing there when they may not). The operator reads and resolves reports with
/// `handoff-store moderation`, not over HTTP: no account is the operator's.
struct ModerationRoutes {
    let services: Services

    func register(_ router: RouteRecorder) {
        router.post("/v1/reports") { request, context in
            let account = try await services.caller(request).account
            let body = try await request.json(ReportBody.self, context)
            let target: ReportTarget
            switch (body.kind, body.run, body.comment, body.username) {
            case ("comment", let run?, let comment?, nil):
                guard UUID(uuidString: run) != nil else { throw StoreRepository.noComment }
                target = .comment(uuid: run.lowercased(), id: comment)
            case ("profile", nil, nil, let username?):
                target = .profile(username: username)
            default:
                throw StoreError(
                    .unprocessableContent, "invalid_report",
                    "a report is {\"kind\": \"comment\", \"run\": UUID, \"comment\": ID, \"reason\": …} or {\"kind\": \"profile\", \"username\": …, \"reason\": …}"
                )
            }
            let report = try await services.repository.report(
                target, reporter: account.id, reason: body.reason, now: services.now())
            return EditedResponse(
                status: .created,
                response: ReportView(
                    id: report.id, kind: report.kind, createdAt: report.createdAt, resolved: report.resolvedAt != nil))
        }
    }
}
