import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// Every page's response: its model rendered with its template, and the security headers.
extension WebPages {
    /// The page's policy: nothing from anywhere but the store itself (no script at all yet), and
    /// forms only to the store.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func render<Model: PageModel>(_ model: Model, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .contentSecurityPolicy: contentSecurityPolicy,
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

/// The stylesheet, served by the store: its address carries a digest of its bytes, so a browser
/// may keep it for a year and still never shows a page with an older one.
enum Stylesheet {
    static let bytes: [UInt8] = {
        guard
            let url = Bundle.module.url(forResource: "static/style", withExtension: "css")
                ?? Bundle.module.url(forResource: "style", withExtension: "css", subdirectory: "static"),
            let data = try? Data(contentsOf: url)
        else { preconditionFailure("the store's stylesheet is missing from its bundle: reinstall handoff-store") }
        return Array(data)
    }()

    /// FNV-1a of the bytes, as 8 hexadecimal digits: enough to tell one version from the next.
    static let version: String = {
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return String(hash, radix: 16)
    }()
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
