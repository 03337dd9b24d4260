import Foundation
import HandoffModel
import Hummingbird
import NIOCore
import Photos
import WebForms

/// A photo on a page: where it is served, its size as shown (the page keeps its place before it
/// loads), words for those who cannot see it, and its owner's button to delete it.
struct Picture: Sendable, Equatable {
    var src: String
    var width: Int
    var height: Int
    var alt: String
    var delete: String?

    init(_ photo: StoredPhoto, alt: String, delete: String? = nil) {
        src = SitePath.photo(photo.key).path
        (width, height) = photo.shown
        self.alt = alt
        self.delete = delete
    }
}

/// The settings' profile photo form: the photo if there is one, who sees it, the file to send.
struct PhotoForm: Sendable, Equatable {
    var action = SitePath.settingsPhoto.path
    var current: Picture?
    var levels: [Preferences.Choice]
    var limit = "JPEG or PNG, at most 5 MB. Where and with what it was taken (its EXIF data) is removed."

    init(_ photo: StoredPhoto?, username: String) {
        current = photo.map { Picture($0, alt: "Your photo", delete: SitePath.settingsPhotoDelete.path) }
        levels = AudienceForm.choices(photo?.visibility ?? .private)
    }
}

/// A run's photos on its page, and the owner's form to add more.
struct RunPhotos: Sendable, Equatable {
    var pictures: [Picture]
    /// The owner's form, while the run has room.
    var add: String?
    var room = ""

    init(_ photos: [StoredPhoto], uuid: String, runner: String, owner: Bool) {
        pictures = photos.enumerated().map { index, photo in
            Picture(
                photo, alt: "Photo \(index + 1) of \(owner ? "your" : runner + "'s") run",
                delete: owner ? SitePath.runPhotoDelete(uuid, photo.key).path : nil)
        }
        if owner, photos.count < PhotoRules.mostPerRun {
            add = SitePath.runPhotos(uuid).path
            room =
                "Up to \(PhotoRules.mostPerRun - photos.count) more, JPEG or PNG, at most 5 MB each. Whoever sees the run sees them; where and with what each was taken (its EXIF data) is removed."
        }
    }
}

/// A form's parts, or the page that says why there are none.
enum FormOrPage {
    case form(MultipartForm)
    case page(Response)
}

extension WebPages {
    /// The parts of a photo form, or the page that says why there are none.
    private func photoForm(
        _ request: Request, _ limit: Int, _ account: Account, back: Link
    ) async throws -> FormOrPage {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            return .page(Self.photoRefused(PhotoRules.tooLarge, account, back))
        } catch is NIOTooManyBytesError {
            return .page(Self.photoRefused(PhotoRules.tooLarge, account, back))
        }
        guard let type = request.headers[.contentType], let boundary = MultipartForm.boundary(type),
            let form = try? MultipartForm(Array(buffer: buffer), boundary: boundary)
        else {
            return .page(
                Self.photoRefused(
                    StoreError(
                        .badRequest, "bad_multipart", "The form did not come as a file upload: send it from the page."),
                    account, back))
        }
        return .form(form)
    }

    static func photoRefused(_ error: StoreError, _ account: Account, _ back: Link) -> Response {
        message("Photo not stored", error.message, status: error.status, account: account, link: back)
    }

    func registerPhotoPages(_ router: PageRouter) {
        let repository = services.repository
        let settings = Link(href: SitePath.settings.path + "#photo", label: "Back to your settings")
        router.signedIn(.post, "/settings/photo") { request, context, account in
            let form: MultipartForm
            switch try await photoForm(request, PhotoRules.bodyLimit, account, back: settings) {
            case .form(let parts): form = parts
            case .page(let page): return page
            }
            do {
                let level = try RunVisibility.named(
                    form["visibility"].map { String(decoding: $0.body, as: UTF8.self) } ?? "private")
                if let file = form["photo"], !file.body.isEmpty {
                    _ = try await repository.setProfilePhoto(
                        account: account.id, try PhotoRules.clean(file.body), visibility: level, now: services.now())
                } else {
                    guard try await repository.setProfilePhotoVisibility(account: account.id, level) else {
                        throw StoreError(.unprocessableContent, "no_photo", "Choose a photo to send.")
                    }
                }
            } catch let error as StoreError where [413, 415, 422].contains(error.status.code) {
                return Self.photoRefused(error, account, settings)
            }
            return Self.redirect(SitePath.settings.path + "?done=photo")
        }
        router.signedIn(.post, "/settings/photo/delete") { _, _, account in
            _ = try await repository.deleteProfilePhoto(account: account.id)
            return Self.redirect(SitePath.settings.path + "?done=photo")
        }
        router.signedIn(.post, "/runs/:uuid/photos") { request, context, account in
            let uuid = try RunRoutes.uuid(context)
            let back = Link(href: SitePath.run(uuid, at: "photos").path, label: "Back to the run")
            let limit = PhotoRules.mostPerRun * PhotoRules.limits.bytes + 64 * 1024
            // Whose run it is before reading up to 50 MB of photos.
            guard let seen = try await repository.seenRun(uuid: uuid, viewer: account.id), seen.isOwner else {
                return Self.message(
                    "No such run", "You have no run at this address: it may have been deleted.", status: .notFound,
                    account: account, link: Link(href: SitePath.runs().path, label: "Your runs"))
            }
            let form: MultipartForm
            switch try await photoForm(request, limit, account, back: back) {
            case .form(let parts): form = parts
            case .page(let page): return page
            }
            let files = form.parts.filter { $0.name == "photo" && !$0.body.isEmpty }
            var refused: [String] = []
            for (index, file) in files.enumerated() {
                let name = file.filename.flatMap { $0.isEmpty ? nil : $0 } ?? "photo \(index + 1)"
                do {
                    _ = try await repository.addRunPhoto(
                        uuid: uuid, owner: account.id, try PhotoRules.clean(file.body), now: services.now())
                } catch let error as StoreError where error.status == .notFound {
                    return Self.message(
                        "No such run", "You have no run at this address: it may have been deleted.", status: .notFound,
                        account: account, link: Link(href: SitePath.runs().path, label: "Your runs"))
                } catch let error as StoreError where [409, 413, 415, 422].contains(error.status.code) {
                    refused.append("\(name): \(error.message)")
                }
            }
            guard !files.isEmpty else {
                return Self.photoRefused(
                    StoreError(.unprocessableContent, "no_photo", "Choose at least one photo to send."), account, back)
            }
            guard refused.isEmpty else {
                return Self.message(
                    refused.count == files.count ? "Photos not stored" : "Some photos not stored",
                    refused.joined(separator: " "), status: .unprocessableContent, account: account, link: back)
            }
            return Self.redirect(.run(uuid, at: "photos"))
        }
        router.signedIn(.post, "/runs/:uuid/photos/:key/delete") { _, context, account in
            let uuid = try RunRoutes.uuid(context)
            do {
                try await repository.deleteRunPhoto(
                    uuid: uuid, key: context.parameters.get("key") ?? "", owner: account.id)
            } catch let error as StoreError where error.status == .notFound {
                return Self.message(
                    "No such photo", "There is no photo of yours at this address: it may have been deleted.",
                    status: .notFound, account: account, link: Link(href: SitePath.runs().path, label: "Your runs"))
            }
            return Self.redirect(.run(uuid, at: "photos"))
        }
    }
}
