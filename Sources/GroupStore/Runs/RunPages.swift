import ActivityFormats
import Crypto
import Foundation
import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird
import WebForms

/// The pages of a person's runs: the list, a run's page, its files, deleting it, and uploading
/// files from any watch.
extension WebPages {
    /// Runs on a page of the list.
    static let runsPerPage = 25
    /// Files in one upload.
    static let filesPerUpload = 20

    func registerRunPages(_ router: PageRouter) {
        let repository = services.repository
        router.signedIn(.get, "/runs", next: { $0.uri.path }) { request, _, account in
            var cursor: StoreRepository.RunCursor?
            if let text = request.uri.queryParameters["after"].map(String.init) {
                guard let parsed = StoreRepository.RunCursor(text) else {
                    return Self.message(
                        "Not a page of your runs", "This link to a page of runs is not one this site made.",
                        status: .unprocessableContent, account: account,
                        link: Link(href: SitePath.runs().path, label: "Your newest runs"))
                }
                cursor = parsed
            }
            let page = try await repository.runs(
                account: account.id, limit: Self.runsPerPage, before: nil, after: cursor)
            return Self.render(
                RunListPage(
                    runs: page.runs.map(\.0), next: page.next?.text, reader: Reader(account), viewer: account.username))
        }
        router.signedIn(.get, "/runs/upload", next: { _ in SitePath.upload.path }) { _, _, account in
            Self.render(
                UploadPage(
                    viewer: account.username, limitBytes: services.configuration.uploads.maxRunBytes,
                    reader: Reader(account), now: services.now()))
        }
        router.signedIn(.post, "/runs/upload", next: { _ in SitePath.upload.path }) { request, context, account in
            try await upload(request, context, account)
        }
        router.anyone(.get, "/runs/:uuid") { request, context in
            try await runPage(request, context)
        }
        router.signedIn(.get, "/runs/:uuid/download") { request, context, account in
            try await Self.ownRun(context, account) { uuid in
                try await download(uuid, format: request.uri.queryParameters["format"].map(String.init), account)
            }
        }
        router.signedIn(.post, "/runs/:uuid/visibility") { request, context, account in
            let form = try await Self.form(request, context)
            return try await Self.ownRun(context, account) { uuid in
                switch AudienceForm.read(form) {
                case .success(let audience):
                    _ = try await repository.setAudience(
                        uuid: uuid, account: account.id, run: audience.run, map: audience.map)
                    return Self.redirect(.run(uuid))
                case .failure(let error):
                    return Self.message(
                        "Not saved", error.message, status: error.status, account: account,
                        link: Link(href: SitePath.run(uuid).path, label: "Back to the run"))
                }
            }
        }
        router.signedIn(.post, "/runs/:uuid/sport") { request, context, account in
            let form = try await Self.form(request, context)
            return try await Self.ownRun(context, account) { uuid in
                do {
                    let sport = try Sport.named(form["sport"] ?? "")
                    _ = try await repository.setSport(
                        uuid: uuid, account: account.id, sport: sport, now: services.now())
                    return Self.redirect(.run(uuid))
                } catch let error as StoreError {
                    return Self.message(
                        "Not saved", error.message, status: error.status, account: account,
                        link: Link(href: SitePath.run(uuid).path, label: "Back to the run"))
                }
            }
        }
        router.signedIn(.get, "/runs/:uuid/delete") { _, context, account in
            try await Self.ownRun(context, account) { uuid in
                let (run, counts, _) = try await repository.run(uuid: uuid, account: account.id)
                return Self.render(
                    RunDeletePage(run: run, counts: counts, reader: Reader(account), viewer: account.username))
            }
        }
        router.signedIn(.post, "/runs/:uuid/delete") { _, context, account in
            try await Self.ownRun(context, account) { uuid in
                try await repository.deleteRun(uuid: uuid, account: account.id)
                return Self.redirect(.runs())
            }
        }
    }

    /// Runs `body` with the run's uuid; a run that is not the person's (or no run) is a 404 page
    /// that says the same either way.
    static func ownRun(
        _ context: StoreContext, _ account: Account, _ body: (String) async throws -> Response
    ) async throws -> Response {
        do {
            return try await body(try RunRoutes.uuid(context))
        } catch let error as StoreError where [.notFound, .unprocessableContent].contains(error.status) {
            return message(
                "No such run", "You have no run at this address: it may have been deleted.", status: .notFound,
                account: account, link: Link(href: SitePath.runs().path, label: "Your runs"))
        }
    }

