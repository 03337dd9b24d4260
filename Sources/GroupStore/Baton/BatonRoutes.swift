import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird

/// A group's baton: who holds it and the legs run with it, and taking, renewing, passing and
/// releasing it. A pack's device token may do all of these.
struct BatonRoutes {
    let services: Services

    func register(_ router: RouteRecorder) {
        let repository = services.repository
        router.get("/v1/groups/:group/baton") { request, context in
            let account = try await services.caller(request, device: true).account
            let (baton, legs) = try await repository.baton(
                try context.id("group", "group"), account: account.id, now: services.now())
            return BatonState(
                baton: BatonView(baton), legs: legs.rows.map(LegView.init), legsNextCursor: legs.next?.text)
        }
        router.get("/v1/groups/:group/legs") { request, context in
            let account = try await services.caller(request, device: true).account
            let id = try context.id("group", "group")
            let limit = try request.pageLimit(
                standard: StoreRepository.legLimits.standard, most: StoreRepository.legLimits.most)
            let cursor = try request.pageCursor(.leg)
            return LegPage(try await repository.legs(id, account: account.id, after: cursor, limit: limit))
        }
        router.post("/v1/groups/:group/baton/take") { request, context in
            let account = try await services.caller(request, device: true).account
            return BatonView(
                try await repository.takeBaton(
                    try context.id("group", "group"), account: account.id, now: services.now()))
        }
        router.post("/v1/groups/:group/baton/renew") { request, context in
            let account = try await services.caller(request, device: true).account
            return BatonView(
                try await repository.renewBaton(
                    try context.id("group", "group"), account: account.id, now: services.now()))
        }
        router.post("/v1/groups/:group/baton/pass") { request, context in
            let account = try await services.caller(request, device: true).account
            var request = request
            let bytes = try await request.collectBody(upTo: context.maxUploadSize)
            let body =
                bytes.readableBytes == 0 ? BatonPass() : try StoreJSON.decoder.decode(BatonPass.self, from: bytes)
            return BatonView(
                try await repository.passBaton(
                    try context.id("group", "group"), account: account.id, to: body.to, now: services.now()))
        }
        router.post("/v1/groups/:group/baton/release") { request, context in
            let account = try await services.caller(request, device: true).account
            try await repository.releaseBaton(
                try context.id("group", "group"), account: account.id, now: services.now())
            return HTTPResponse.Status.noContent
        }
    }
}

extension BatonView: ResponseGenerator, ResponseEncodable {
    init(_ baton: Baton) {
        self.init(holder: baton.holderName, since: baton.since.map(iso), expiresAt: baton.expires.map(iso))
    }
}

extension LegView {
    init(_ leg: Leg) {
        self.init(
            id: leg.id, runner: leg.username, takenAt: iso(leg.taken), endedAt: leg.ended.map(iso),
            ended: leg.endedHow, passedTo: leg.passedTo, distanceM: metres(leg.distanceMM), runs: leg.runs)
    }
}

extension BatonState: ResponseGenerator, ResponseEncodable {}
