import Foundation
import GroupStore
import HTTPTypes
import HandoffAPI
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("The group page and the OpenAPI document")
struct PageTests {
    @Test(
        "The group page shows the goal as a bar, the baton holder and since when, members' distances and legs, with nothing from elsewhere",
        arguments: Backend.available)
    func groupPage(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let (id, invite) = try await client.createGroup(ada, name: "Night <owls> & co", goal: 20_000)
            try await client.join(bob, invite)
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/take", token: bob).status == .ok)
            let run = try await client.upload(
                bob, uuid: UUID().uuidString,
                file: RunFiles.fit(
                    start: harness.clock.now.advanced(byNanoseconds: 2_000_000_000), seconds: 1000, speed: 5))
            #expect(run["distance_m"] as? Double == 5000)
            let (login, cookie) = try await client.webSignIn("ada")

            let page = try await client.call(.get, "/groups/\(id)", headers: [.cookie: cookie])
            #expect(page.status == .ok && page.headers[.contentType] == "text/html; charset=utf-8")
            let html = page.text
            #expect(html.contains("<h1>Night &lt;owls&gt; &amp; co</h1>"), "the name is escaped")
            #expect(html.contains("<strong>5.0 km</strong> of 20.0 km (25.0 %)"))
            #expect(html.contains("aria-valuenow=\"25.0\"") && html.contains("class=\"done\" width=\"25.0\""))
            #expect(html.contains("<strong>bob</strong> holds the baton since"))
            #expect(html.contains("<td>bob <form") && html.contains("<td>ada (owner)</td><td class=\"n\">0.0 km</td>"))
            #expect(html.contains("<table id=\"legs\">") && html.contains("running"))
            // No scripts, images, fonts or styles from anywhere: the policy says so, and no
            // address in the page points off the site.
            #expect(page.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'none'") == true)
            #expect(page.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin")
            // Without "stay signed in" the cookie ends with the browser; with it, it lasts.
            #expect(login.headers[.setCookie]?.hasSuffix("; Path=/; HttpOnly; SameSite=Strict") == true)
            let remembered = try await client.webSignIn("ada", remember: true).reply
            #expect(remembered.headers[.setCookie]?.contains("HttpOnly; SameSite=Strict; Max-Age=") == true)
            // The only absolute address is the store's own, in the invite link; the only script is its own.
            let addresses = html.components(separatedBy: "http").dropFirst().map {
                "http" + $0.prefix(while: { $0 != "\"" && $0 != "<" })
            }
            #expect(
                addresses.allSatisfy { $0.hasPrefix("http://127.0.0.1") || $0.hasPrefix("http://localhost") },
                "\(addresses)")
            #expect(
                html.components(separatedBy: "<script").count == 2 && html.contains("<script src=\"/static/app.js?v="))

            let anonymous = try await client.call(.get, "/groups/\(id)")
            #expect(anonymous.status == .seeOther && anonymous.headers[.location] == "/login?next=/groups/\(id)")
            let home = try await client.call(.get, "/", headers: [.cookie: cookie])
            #expect(home.text.contains("href=\"/groups/\(id)\""))
            let out = try await client.call(.post, "/logout", headers: [.cookie: cookie])
            #expect(out.status == .seeOther)
            #expect(try await client.call(.get, "/groups/\(id)", headers: [.cookie: cookie]).status == .seeOther)
        }
    }

    @Test(
        "A person sees their packs on their page and unlinks one with a button: its token stops working at once",
        arguments: Backend.available)
    func packsPage(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            let ada = try await client.signUp("ada")
            let cookie = try await client.webSignIn("ada").cookie
            let none = try await client.call(.get, "/", headers: [.cookie: cookie])
            #expect(none.text.contains("No pack is linked") && none.text.contains("href=\"/device\""))

            let token = try await DeviceTests.link(client, ada, name: "ada's <pack>")
            let devices = try await client.call(.get, "/v1/devices", token: ada)
            let id = try #require(try devices.decode(DeviceList.self).devices.first?.id)
            let home = try await client.call(.get, "/", headers: [.cookie: cookie])
            #expect(home.text.contains("<td>ada&#39;s &lt;pack&gt;</td>"))
            #expect(home.text.contains("href=\"/devices/\(id)/unlink\""))
            // Unlinking asks first: the link opens a question whose form unlinks.
            let question = try await client.call(.get, "/devices/\(id)/unlink", headers: [.cookie: cookie])
            #expect(question.status == .ok && question.text.contains("action=\"/devices/\(id)/unlink\""))
            #expect(try await client.call(.get, "/devices/999/unlink", headers: [.cookie: cookie]).status == .notFound)

            // Without a session: to sign in, and the pack stays linked.
            let anonymous = try await client.call(.post, "/devices/\(id)/unlink")
            #expect(anonymous.status == .seeOther && anonymous.headers[.location] == "/login")
            #expect(try await client.call(.get, "/v1/groups", token: token).status == .ok)
            // From another site: refused.
            let crossSite = try await client.call(
                .post, "/devices/\(id)/unlink", headers: [.cookie: cookie, .origin: "https://evil.example"])
            #expect(crossSite.status == .forbidden && crossSite.text.contains("was not acted on"))

            let unlinked = try await client.call(.post, "/devices/\(id)/unlink", headers: [.cookie: cookie])
            #expect(unlinked.status == .seeOther && unlinked.headers[.location] == "/")
            #expect(try await client.call(.get, "/v1/groups", token: token).status == .unauthorized)
            #expect(try await client.call(.get, "/", headers: [.cookie: cookie]).text.contains("No pack is linked"))
            let again = try await client.call(.post, "/devices/\(id)/unlink", headers: [.cookie: cookie])
            #expect(again.status == .notFound && again.text.contains("no such pack"))
        }
    }

    @Test("Behind TLS (an https public URL) the session cookie is Secure")
    func secureCookie() async throws {
        var harness = try StoreHarness()
        harness.configuration.network.publicURL = "https://club.example.org"
        try await harness.run { client in
            _ = try await client.signUp("ada")
            let login = try await client.webSignIn("ada").reply
            #expect(login.headers[.setCookie]?.hasSuffix("HttpOnly; SameSite=Strict; Secure") == true)
            let out = try await client.call(.post, "/logout")
            #expect(out.headers[.setCookie]?.contains("; Secure; Max-Age=0") == true)
        }
    }

    @Test("openapi.json is OpenAPI 3.1 and lists exactly the routes the router has")
    func openAPICoversRoutes() async throws {
        let harness = try StoreHarness()
        try await harness.withDatabase { database in
            let repository = try await StoreRepository(database)
            let routes = Set(StoreApplication.routes(repository, harness.configuration))
            var documented: Set<String> = []
            for (path, item) in APIContract.paths {
                for method in item.keys where ["get", "put", "post", "patch", "delete"].contains(method) {
                    documented.insert("\(method.uppercased()) \(path)")
                }
            }
            #expect(
                routes.subtracting(documented).isEmpty,
                "routes missing from openapi.json: \(routes.subtracting(documented).sorted())")
            #expect(
                documented.subtracting(routes).isEmpty,
                "documented but not routed: \(documented.subtracting(routes).sorted())")
            #expect(APIContract.document["openapi"] as? String == "3.1.0")
            #expect(routes.count >= 30)
            // Any request can meet a database that is down (503) or a full disk (507), but the
            // store's own files (/static/), which never read the database.
            for (path, item) in APIContract.paths where !path.hasPrefix("/static/") {
                for (method, operation) in item where APIContract.operationMethods.contains(method) {
                    let responses = (operation as? [String: Any])?["responses"] as? [String: Any] ?? [:]
                    #expect(responses["503"] != nil && responses["507"] != nil, "\(method) \(path): no 503 or 507")
                }
            }
        }
    }

    @Test(
        "openapi.json is served as written; a method a path does not take is a 405 naming those it does",
        arguments: Backend.available)
    func openAPIServed(_ backend: Backend) async throws {
        try await StoreHarness(backend).run { client in
            let served = try await client.call(.get, "/openapi.json")
            #expect(served.status == .ok && served.text == OpenAPIDocument.json)

            // A path the API has, asked with a method it does not take: 405 naming the methods it
            // does take. A path it does not have: 404.
            for (method, path, allowed) in [
                (HTTPRequest.Method.put, "/v1/health", ["GET"]),
                (.get, "/v1/groups/1/baton/take", ["POST"]),
                (.post, "/v1/runs/\(UUID().uuidString)", ["PUT", "GET", "PATCH", "DELETE"]),
                (.delete, "/login", ["GET", "POST"]),
                (.put, "/v1/groups/join", ["POST"]),
                (.put, "/v1/runs/\(UUID().uuidString)/kudos", ["GET", "POST", "DELETE"]),
            ] {
                let reply = try await client.call(method, path)
                #expect(
                    reply.status == .methodNotAllowed && reply.errorCode == "method_not_allowed",
                    "\(method) \(path)")
                #expect(reply.headers[.allow] == allowed.joined(separator: ", "), "\(method) \(path)")
                #expect(reply.errorMessage.contains("it takes " + allowed.joined(separator: ", ")))
            }
            let nowhere = try await client.call(.delete, "/v1/nowhere")
            #expect(nowhere.status == .notFound && nowhere.errorCode == "not_found")
        }
    }
}
