import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird
import NIOCore
import Photos

extension PhotoView: ResponseGenerator, ResponseEncodable {}
extension PhotoList: ResponseGenerator, ResponseEncodable {}

extension PhotoView {
    init(_ photo: StoredPhoto) {
        let shown = photo.shown
        self.init(
            key: photo.key, url: SitePath.photo(photo.key).path, format: photo.format.rawValue, width: shown.width,
            height: shown.height, size: photo.size, visibility: photo.runID == nil ? photo.visibility.rawValue : nil)
    }
}

/// Photos over the API (a person's session): the caller's profile photo and their runs' photos,
/// sent as the image itself (`Content-Type: image/jpeg` or `image/png`; the type is judged by the
/// bytes, never the header); and every photo served at `/photos/{key}` to whoever may see it.
struct PhotoRoutes {
    let services: Services

    /// The body of a photo upload, at most one photo's limit: past it, a 413 that says so.
    static func body(_ request: Request) async throws -> [UInt8] {
        var request = request
        do {
            return Array(buffer: try await request.collectBody(upTo: PhotoRules.bodyLimit))
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw PhotoRules.tooLarge
        } catch is NIOTooManyBytesError {
            throw PhotoRules.tooLarge
        }
    }

    func register(_ router: RouteRecorder) {
        let repository = services.repository
        router.put("/v1/me/photo") { request, _ in
            let account = try await services.caller(request).account
            let level = try RunVisibility.named(request.uri.queryParameters.get("visibility") ?? "private")
            let photo = try PhotoRules.clean(try await Self.body(request))
            return PhotoView(
                try await repository.setProfilePhoto(account: account.id, photo, visibility: level, now: services.now())
            )
        }
        router.get("/v1/me/photo") { request, _ in
            let account = try await services.caller(request).account
            guard let photo = try await repository.profilePhoto(account: account.id) else { throw PhotoRules.noPhoto }
            return PhotoView(photo)
        }
        router.delete("/v1/me/photo") { request, _ in
            let account = try await services.caller(request).account
            guard try await repository.deleteProfilePhoto(account: account.id) else { throw PhotoRules.noPhoto }
            return HTTPResponse.Status.noContent
        }
        router.get("/v1/runs/:uuid/photos") { request, context in
            let account = try await services.caller(request).account
            let uuid = try RunRoutes.uuid(context)
            guard let seen = try await repository.seenRun(uuid: uuid, viewer: account.id) else {
                throw StoreError.notFound("run", uuid)
            }
            let photos = try await repository.runPhotos([seen.run.id])[seen.run.id] ?? []
            return PhotoList(photos: photos.map(PhotoView.init))
        }
        router.post("/v1/runs/:uuid/photos") { request, context in
            let account = try await services.caller(request).account
            let uuid = try RunRoutes.uuid(context)
            let photo = try PhotoRules.clean(try await Self.body(request))
            let stored = try await repository.addRunPhoto(uuid: uuid, owner: account.id, photo, now: services.now())
            return EditedResponse(status: .created, response: PhotoView(stored))
        }
        router.delete("/v1/runs/:uuid/photos/:key") { request, context in
            let account = try await services.caller(request).account
            try await repository.deleteRunPhoto(
                uuid: try RunRoutes.uuid(context), key: context.parameters.get("key") ?? "", owner: account.id)
            return HTTPResponse.Status.noContent
        }
        // Served to a page's <img> (its cookie) or an API client (its bearer token): the same
        // 404 for no photo and for one the viewer may not see; its own type, never sniffed.
        router.get("/photos/:key") { request, context in
            var viewer = try await WebPages(services: services).signedIn(request)?.id
            if viewer == nil, request.headers[.authorization] != nil {
                viewer = try await services.caller(request).account.id
            }
            guard
                let (photo, bytes) = try await repository.seenPhoto(
                    key: context.parameters.get("key") ?? "", viewer: viewer)
            else { throw PhotoRules.noPhoto }
            let etag = "\"\(photo.key)\""
            var headers: HTTPFields = [
                .contentType: photo.format.mediaType,
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                .contentSecurityPolicy: "default-src 'none'; sandbox",
                // Who may see it can change: the browser asks again each time, and a photo it
                // has is confirmed with a 304.
                .cacheControl: "private, no-cache",
                .eTag: etag,
            ]
            if request.headers[.ifNoneMatch] == etag {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentDisposition] = "inline; filename=\"photo.\(photo.format.fileExtension)\""
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }
}
