import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// What every page route shares: the session cookie, the origin check of forms, redirects and
/// form bodies.
extension WebPages {
    /// Behind TLS (a public URL that is https), the cookie is only ever sent over TLS.
    var secure: String {
        services.configuration.network.publicURL?.lowercased().hasPrefix("https://") == true ? "; Secure" : ""
    }

    /// The account of the browser's session cookie, if it is valid.
    func signedIn(_ request: Request) async throws -> Account? {
        guard let token = Self.sessionCookie(request) else { return nil }
        let credential: Credential
        do {
            credential = try await services.accounts.authenticate(token: token)
        } catch let error as StoreError
            where error.status == .serviceUnavailable || error.status == .insufficientStorage
        {
            throw error  // the database is down: say so, rather than ask a signed-in person to sign in
        } catch {
            return nil
        }
        return credential.scope == .session ? credential.account : nil
    }

    /// A form posted from another site is refused with a page that says so (SameSite=Strict
    /// already keeps the cookie away; this covers browsers that ignore it). `Origin: null`
    /// (a sandboxed frame, a `data:` page, some redirects) is another site too: nil means go on.
    func refusedOrigin(_ request: Request) -> Response? {
        guard let origin = request.headers[.origin] else { return nil }
        // The host must be ours; the scheme may differ behind a TLS proxy.
        let host = origin.split(separator: "://", maxSplits: 1).last.map(String.init) ?? origin
        let ours = services.origin(request).split(separator: "://", maxSplits: 1).last.map(String.init) ?? ""
        if origin != "null", host == ours || host == request.head.authority { return nil }
        return Self.message(
            "Not sent",
            "This form was sent from a page that is not the store's own (its origin is \(origin)), so it was not "
                + "acted on. If you meant to send it, open the store and send it from there.", status: .forbidden,
            link: Link(href: SitePath.home.path, label: "Open the store"))
    }

    static func sessionCookie(_ request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for item in header.split(separator: ";") {
                let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0] == cookie, !pair[1].isEmpty { return pair[1] }
            }
        }
        return nil
    }

    /// Only a path on this site, else "/": it starts with one "/" and is printable ASCII with no
    /// space and no backslash. So never another host: not `//evil`, `/\\evil`, `https://…`, nor
    /// `/<TAB>/evil`, which a browser reads as `//evil` because URL parsing drops tabs and line
    /// breaks (WHATWG URL §4.4).
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"),
            next.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) && $0 != "\\" })
        else { return "/" }
        return next
    }

    static func redirect(_ location: SitePath) -> Response {
        redirect(location.path)
    }

    /// To a path already checked to be this site's (`safeNext`).
    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }

    static func form(_ request: Request, _ context: StoreContext) async throws -> [String: String] {
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        var fields: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let key = parts.first { fields[key] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }
}
