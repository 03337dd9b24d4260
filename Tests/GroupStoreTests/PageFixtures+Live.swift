import Foundation
import HandoffModel

@testable import GroupStore

/// The live pages' fixtures: a run out for 40 minutes around a park with a two-minute silence,
/// as its group sees it (the group page), as a share link shows it once quiet, and as its runner
/// sees it with two links in force and one just made; and the runner's page with nothing live.
extension PageMakers {
    static let liveRun = LiveRun(
        id: 1, account: 2, runner: "bob", uuid: "0f8fad5b-d9cb-469f-a165-70867728950e", sport: "run",
        started: PageFixture.now.advanced(byNanoseconds: -2_410 * nanosecondsPerSecond),
        contact: PageFixture.now.advanced(byNanoseconds: -10 * nanosecondsPerSecond), ended: nil, pointCount: 150,
        audience: .init(run: .groups, map: .groups))

    /// Every 15 s of 40 minutes at 3.2 m/s on a circle of 1.4 km around Vienna's Stadtpark, with
    /// nothing heard between 14:00 and 16:30.
    static var liveSamples: [LiveSample] {
        stride(from: 0, through: 2_400, by: 15).filter { !(841..<990).contains($0) }.map { t in
            let distance = Double(t) * 3.2
            let angle = distance / 1_400
            let lat = 48.2035 + 1_400 * sin(angle) / 111_320
            let lon = 16.3800 + 1_400 * (1 - cos(angle)) / (111_320 * cos(48.2 * .pi / 180))
            return LiveSample(
                elapsed: t, at: PageFixture.now.advanced(byNanoseconds: Int64(t - 2_410) * nanosecondsPerSecond),
                latE7: Int64((lat * 1e7).rounded()), lonE7: Int64((lon * 1e7).rounded()),
                distanceMM: Int64(distance * 1000), speedMMPS: 3_200, heartRate: 148 + t % 7)
        }
    }

    func liveCard(_ sight: LiveSight, quiet: Bool = false, refresh: String) -> LiveCard {
        var run = Self.liveRun
        if quiet { run.contact = PageFixture.now.advanced(byNanoseconds: -300 * nanosecondsPerSecond) }
        var card = LiveCard(run, Self.liveSamples, sight: sight, units: .km, now: PageFixture.now, refresh: refresh)
        card.runner = t(card.runner)
        card.headline = t(card.headline)
        card.facts = card.facts.map { .init(label: t($0.label), value: t($0.value)) }
        card.noMap = card.noMap.map(t)
        card.silences = card.silences.map(t)
        card.refresh = t(card.refresh)
        card.shareRun = card.shareRun.map(t)
        if var map = card.map {
            map.viewBox = t(map.viewBox)
            map.lines = map.lines.map(t)
            map.gaps = map.gaps.map { .init(x1: t($0.x1), y1: t($0.y1), x2: t($0.x2), y2: t($0.y2)) }
            map.start = map.start.map { .init(x: t($0.x), y: t($0.y)) }
            map.now = .init(x: t(map.now.x), y: t(map.now.y))
            map.label = t(map.label)
            card.map = map
        }
        return card
    }

    /// The group page with the holder's live card: as a group-mate sees it, with the map or
    /// without (the holder shows maps to fewer people), and as the holder sees it.
    func groupLive(_ sight: LiveSight) -> GroupPageModel {
        var model = group(.top)
        model.held?.live = liveCard(sight, refresh: "/groups/7")
        return model
    }

    func liveShare() -> LiveSharePage {
        LiveSharePage(frame: frame("bob, live", viewer: nil), card: liveCard(.link, quiet: true, refresh: "/live/0123"))
    }

    func myLive(live: Bool) -> MyLivePage {
        var page = MyLivePage(frame: frame("Live", viewer: "bob"))
        guard live else { return page }
        page.card = liveCard(.runner, refresh: "/me/live")
        page.made = t("https://store.example.org/live/0123456789abcdef")
        page.share = .init(
            action: t("/me/live/links"),
            links: [
                .init(
                    made: time(60), until: t("until Wed 25 Nov 2026, 19:48 UTC"), revoke: t("/me/live/links/4/revoke")),
                .init(made: time(2_000), until: t("until the run ends"), revoke: t("/me/live/links/3/revoke")),
            ])
        return page
    }
}
