import Foundation
import GroupStore
import Logging
import Testing

@Suite("The database engines: clear errors for a bad --database")
struct EngineTests {
    static let logger = Logger(label: "store.test")

    static func message(_ url: String) -> String {
        do {
            _ = try PostgresDatabase(url: url, logger: logger)
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    @Test("A malformed PostgreSQL URL is refused, saying what is wrong and how to write it")
    func badURLs() {
        #expect(Self.message("mysql://a:b@127.0.0.1/x").contains("must start with postgres://"))
        #expect(Self.message("postgres://a:b@127.0.0.1").contains("names no database"))
        #expect(Self.message("postgres://127.0.0.1/x").contains("has no user"))
        #expect(Self.message("postgres://a:b@127.0.0.1/x?sslmode=require").contains("sslmode=disable"))
        #expect(Self.message("postgres://a:b@127.0.0.1/x?pool=9").contains("pool"))
        for url in ["mysql://a:b@127.0.0.1/x", "postgres://a:secretpw@127.0.0.1"] {
            #expect(!Self.message(url).contains("secretpw"), "never the password")
        }
        #expect(Self.message("postgres://a:b@127.0.0.1:5432/x?sslmode=disable") == "accepted")
        #expect(
            PostgresDatabase.redacted("postgres://ada:secret@db:5432/handoff") == "postgres://ada:***@db:5432/handoff")
    }

    @Test("A PostgreSQL server that does not answer fails at once with where and what to check")
    func unreachable() async throws {
        let database = try PostgresDatabase(url: "postgres://ada:secret@127.0.0.1:1/handoff", logger: Self.logger)
        await #expect {
            _ = try await StoreRepository(database)
        } throws: { error in
            let text = "\(error)"
            return text.contains("127.0.0.1:1/handoff") && text.contains("could not be reached")
                && text.contains("--database") && !text.contains("secret")
        }
    }
}
