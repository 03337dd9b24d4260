import GroupStore
import Testing

/// Issue 30: a row read as something it does not hold is an error the request fails with, never
/// a trap that stops the server nor a 0 or "" that passes for a value.
@Suite("The storage layer: a row read wrongly throws")
struct SQLRowTests {
    static func message(_ read: () throws -> Any?) -> String {
        do {
            let value = try read()
            return "read \(String(describing: value))"
        } catch {
            return "\(error)"
        }
    }

    @Test(
        "NULL where a value is required, a column the result lacks and a value of another type each throw, on both engines",
        arguments: Backend.available)
    func unreadable(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.withDatabase { database in
            let row = try #require(
                try await database.read { db in
                    try await db.one("SELECT NULL AS vacant, 7 AS seven, 'seven' AS word")
                })
            #expect(try row.int("seven") == 7 && row.text("word") == "seven")
            #expect(try row.value("vacant") == .null)
            #expect(try row.intOrNil("vacant") == nil && row.textOrNil("vacant") == nil)
            #expect(try row.intOrNil("seven") == 7 && row.textOrNil("word") == "seven")

            #expect(
                Self.message { try row.int("vacant") } == "the column vacant is NULL where an integer was expected")
            #expect(Self.message { try row.text("vacant") } == "the column vacant is NULL where text was expected")
            #expect(Self.message { try row.blob("vacant") } == "the column vacant is NULL where bytes was expected")

            #expect(Self.message { try row.int("absent") }.hasPrefix("the result has no column absent"))
            #expect(Self.message { try row.intOrNil("absent") }.hasPrefix("the result has no column absent"))
            #expect(Self.message { try row.value("absent") }.hasPrefix("the result has no column absent"))

            #expect(Self.message { try row.int("word") } == "the column word holds text where an integer was expected")
            #expect(
                Self.message { try row.textOrNil("seven") }
                    == "the column seven holds an integer where text was expected")
            #expect(Self.message { try row.blob("word") } == "the column word holds text where bytes was expected")
        }
    }
}
