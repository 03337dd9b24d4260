import HTTPTypes
import HandoffModel
import Hummingbird

/// The one way the store's pages are registered, so that no page can forget a check: a form sent
/// from another site (any method but GET and HEAD) is refused before its handler runs
/// (`refusedOrigin`), and a page for a signed-in person gets the account of the session cookie,
/// or, without a valid one, sends the browser to sign in.
struct PageRouter {
    let router: RouteRecorder
    let pages: WebPages

    typealias Handler = @Sendable (Request, StoreContext) async throws -> Response
    typealias PersonHandler = @Sendable (Request, StoreContext, Account) async throws -> Response

    /// A page or form for anyone, signed in or not.
    func anyone(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping Handler) {
        let pages = self.pages
        router.on(method, path) { request, context in
            if method != .get, method != .head, let refused = pages.refusedOrigin(request) { return refused }
            do {
                return try await handler(request, context)
            } catch let error as StoreError
                where error.status == .serviceUnavailable || error.status == .insufficientStorage
            {
                return Self.fault(error)
            }
        }
    }

    /// A page or form for a signed-in person. Without a session, the browser is sent to sign in,
    /// then on to `next` of the request (the home page when nil).
    func signedIn(
        _ method: HTTPRequest.Method, _ path: String,
        next: @escaping @Sendable (Request) -> String? = { _ in nil }, _ handler: @escaping PersonHandler
    ) {
        let pages = self.pages
        anyone(method, path) { request, context in
            guard let account = try await pages.signedIn(request) else {
                return WebPages.redirect(.login(next: next(request)))
            }
            // The header's unread count, for a page to show (a form's answer is a redirect).
            let unread =
                method == .get ? try await pages.services.repository.unreadNotifications(account: account.id) : nil
            return try await Frame.$unread.withValue(unread) { try await handler(request, context, account) }
        }
    }

    /// A page when the database is down or its disk full: the same words as the API's, in HTML.
    static func fault(_ error: StoreError) -> Response {
        let title = error.status == .insufficientStorage ? "The store's disk is full" : "Try again in a moment"
        var response = WebPages.message(title, error.message, status: error.status)
        if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}
