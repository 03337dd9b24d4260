import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// Every page's response: its model rendered with its template, and the security headers.
extension WebPages {
    /// The page's policy: nothing from anywhere but the store itself (its one script, which reads
    /// the group's event stream), and forms only to the store.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// The page; `imagesFrom` is another origin its images may come from (the operator's map tiles).
    static func render<Model: PageModel>(
        _ model: Model, status: HTTPResponse.Status = .ok, imagesFrom: String? = nil
    ) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .contentSecurityPolicy: imagesFrom.map {
                    contentSecurityPolicy.replacingOccurrences(
                        of: "img-src 'self' data:", with: "img-src 'self' data: \($0)")
                } ?? contentSecurityPolicy,
                .cacheControl: "no-store",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                HTTPField.Name("Referrer-Policy")!: "same-origin",
            ], body: .init(byteBuffer: ByteBuffer(string: PageTemplates.shared.render(model))))
    }

    /// A page that only says something (`MessagePage`).
    static func message(
        _ title: String, _ text: String, status: HTTPResponse.Status, account: Account? = nil, link: Link? = nil
    ) -> Response {
        render(MessagePage(title, text, isError: true, link: link, viewer: account?.username), status: status)
    }
}

/// A file the store serves itself (Resources/static): its address carries a digest of its
/// bytes, so a browser may keep it for a year and still never shows a page with an older one.
struct StaticFile: Sendable {
    let bytes: [UInt8]
    /// FNV-1a of the bytes, in hexadecimal: enough to tell one version from the next.
    let version: String
    let contentType: String

    static let stylesheet = StaticFile("style", "css", type: "text/css; charset=utf-8")
    static let script = StaticFile("app", "js", type: "text/javascript; charset=utf-8")

    init(_ name: String, _ ext: String, type: String) {
        guard let url = Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "static"),
            let data = try? Data(contentsOf: url)
        else { preconditionFailure("the store's \(name).\(ext) is missing from its bundle: reinstall handoff-store") }
        bytes = Array(data)
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        version = String(hash, radix: 16)
        contentType = type
    }
}

/// Escapes text for HTML content and attribute values, by Unicode scalar.
func html(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for c in text.unicodeScalars {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.unicodeScalars.append(c)
        }
    }
    return out
}
