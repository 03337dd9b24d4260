import HTTPTypes
import Hummingbird
import Synchronization

/// Registers routes on a router and remembers them (method and OpenAPI-style path).
final class RouteRecorder {
    let router: Router<StoreContext>
    private(set) var recorded: [String] = []

    init(_ router: Router<StoreContext>) { self.router = router }

    typealias Handler = @Sendable (Request, StoreContext) async throws -> any ResponseGenerator

    func on(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping Handler) {
        let openAPIPath = path.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0)
        }.joined(separator: "/")
        recorded.append("\(method.rawValue) \(openAPIPath)")
        router.on(RouterPath(path), method: method) { request, context in
            try await handler(request, context).response(from: request, context: context)
        }
    }

    func get(_ path: String, _ handler: @escaping Handler) { on(.get, path, handler) }
    func post(_ path: String, _ handler: @escaping Handler) { on(.post, path, handler) }
    func put(_ path: String, _ handler: @escaping Handler) { on(.put, path, handler) }
    func patch(_ path: String, _ handler: @escaping Handler) { on(.patch, path, handler) }
    func delete(_ path: String, _ handler: @escaping Handler) { on(.delete, path, handler) }
}

/// The registered routes by path template, to tell "no such path" (404) from "this path, another
/// method" (405 with `Allow`). Filled once, after the routes are registered.
final class KnownRoutes: Sendable {
    private let routes = Mutex<[(method: HTTPRequest.Method, template: [Substring])]>([])

    /// `recorded` is RouteRecorder's "METHOD /path/{param}" list.
    func set(_ recorded: [String]) {
        routes.withLock {
            $0 = recorded.compactMap { line in
                let parts = line.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, let method = HTTPRequest.Method(String(parts[0])) else { return nil }
                return (method, parts[1].split(separator: "/", omittingEmptySubsequences: false))
            }
        }
    }

    /// The methods registered for a concrete path, in registration order. As in OpenAPI, a
    /// template with more literal segments wins: `/v1/groups/join` is its own path, not a group
    /// named "join".
    func methods(for path: String) -> [HTTPRequest.Method] {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        let matching = routes.withLock { routes in
            routes.compactMap { route -> (method: HTTPRequest.Method, literals: Int)? in
                guard route.template.count == parts.count,
                    zip(route.template, parts).allSatisfy({ $0.hasPrefix("{") ? !$1.isEmpty : $0 == $1 })
                else { return nil }
                return (route.method, route.template.filter { !$0.hasPrefix("{") }.count)
            }
        }
        let best = matching.map(\.literals).max()
        return matching.filter { $0.literals == best }.map(\.method)
    }
}
