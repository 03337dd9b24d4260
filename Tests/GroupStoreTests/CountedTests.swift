import Foundation
import HandoffAPI
import HandoffModel
import Testing

/// Issue 29: the reply to an upload names the groups the run counted in and, for every other
/// group of the runner's, the rule that kept it out; a repeated upload gets the same answer.
@Suite("Runs: where an upload counted, and why not elsewhere")
struct CountedTests {
    static func notCounted(_ reply: Reply) -> [String: String] {
        var reasons: [String: String] = [:]
        for entry in (try? reply.decode(RunView.self))?.notCounted ?? [] { reasons[entry.group] = entry.reasonCode }
        return reasons
    }

    static func countedIn(_ reply: Reply) -> [String] {
        ((try? reply.decode(RunView.self))?.countedIn ?? []).map(\.group)
    }

    @Test(
        "Each reason (started before joining, after the deadline) is named with its code and sentence, the same on a 200 re-upload and a GET",
        arguments: Backend.available)
    func reasons(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            _ = try await client.createGroup(ada, name: "Danube relay")
            let early = UUID().uuidString.lowercased()
            let earlyFile = RunFiles.fit(start: harness.clock.now.advanced(byNanoseconds: -86_400_000_000_000))
            let first = try await client.upload(ada, uuid: early, file: earlyFile)
            #expect(first.status == .created)
            #expect(Self.countedIn(first).isEmpty)
            #expect(Self.notCounted(first) == ["Danube relay": "started_before_joining"])
            let entry = try #require(try first.decode(RunView.self).notCounted?.first)
            #expect(entry.reason == "it started before you joined")
            #expect(entry.groupID > 0)

            let deadline = CivilTime(harness.clock.now.advanced(byNanoseconds: 86_400_000_000_000)).iso8601()
            let club = try await client.call(
                .post, "/v1/groups", token: ada, send: GroupCreate(name: "Club 10k", goalM: 10_000, deadline: deadline))
            #expect(club.status == .created)
            harness.clock.advance(seconds: 10)
            let both = try await client.upload(
                ada, uuid: UUID().uuidString, file: RunFiles.fit(start: harness.clock.now))
            #expect(Set(Self.countedIn(both)) == ["Danube relay", "Club 10k"])
            #expect(try both.decode(RunView.self).notCounted?.isEmpty == true, "an empty list, not an absent key")

            harness.clock.advance(seconds: 2 * 86_400)
            let late = UUID().uuidString.lowercased()
            let lateFile = RunFiles.fit(start: harness.clock.now)
            let lateReply = try await client.upload(ada, uuid: late, file: lateFile)
            #expect(lateReply.status == .created)
            #expect(Self.countedIn(lateReply) == ["Danube relay"])
            #expect(Self.notCounted(lateReply) == ["Club 10k": "after_deadline"])
            #expect(
                try lateReply.decode(RunView.self).notCounted?.first?.reason == "it started after the group's deadline")

            // Uploaded again (a lost acknowledgement): 200 and the same answer.
            let again = try await client.upload(ada, uuid: late, file: lateFile)
            #expect(again.status == .ok)
            #expect(
                Self.countedIn(again) == ["Danube relay"] && Self.notCounted(again) == ["Club 10k": "after_deadline"])
            let fetched = try await client.call(.get, "/v1/runs/\(late)", token: ada)
            #expect(Self.notCounted(fetched) == ["Club 10k": "after_deadline"])
            // The early run, again: Club 10k was made after it started, so it did not count there either.
            let earlyAgain = try await client.upload(ada, uuid: early, file: earlyFile)
            #expect(earlyAgain.status == .ok)
            #expect(
                Self.notCounted(earlyAgain) == [
                    "Danube relay": "started_before_joining", "Club 10k": "started_before_joining",
                ])
            // The list leaves the key out (it would cost a query per run).
            let list = try await client.call(.get, "/v1/runs?limit=10", token: ada)
            #expect(try list.decode(RunList.self).runs.allSatisfy { $0.notCounted == nil })
            try await checkTotals(repository)
        }
    }
}
