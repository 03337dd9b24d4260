import Photos

@testable import GroupStore

/// Photos in the fixtures: a portrait JPEG turned by its orientation, and a PNG.
extension PageMakers {
    static let photos = [
        StoredPhoto(
            id: 1, key: "3f2a9c0d5e6b7a8190c1d2e3f4a5b6c7", accountID: 1, runID: 1, format: .jpeg, width: 4032,
            height: 3024, orientation: 6, size: 2_400_000),
        StoredPhoto(
            id: 2, key: "0a1b2c3d4e5f60718293a4b5c6d7e8f9", accountID: 1, runID: 1, format: .png, width: 800,
            height: 600, size: 400_000),
    ]

    func picture(_ p: Picture) -> Picture {
        var p = p
        (p.src, p.alt, p.delete) = (t(p.src), t(p.alt), p.delete.map(t))
        return p
    }

    func runPhotos(owner: Bool) -> RunPhotos {
        var photos = RunPhotos(
            Self.photos, uuid: "0f8fad5b-d9cb-469f-a165-70867728950e", runner: "bob", owner: owner)
        photos.pictures = photos.pictures.map(picture)
        photos.add = photos.add.map(t)
        photos.room = t(photos.room)
        return photos
    }

    func photoForm(_ photo: StoredPhoto?) -> PhotoForm {
        var form = PhotoForm(photo, username: "ada")
        form.action = t(form.action)
        form.current = form.current.map(picture)
        form.levels = form.levels.map(choice)
        form.limit = t(form.limit)
        return form
    }
}

/// Running together in the fixtures: bob asked on ada's run, cleo agreed with her own run; an
/// offer of dan's run; bob's question on a friend's page.
extension PageMakers {
    static let link = TogetherLink(
        run: "0f8fad5b-d9cb-469f-a165-70867728950e", owner: "ada", ownerID: 1, friend: "bob", friendID: 2,
        friendRun: nil, accepted: false, started: PageFixture.now)

    func together(_ ask: TogetherAsk) -> TogetherAsk {
        var ask = ask
        (ask.text, ask.href, ask.accept, ask.decline) = (t(ask.text), t(ask.href), t(ask.accept), t(ask.decline))
        return ask
    }

    func togetherPart(owner: Bool) -> TogetherPart {
        let uuid = "0f8fad5b-d9cb-469f-a165-70867728950e"
        var part = TogetherPart()
        part.names = [
            .init(
                person: link(Link(href: "/people/bob", label: "bob")), pending: true, theirs: nil,
                remove: owner ? .init(action: t(SitePath.togetherRemove(uuid).path), username: t("bob")) : nil),
            .init(
                person: link(Link(href: "/people/cleo", label: "cleo")), pending: false,
                theirs: t("/runs/6a1f7c3e-2b4d-4e8f-9a0b-1c2d3e4f5a6b"), remove: nil),
        ]
        if owner {
            part.add = t(SitePath.together(uuid).path)
            part.offers = [
                .init(
                    text: t(
                        "dan's run of 7 Jun, 06:31 started 2 min from yours and kept within 100 m of your way for 96 % of it."
                    ),
                    action: t(SitePath.together(uuid).path), run: t("7b2e8d4f-3c5a-4f9b-8a1c-2d3e4f5a6b7c"),
                    username: t("dan"))
            ]
        } else {
            part.answer = .init(
                text: t("ada says you ran this together. Say yes and it shows on your page as run together."),
                accept: t(SitePath.togetherAnswer(uuid, accept: true).path),
                decline: t(SitePath.togetherAnswer(uuid, accept: false).path))
        }
        return part
    }
}

/// A public run's share page, for someone signed out.
extension PageMakers {
    func share() -> SharePage {
        let uuid = "0f8fad5b-d9cb-469f-a165-70867728950e"
        return SharePage(
            frame: frame("Hills <3", viewer: nil), when: t("Sun 7 Jun 2026, 06:29 UTC"), runner: t("ada"),
            person: t(SitePath.person("ada").path), card: t(SitePath.runCard(uuid).path),
            alt: t("Hills <3: 5.11 km in 29:14, 5:43 /km"),
            stats: [.init(label: t("Distance"), value: t("5.11 km")), .init(label: t("Time"), value: t("29:14"))],
            description: t("Windy.\nLegs heavy."), run: t(SitePath.run(uuid).path))
    }
}
