import Foundation

/// The paths of the store's pages, built from ids in one place (as the Swift Package Index's
/// `SiteURL`): every link, form action and redirect of a page is a `SitePath`, so a page that
/// moves is renamed here and nowhere else. Routes are still registered with literal paths:
/// scripts/check_openapi.py reads them from the sources.
enum SitePath: Equatable {
    /// The signed-in person's page: their groups and packs.
    case home
    /// The sign-in form, and where to go once signed in (a path on this site).
    case login(next: String? = nil)
    case logout
    /// The page where a person enters a pack's code, filled in when the pack's link carried one.
    case device(code: String? = nil)
    case unlinkDevice(Int64)
    case group(Int64)

    /// The path with its query, percent-encoded: ready for an `href`, a form's `action` or a
    /// `Location` as it is (it holds no `"`, `<`, `>`, `&` nor `'`).
    var path: String {
        switch self {
        case .home: "/"
        case .login(let next): "/login" + Self.query("next", next)
        case .logout: "/logout"
        case .device(let code): "/device" + Self.query("code", code)
        case .unlinkDevice(let id): "/devices/\(id)/unlink"
        case .group(let id): "/groups/\(id)"
        }
    }

    private static func query(_ name: String, _ value: String?) -> String {
        guard let value, !value.isEmpty else { return "" }
        return "?\(name)=" + percentEncode(value)
    }

    /// Everything but letters, digits, `-._~` and `/` percent-encoded: a query value that
    /// holds a path stays readable, and `?`, `&`, `=`, `#` in it stay its own.
    static func percentEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~/")))
            ?? ""
    }
}
