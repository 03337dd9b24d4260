import HTTPTypes
import HandoffAPI
import HandoffModel
import Hummingbird
import ServiceLifecycle

/// `GET /v1/groups/{id}/events` (issue 35): a member's view of the group as it happens. Asked
/// with `Accept: text/event-stream`, it is a stream of Server-Sent Events (an `id:`, an `event:`
/// and one line of JSON `data:` each; a comment every heartbeat), resumed after `Last-Event-ID`
/// (or `after`), else from now; otherwise it is the JSON list of events after `after` (0: from
/// the first kept). A bearer token (a person's or a pack's) or a page's session cookie.
struct EventRoutes {
    let services: Services
    static let limits = (standard: 100, most: 500)

    func register(_ router: RouteRecorder) {
        router.get("/v1/groups/:group/events") { request, context -> Response in
            let viewer = try await viewer(request)
            let team = try context.id("group", "group")
            _ = try await services.repository.read { db in try await StoreRepository.memberGroup(db, team, viewer) }
            let after = try Self.after(request)
            let streaming = request.headers[values: .accept].contains { $0.contains("text/event-stream") }
            guard streaming else {
                let limit = try request.pageLimit(standard: Self.limits.standard, most: Self.limits.most)
                let list = try await services.repository.groupEvents(team: team, after: after ?? 0, limit: limit)
                return try list.response(from: request, context: context)
            }
            var start = after ?? 0
            if after == nil { start = try await services.repository.groupEvents(team: team, after: 0, limit: 0).lastID }
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store",
                    HTTPField.Name("X-Accel-Buffering")!: "no",
                ],
                body: ResponseBody { [start] writer in
                    try await stream(team: team, after: start, to: &writer)
                })
        }
    }

    /// The signed-in person: the bearer token's (a pack's too), else the session cookie's.
    private func viewer(_ request: Request) async throws -> Int64 {
        if request.headers[.authorization] == nil,
            let account = try await WebPages(services: services).signedIn(request)
        {
            return account.id
        }
        return try await services.caller(request, device: true).account.id
    }

    /// Where to start: `Last-Event-ID` (a reconnecting browser), else `after`; nil: neither.
    static func after(_ request: Request) throws(StoreError) -> Int64? {
        guard
            let text = request.headers[HTTPField.Name("Last-Event-ID")!]
                ?? request.uri.queryParameters["after"].map(String.init)
        else { return nil }
        guard let after = Int64(text), after >= 0 else {
            throw StoreError(
                .unprocessableContent, "invalid_after",
                "after (or Last-Event-ID) is the number of the last event seen, 0 or more")
        }
        return after
    }

    /// Writes the group's events after `after` as they come, and a comment each heartbeat with
    /// nothing to say, until the client goes or the store shuts down.
    private func stream(team: Int64, after: Int64, to writer: inout any ResponseBodyWriter) async throws {
        let (signals, continuation) = services.repository.events.subscribe(team: team)
        let heartbeat = services.configuration.live.heartbeat
        let beats = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeat)
                continuation.yield(.heartbeat)
            }
        }
        defer {
            beats.cancel()
            continuation.finish()
        }
        var last = after
        // A browser reconnects after 2 s when the stream ends.
        try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
        last = try await send(team: team, after: last, to: &writer)
        for await signal in signals.cancelOnGracefulShutdown() {
            let sent = try await send(team: team, after: last, to: &writer)
            if sent == last, signal == .heartbeat { try await writer.write(ByteBuffer(string: ": heartbeat\n\n")) }
            last = sent
        }
        try await writer.finish(nil)
    }

    /// Writes every event after `after`; returns the last one written (`after` when none).
    private func send(team: Int64, after: Int64, to writer: inout any ResponseBodyWriter) async throws -> Int64 {
        var last = after
        while true {
            let page = try await services.repository.groupEvents(team: team, after: last, limit: Self.limits.most)
            var text = ""
            for event in page.events {
                let data = String(decoding: try StoreJSON.encoder.encode(event), as: UTF8.self)
                text += "id: \(event.id)\nevent: \(event.kind)\ndata: \(data)\n\n"
                last = event.id
            }
            if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
            if page.events.count < Self.limits.most { return last }
        }
    }
}

extension GroupEventList: ResponseGenerator, ResponseEncodable {}
