import Foundation
import HandoffAPI
import Testing

@testable import PackSync

/// What each answer from the store means for the pack: the table the sync worker acts on (try
/// again by itself, wait for a person, or link again).
@Suite("Store replies: retry, a person, or link again")
struct StoreReplyTests {
    static let store = URL(string: "https://store.example")!

    static func failure(_ status: Int, code: String? = nil, retryAfter: Double? = nil) -> SyncFailure {
        let body = code.map { try! JSONEncoder().encode(ErrorEnvelope(code: $0, message: "said by the store")) }
        return StoreClient.Reply(status: status, body: body ?? Data(), retryAfter: retryAfter, text: "")
            .failure(store: store, context: "uploading run 1")
    }

    @Test(
        "Busy answers (408, 425, 429) and server failures (5xx) are retried by the pack itself, after the store's Retry-After",
        arguments: [408, 425, 429, 500, 502, 503, 504])
    func retried(status: Int) {
        let failure = Self.failure(status, retryAfter: 30)
        #expect(failure.action == .retry)
        #expect(failure.retryAfter == 30)
    }

    @Test(
        "Refusals (4xx) wait for a person, with the store's own code and words",
        arguments: [400, 409, 413, 415, 422])
    func refused(status: Int) {
        let failure = Self.failure(status, code: "run_conflict")
        #expect(failure.action == .needsPerson)
        #expect(failure.code == "run_conflict")
        #expect(failure.message.contains("said by the store"))
    }

    @Test("401 and 403 mean the pack's link is gone: link again; a 404 without the store's error is not a store")
    func unlinkedAndNotAStore() {
        #expect(Self.failure(401).action == .unlinked)
        #expect(Self.failure(403, code: "forbidden").action == .unlinked)
        let notAStore = Self.failure(404)
        #expect(notAStore.action == .needsPerson && notAStore.code == "not_a_store")
        #expect(Self.failure(404, code: "no_such_run").code == "no_such_run")
    }
}
