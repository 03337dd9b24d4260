import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird

/// Live tracking (issue 35). A pack sends its run as it happens, `POST /v1/live/{run}` under the
/// run's UUID, with its device token; its runner reads it back (`GET /v1/live/{run}`) and makes
/// and revokes share links; a group's members read the baton holder's
/// (`GET /v1/groups/{id}/live`).
struct LiveRoutes {
    let services: Services

    func register(_ router: RouteRecorder) {
        let repository = services.repository
        router.post("/v1/live/:run") { request, context -> LiveAccepted in
            let account = try await services.caller(request, device: true).account
            let uuid = try RunRoutes.uuid(context, parameter: "run")
            let batch = try LiveBatch(try await request.json(LiveUpdate.self, context))
            let (accepted, points) = try await repository.liveUpdate(
                account: account.id, uuid: uuid, batch: batch, now: services.now())
            return LiveAccepted(run: uuid, accepted: accepted, points: points)
        }
        router.get("/v1/live/:run") { request, context -> LiveRunView in
            let account = try await services.caller(request, device: true).account
            let run = try await ownRun(account.id, context)
            return LiveSight.runner.view(run, try await repository.livePoints(run))
        }
        router.get("/v1/groups/:group/live") { request, context -> LiveRunView in
            let account = try await services.caller(request, device: true).account
            let team = try context.id("group", "group")
            guard let run = try await repository.holderLiveRun(team: team, viewer: account.id, now: services.now()),
                let sight = run.account == account.id ? .runner : LiveSight.groupMate(run.audience)
            else {
                throw StoreError(
                    .notFound, "no_live_run",
                    "nobody is out live with this group's baton now (or the runner shares their runs with fewer people)"
                )
            }
            return sight.view(run, try await repository.livePoints(run))
        }
        router.post("/v1/live/:run/links") { request, context -> EditedResponse<LiveLinkView> in
            let account = try await services.caller(request, device: true).account
            let run = try await ownRun(account.id, context)
            var request = request
            let bytes = try await request.collectBody(upTo: context.maxUploadSize)
            let asked =
                bytes.readableBytes == 0
                ? LiveLinkRequest() : try StoreJSON.decoder.decode(LiveLinkRequest.self, from: bytes)
            let view = try await services.newLiveLink(run, hours: asked.hours, origin: services.origin(request))
            return EditedResponse(status: .created, response: view)
        }
        router.get("/v1/live/:run/links") { request, context -> LiveLinkList in
            let account = try await services.caller(request, device: true).account
            let run = try await ownRun(account.id, context)
            return LiveLinkList(
                links: try await repository.liveLinks(run, now: services.now()).map {
                    LiveLinkView(
                        id: $0.id, run: run.uuid, url: nil, createdAt: iso($0.created), expiresAt: $0.expires.map(iso))
                })
        }
        router.delete("/v1/live/links/:link") { request, context -> HTTPResponse.Status in
            let account = try await services.caller(request, device: true).account
            let id = try context.id("link", "live_link")
            guard try await repository.revokeLiveLink(id, account: account.id, now: services.now()) else {
                throw StoreError.notFound("live_link", id)
            }
            return .noContent
        }
    }

    /// The caller's own live run named by the path's UUID.
    private func ownRun(_ account: Int64, _ context: StoreContext) async throws -> LiveRun {
        let uuid = try RunRoutes.uuid(context, parameter: "run")
        guard let run = try await services.repository.liveRun(account: account, uuid: uuid) else {
            throw StoreError(
                .notFound, "live_run_not_found",
                "there is no live run \(uuid) of yours: the pack sends one when a run starts with `handoff start --live`"
            )
        }
        return run
    }
}

extension Services {
    /// A new share link to `run`: until the run ends, or for `hours` (1 to 48) at most.
    func newLiveLink(_ run: LiveRun, hours: Int?, origin: String) async throws -> LiveLinkView {
        let now = now()
        guard !run.isOver(at: now) else { throw StoreRepository.liveEnded }
        if let hours, !LiveRun.linkHours.contains(hours) {
            throw StoreError(
                .unprocessableContent, "invalid_hours",
                "hours is how long the link lasts, \(LiveRun.linkHours.lowerBound) to \(LiveRun.linkHours.upperBound); leave it out for a link that lasts until the run ends"
            )
        }
        let expires = hours.map { now.advanced(byNanoseconds: Int64($0) * 3600 * 1_000_000_000) }
        let (id, token) = try await repository.createLiveLink(run, expires: expires, now: now)
        return LiveLinkView(
            id: id, run: run.uuid, url: origin + SitePath.live(token: token).path, createdAt: iso(now),
            expiresAt: expires.map(iso))
    }
}

extension LiveAccepted: ResponseGenerator, ResponseEncodable {}
extension LiveRunView: ResponseGenerator, ResponseEncodable {}
extension LiveLinkView: ResponseGenerator, ResponseEncodable {}
extension LiveLinkList: ResponseGenerator, ResponseEncodable {}
