import Foundation
import PackControl
import Testing

/// `SyncStatusReport` groups its fields in parts; on the socket it stays the one flat object
/// docs/control-api.md lists for `sync_status`.
@Suite("sync_status on the wire: one flat object, whatever the parts")
struct SyncStatusWireTests {
    static let always: Set<String> = [
        "state", "message", "linked", "home", "network", "network_detail", "queued", "synced", "uploaded",
        "already_stored", "passes", "looking", "home_networks", "uploads_by_itself", "recent",
    ]
    static let optional: Set<String> = [
        "store", "username", "current", "last_synced_at", "last_attempt_at", "last_error", "next_attempt_at", "wifi",
        "advice", "request", "last_request",
    ]

    static func full() -> SyncStatusReport {
        var queued = QueuedRunReport(
            run: 3, uuid: "c0ffee00-0000-4000-8000-000000000003", startTime: "2026-11-25T06:00:00Z", distanceM: 5012.3,
            attempts: 2, held: false)
        queued.lastError = "the store did not answer"
        var report = SyncStatusReport(
            state: .uploading, message: "uploading run 3 (1 of 1)",
            link: .init(linked: true, store: "https://runs.example.org", username: "ada"),
            network: .init(
                home: true, summary: "home (on \"HomeNet\")", detail: "wpa_supplicant", homeNetworks: ["HomeNet"],
                wifi: "HomeNet", uploadsByItself: true, advice: "none needed"),
            outbox: .init(
                current: SyncProgressReport(run: 3, uuid: queued.uuid, index: 1, of: 1, bytes: 41_300),
                queued: [queued], synced: 12, lastSyncedAt: "2026-11-24T18:00:00Z"),
            contact: .init(
                lastAttemptAt: "2026-11-25T07:00:00Z", lastError: "the store did not answer",
                nextAttemptAt: "2026-11-25T07:01:00Z"),
            activity: .init(
                uploaded: 4, alreadyStored: 1, passes: 9, looking: true,
                recent: [
                    UploadedRunReport(
                        run: 2, uuid: "c0ffee00-0000-4000-8000-000000000002", status: 201,
                        counting: CountingReport(countedIn: ["Relay club"], notCounted: []))
                ]))
        report.request = 7
        report.lastRequest = SyncRequestReport(request: 6)
        return report
    }

    static func keys(_ report: SyncStatusReport) throws -> Set<String> {
        let text = try ControlJSON.encode(report)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return Set(object.keys)
    }

    @Test("every documented key, flat, and back to the same report")
    func full() throws {
        let report = Self.full()
        #expect(try Self.keys(report) == Self.always.union(Self.optional))
        let text = try ControlJSON.encode(report)
        #expect(try ControlJSON.decode(SyncStatusReport.self, from: text) == report)
        #expect(
            text.contains(#""network":"home (on \"HomeNet\")""#) && text.contains(#""network_detail":"wpa_supplicant""#)
        )
    }

    @Test("absent values stay absent, as before the parts")
    func sparse() throws {
        var report = Self.full()
        report.link = .init(linked: false, store: nil, username: nil)
        report.network.wifi = nil
        report.network.advice = nil
        report.outbox = .init(current: nil, queued: [], synced: 0, lastSyncedAt: nil)
        report.contact = .init(lastAttemptAt: nil, lastError: nil, nextAttemptAt: nil)
        report.request = nil
        report.lastRequest = nil
        #expect(try Self.keys(report) == Self.always)
        #expect(try ControlJSON.decode(SyncStatusReport.self, from: try ControlJSON.encode(report)) == report)
    }

    @Test("every key the document lists for sync_status is one the report writes")
    func documented() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../docs/control-api.md")
        let line = try #require(
            try String(contentsOf: docs, encoding: .utf8).split(separator: "\n").first {
                $0.hasPrefix(#"| `{"command":"sync_status"}`"#)
            })
        // The top-level keys: backquoted names outside the parentheses that describe nested ones.
        var depth = 0
        var outside = ""
        for character in line.dropFirst(#"| `{"command":"sync_status"}` |"#.count) {
            if character == "(" {
                depth += 1
            } else if character == ")" {
                depth -= 1
            } else if depth == 0 {
                outside.append(character)
            }
        }
        let named = Set(
            outside.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
        #expect(named == Self.always.union(Self.optional).subtracting(["request"]), "\(named)")
    }
}
