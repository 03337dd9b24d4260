import Foundation

/// The API's OpenAPI 3.1 description, served at `/openapi.json`. It is written by hand
/// (Resources/openapi.json); tests check that it lists every route the router has and that
/// every response the tests see matches its schema, and schemathesis fuzzes the server with it.
public enum OpenAPIDocument {
    public static let json: String = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { fatalError("Resources/openapi.json is missing from the GroupStore bundle") }
        return text
    }()
}