    /// The original file, or the run written as FIT, GPX or TCX; named by the run's uuid.
    func download(_ uuid: String, format name: String?, _ account: Account) async throws -> Response {
        let (stored, bytes) = try await services.repository.runFile(uuid: uuid, account: account.id)
        var format = ActivityFormat(rawValue: stored) ?? .fit
        var body = bytes
        if let name, name != "original" {
            guard let wanted = ActivityFormat(rawValue: name), wanted != .csv else {
                return Self.message(
                    "No such download", "A run downloads as its original file, or as FIT, GPX or TCX.",
                    status: .unprocessableContent, account: account,
                    link: Link(href: SitePath.run(uuid).path, label: "Back to the run"))
            }
            guard let activity = try await services.read(stored, bytes) else {
                return Self.message(
                    "Cannot convert this run", "The stored file cannot be read again: download the original.",
                    status: .unprocessableContent, account: account,
                    link: Link(href: SitePath.runDownload(uuid, format: nil).path, label: "The original file"))
            }
            format = wanted
            body = wanted.write(activity)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: RunRoutes.mediaTypes[format] ?? "application/octet-stream",
                .contentDisposition: "attachment; filename=\"\(uuid).\(format.fileExtension)\"",
                .cacheControl: "no-store",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            ], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// Stores each file of the form (parts named `file`), and says what became of each: stored
    /// (with its page), already stored, or refused with the reader's words.
    func upload(_ request: Request, _ context: StoreContext, _ account: Account) async throws -> Response {
        var page = UploadPage(
            viewer: account.username, limitBytes: services.configuration.uploads.maxRunBytes, reader: Reader(account),
            now: services.now())
        var request = request
        let buffer = try await request.collectBody(upTo: services.configuration.uploads.maxRunBytes)
        guard let type = request.headers[.contentType], let boundary = MultipartForm.boundary(type) else {
            return Self.render(
                Self.refused(page, "The form did not come as a file upload: send it from this page."),
                status: .badRequest)
        }
        let form: MultipartForm
        do {
            var limits = MultipartForm.Limits()
            limits.parts = Self.filesPerUpload + 1
            form = try MultipartForm(Array(buffer: buffer), boundary: boundary, limits: limits)
        } catch {
            return Self.render(
                Self.refused(
                    page, "The upload could not be read (\(error)): choose at most \(Self.filesPerUpload) files."),
                status: .badRequest)
        }
        let files = form.parts.filter { $0.name == "file" && !$0.body.isEmpty }
        guard !files.isEmpty else {
            return Self.render(
                Self.refused(page, "Choose at least one FIT, GPX or TCX file."), status: .unprocessableContent)
        }
        let now = services.now()
        for part in files {
            let name = part.filename.flatMap { $0.isEmpty ? nil : $0 } ?? "a file"
            let bytes = Array(part.body)
            // The same bytes already stored under another uuid (a pack's upload, or a download
            // sent back) are that run: stored and counted once.
            let digest = SHA256.hash(data: Data(bytes)).map { String(format: "%02x", $0) }.joined()
            let uuid =
                try await services.repository.runUUID(account: account.id, sha256: digest)
                ?? Self.uuid(account: account.id, file: bytes)
            do {
                let run = try await services.uploads.run {
                    Result { () throws(StoreError) -> NewRun in
                        try RunRoutes.parse(uuid, bytes, summary: "{}", now: now)
                    }
                }.get()
                let (stored, _, _, created) = try await services.repository.putRun(run, account: account.id, now: now)
                page.results.append(
                    .init(
                        name: name,
                        stored: Link(href: SitePath.run(stored.uuid).path, label: created ? "Stored" : "Already stored")
                    ))
            } catch let error as StoreError
                where ![.serviceUnavailable, .insufficientStorage].contains(error.status)
            {
                page.results.append(.init(name: name, error: error.message))
            } catch is WorkLimiter.Busy {
                throw StoreError.busy("reading uploads")
            }
        }
        context.logger.info(
            "Runs uploaded from the web",
            metadata: ["account": "\(account.id)", "files": "\(files.count)"])
        let anyStored = page.results.contains { $0.stored != nil }
        return Self.render(page, status: anyStored ? .ok : .unprocessableContent)
    }

    static func refused(_ page: UploadPage, _ why: String) -> UploadPage {
        var page = page
        page.results = [.init(name: "The upload", error: why)]
        return page
    }

    /// A run's uuid from its uploader and its bytes (RFC 9562 version 8): the same file uploaded
    /// again by the same person is the same run, stored once.
    static func uuid(account: Int64, file: [UInt8]) -> String {
        var hasher = SHA256()
        hasher.update(data: Array("handoff web upload \(account)\n".utf8))
        hasher.update(data: file)
        var bytes = Array(hasher.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(
                hex[
                    hex.index(
                        hex.startIndex, offsetBy: range.lowerBound)..<hex.index(
                            hex.startIndex, offsetBy: range.upperBound)])
        }
        return parts.joined(separator: "-")
    }
}
