import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// The frame of every page, error pages included: the header, the style, the security headers.
extension WebPages {
    static func page(
        _ title: String, _ body: String, status: HTTPResponse.Status = .ok, account: Account? = nil
    )
        -> Response
    {
        let signOut =
            account.map {
                "<form method=\"post\" action=\"\(SitePath.logout.path)\" class=\"who\">\(html($0.username)) <button>Sign out</button></form>"
            } ?? ""
        let document = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(html(title)) · Handoff</title>
            <style>\(style)</style></head>
            <body><header><a href="\(SitePath.home.path)">Handoff</a>\(signOut)</header>
            <main><h1>\(html(title))</h1>
            \(body)
            </main></body></html>
            """
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .contentSecurityPolicy:
                    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
                .cacheControl: "no-store",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                HTTPField.Name("Referrer-Policy")!: "same-origin",
            ], body: .init(byteBuffer: ByteBuffer(string: document)))
    }

    static let style = """
        body{font:16px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
        header{display:flex;justify-content:space-between;align-items:center;padding:.5em 1em;background:#234;color:#fff}
        header a{color:#fff;font-weight:bold;text-decoration:none}.who{margin:0;color:#fff}
        main{max-width:46em;margin:0 auto;padding:1em}label{display:block;margin:.5em 0}
        input{font:inherit;padding:.3em;margin-left:.5em}button{font:inherit;padding:.3em .8em}
        .error{color:#a00;font-weight:bold}.bar{background:#ddd;border-radius:4px;height:1.4em;overflow:hidden}
        .bar div{background:#2a7;height:100%}table{border-collapse:collapse;width:100%}
        th,td{text-align:left;padding:.3em .5em;border-bottom:1px solid #ddd}td.n,th.n{text-align:right}
        .baton{font-size:1.1em;padding:.6em;background:#fff;border:1px solid #ddd;border-radius:4px}
        td form{margin:0}tr.me td{font-weight:bold;background:#eef4fb}#search{margin:.5em 0}#search label{display:inline}
        """
}

/// Escapes text for HTML content and attribute values.
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
