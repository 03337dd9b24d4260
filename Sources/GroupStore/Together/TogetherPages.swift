import Foundation
import HandoffModel
import Hummingbird

/// Who ran a run together, on its page: the friends named (with "asked" for those who have not
/// answered, and their own run when linked), the named friend's question, the owner's form to
/// name one and the offers of friends' runs that look like the same run.
struct TogetherPart: Sendable, Equatable {
    var names: [Name] = []
    var answer: Answer?
    var offers: [Offer] = []
    /// The owner's form.
    var add: String?

    struct Name: Sendable, Equatable {
        var person: Link
        var pending: Bool
        /// Their own run of it, when linked.
        var theirs: String?
        var remove: Remove?
    }

    struct Remove: Sendable, Equatable {
        var action: String
        var username: String
    }

    struct Answer: Sendable, Equatable {
        var text: String
        var accept: String
        var decline: String
    }

    struct Offer: Sendable, Equatable {
        var text: String
        var action: String
        var run: String
        var username: String
    }
}

/// A friend's run that names the person, on their home page, with the two answers.
struct TogetherAsk: Sendable, Equatable {
    var text: String
    var href: String
    var accept: String
    var decline: String

    init(_ link: TogetherLink, reader: Reader) {
        text =
            "\(link.owner) says you ran together: their run of \(PageFormat.time(link.started, zone: reader.zone).text)"
        href = SitePath.run(link.run, at: "together").path
        accept = SitePath.togetherAnswer(link.run, accept: true).path
        decline = SitePath.togetherAnswer(link.run, accept: false).path
    }
}

extension Services {
    /// Friends' runs that look like `run` run together (`TrackMatch`), for its owner.
    func togetherOffers(_ run: StoredRun) async throws -> [TogetherOffer] {
        let candidates = try await repository.togetherCandidates(run: run)
        guard !candidates.isEmpty, let mine = try await facts(uuid: run.uuid, account: run.accountID)?.track else {
            return []
        }
        var offers: [TogetherOffer] = []
        for (other, runner) in candidates {
            guard let theirs = try await facts(uuid: other.uuid, account: other.accountID)?.track else { continue }
            let share = TrackMatch.together(mine.positions, theirs.positions)
            if share >= TrackMatch.share { offers.append(TogetherOffer(run: other, runner: runner, share: share)) }
        }
        return offers
    }
}

extension WebPages {
    /// The run page's part for `viewer`; nil when there is nothing to show them.
    func togetherPart(_ seen: SeenRun, viewer: Account?) async throws -> TogetherPart? {
        let run = seen.run
        let links = try await services.repository.togetherLinks(run: run.id, owner: run.accountID, viewer: viewer?.id)
        var part = TogetherPart()
        for link in links {
            // The friend's own run is linked only for a viewer who may see it too.
            var theirs: String?
            if let other = link.friendRun, try await services.repository.seenRun(uuid: other, viewer: viewer?.id) != nil
            {
                theirs = SitePath.run(other).path
            }
            part.names.append(
                TogetherPart.Name(
                    person: Link(href: SitePath.person(link.friend).path, label: link.friend), pending: !link.accepted,
                    theirs: theirs,
                    remove: seen.isOwner
                        ? TogetherPart.Remove(action: SitePath.togetherRemove(run.uuid).path, username: link.friend)
                        : nil))
        }
        if let viewer, let mine = links.first(where: { $0.friendID == viewer.id }), !mine.accepted {
            part.answer = TogetherPart.Answer(
                text: "\(seen.runner) says you ran this together. Say yes and it shows on your page as run together.",
                accept: SitePath.togetherAnswer(run.uuid, accept: true).path,
                decline: SitePath.togetherAnswer(run.uuid, accept: false).path)
        }
        if seen.isOwner {
            part.add = SitePath.together(run.uuid).path
            let zone = viewer?.timeZone ?? "UTC"
            part.offers = try await services.togetherOffers(run).map { offer in
                let minutes =
                    abs(offer.run.started.nanosecondsSinceEpoch - run.started.nanosecondsSinceEpoch)
                    / (60 * nanosecondsPerSecond)
                return TogetherPart.Offer(
                    text:
                        "\(offer.runner)'s run of \(PageFormat.time(offer.run.started, zone: zone).text) started \(minutes == 0 ? "within a minute of" : "\(minutes) min from") yours and kept within 100 m of your way for \(Int((offer.share * 100).rounded(.down))) % of it.",
                    action: SitePath.together(run.uuid).path, run: offer.run.uuid, username: offer.runner)
            }
        }
        return part.names.isEmpty && part.add == nil && part.answer == nil ? nil : part
    }

    func registerTogetherPages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.post, "/runs/:uuid/together") { request, context, account in
            let form = try await Self.form(request, context)
            return try await Self.seenRun(context, account) { uuid in
                try await linkTogether(uuid: uuid, owner: account, username: form["username"] ?? "", run: form["run"])
                return Self.redirect(.run(uuid, at: "together"))
            }
        }
        router.signedIn(.post, "/runs/:uuid/together/remove") { request, context, account in
            let form = try await Self.form(request, context)
            return try await Self.seenRun(context, account) { uuid in
                try await repository.removeTogether(uuid: uuid, owner: account.id, friend: form["username"] ?? "")
                return Self.redirect(.run(uuid, at: "together"))
            }
        }
        // Each path written out: scripts/check_openapi.py reads them from here.
        let answer = { @Sendable (context: StoreContext, account: Account, accept: Bool) async throws -> Response in
            try await Self.seenRun(context, account) { uuid in
                try await repository.answerTogether(
                    uuid: uuid, account: account.id, accept: accept, now: services.now())
                return Self.redirect(.run(uuid, at: "together"))
            }
        }
        router.signedIn(.post, "/runs/:uuid/together/accept") { try await answer($1, $2, true) }
        router.signedIn(.post, "/runs/:uuid/together/decline") { try await answer($1, $2, false) }
    }

    /// Names `username` on the owner's run; with `run`, links the friend's own run, which must be
    /// one the detector offers.
    func linkTogether(uuid: String, owner: Account, username: String, run other: String?) async throws {
        var friendRun: StoredRun?
        if let other, !other.isEmpty {
            let other = other.lowercased()
            if let back = try await services.repository.linkedBack(uuid: uuid, owner: owner.id, theirs: other) {
                friendRun = back
            } else {
                guard let seen = try await services.repository.seenRun(uuid: uuid, viewer: owner.id), seen.isOwner,
                    let offer = try await services.togetherOffers(seen.run).first(where: { $0.run.uuid == other })
                else { throw StoreRepository.notTogether }
                friendRun = offer.run
            }
        }
        try await services.repository.linkTogether(
            uuid: uuid, owner: owner.id, friend: friendRun.map { _ in username } ?? username, friendRun: friendRun,
            now: services.now())
    }
}
