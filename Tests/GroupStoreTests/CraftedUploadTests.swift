import ActivityFormats
import Foundation
import GroupStore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import TestSupport
import Testing

/// Every kind of crafted file that killed the store (issue 27, findings 1, 2, 10 and 13),
/// uploaded by a signed-in account: each is refused with a 422 that says what is wrong, the store
/// answers the next request, and the operator's log named the uploader before the file was read.
@Suite("Crafted activity files against the store (issue 27)")
struct CraftedUploadTests {
    @Test(
        "Each crafted file is a 422 naming its problem; the store lives; the log names the uploader first",
        arguments: Backend.available)
    func craftedFiles(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend, transport: .live)
        let captured = CapturedLog()
        var logger = Logger(label: "store.test") { _ in captured }
        logger.logLevel = .info
        try await harness.withDatabase { database in
            let repository = try await StoreRepository(database)
            let app = StoreApplication.make(
                repository: repository, configuration: harness.configuration, logger: logger)
            try await Backend.$current.withValue(backend) {
                try await app.test(.live) { client in
                    let token = try await client.signUp("mallory")
                    let me = try await client.call(.get, "/v1/me", token: token)
                    let account = try #require(me["id"] as? Int)
                    for file in CraftedFiles.hostile {
                        let uuid = UUID().uuidString.lowercased()
                        let reply = try await client.upload(token, uuid: uuid, file: file.bytes)
                        #expect(reply.status == .unprocessableContent, "\(file): \(reply.status) \(reply.errorMessage)")
                        #expect(reply.errorCode == "invalid_file", "\(file): \(reply.errorCode ?? "")")
                        #expect(!reply.errorMessage.isEmpty, "\(file): the reason is given")
                        #expect(
                            captured.text.contains("Reading an uploaded run")
                                && captured.text.contains("\"run\": \(uuid)")
                                && captured.text.contains("\"account\": \(account)"),
                            "\(file): the uploader is logged before the file is read")
                        let health = try await client.call(.get, "/v1/health", ownConnection: true)
                        #expect(health.status == .ok, "\(file): the store still answers")
                    }
                    // Nothing of them was kept.
                    let runs = try await client.call(.get, "/v1/runs", token: token)
                    #expect((runs["runs"] as? [Any])?.isEmpty == true)
                }
            }
        }
    }
}
