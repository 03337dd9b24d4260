import ActivityFormats
import Foundation
import HTTPTypes
import HandoffModel
import Hummingbird

/// A person's public runs as an Atom feed (RFC 4287) for feed readers: anyone may read it, signed
/// in or not, so it holds exactly what `public` lets anyone see, and never a map.
enum AtomFeed {
    static let entries = 20

    static func document(
        username: String, name: String, runs: [StoredRun], origin: String, units: Units = .km
    ) -> String {
        let person = origin + SitePath.person(username).path
        let updated = runs.map(\.uploaded).max().map(iso) ?? "1970-01-01T00:00:00Z"
        var xml = """
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom">
            <title>\(XMLText.escape("\(name)'s public runs"))</title>
            <id>\(XMLText.escape(person))</id>
            <updated>\(updated)</updated>
            <link rel="self" type="application/atom+xml" href="\(XMLText.escape(person + "/feed.atom"))"/>
            <link rel="alternate" type="text/html" href="\(XMLText.escape(person))"/>
            <author><name>\(XMLText.escape(name))</name></author>
            <generator>Handoff</generator>

            """
        for run in runs {
            let meters = Double(run.distanceMM) / 1000
            let seconds = Double(run.timerMS) / 1000
            let sport = RunPage.sportName(run.sport)
            let summary =
                "\(units.distance(meters: meters)) in \(Units.clock(seconds)), \(units.pace(seconds: seconds, meters: meters))"
            xml += """
                <entry>
                <title>\(XMLText.escape("\(sport), \(units.distance(meters: meters))"))</title>
                <id>urn:uuid:\(run.uuid)</id>
                <published>\(iso(run.started))</published>
                <updated>\(iso(run.uploaded))</updated>
                <link rel="alternate" type="text/html" href="\(XMLText.escape(origin + SitePath.run(run.uuid).path))"/>
                <summary>\(XMLText.escape(summary))</summary>
                </entry>

                """
        }
        return xml + "</feed>\n"
    }
}

extension WebPages {
    func registerAtomFeed(_ router: PageRouter) {
        router.anyone(.get, "/people/:username/feed.atom") { request, context in
            let username = context.parameters.get("username") ?? ""
            // The feed is for anyone, but not for someone either of them blocked (when the reader
            // is signed in), nor of a suspended account: the 404 of nobody, as on their page.
            let reader = try await signedIn(request)
            let found = try await services.repository.account(username: username)
            var readable = false
            if let found, try await !services.repository.isSuspended(found.id) {
                readable =
                    try await reader.asyncMap {
                        try await services.repository.person(username: username, viewer: $0.id)
                    }
                    .map { $0 != nil } ?? true
            }
            guard let account = found, readable else {
                return Self.message(
                    "No such person", "Nobody has the username \(username).", status: .notFound)
            }
            let runs = try await services.repository.publicRuns(account: account.id, limit: AtomFeed.entries)
            let profile = try await services.repository.profile(account: account.id)
            let nickname = profile.level(.nickname) == .public ? profile.values[.nickname] : nil
            let xml = AtomFeed.document(
                username: account.username, name: nickname ?? account.username, runs: runs,
                origin: services.origin(request))
            return Response(
                status: .ok,
                headers: [
                    .contentType: "application/atom+xml; charset=utf-8", .cacheControl: "public, max-age=300",
                    HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                ], body: .init(byteBuffer: ByteBuffer(string: xml)))
        }
    }
}

extension StoreRepository {
    /// The account's newest public runs (what anyone may see: `RunVisibility.sql` for nobody).
    func publicRuns(account: Int64, limit: Int) async throws -> [StoredRun] {
        let (seen, arguments) = RunVisibility.sql(viewer: nil)
        return try await read { db in
            try await db.query(
                """
                SELECT \(Self.runColumnsQualified) FROM run WHERE run.account_id = ? AND \(seen)
                ORDER BY run.started_ns DESC, run.id DESC LIMIT \(limit)
                """, [.integer(account)] + arguments
            ).map(StoredRun.init)
        }
    }
}
