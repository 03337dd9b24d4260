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
