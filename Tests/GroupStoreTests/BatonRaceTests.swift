import Foundation
import HandoffModel
import HummingbirdTesting
import Testing

@testable import GroupStore

/// A take must claim the baton on the condition that it is still free when it writes, not on
/// what it read a moment before. These tests put the rival exactly between the read and the
/// write (StoreRepository.afterTakeRead), so a check-then-act take fails every time instead of
/// when the scheduler happens to interleave 100 requests that way.
@Suite("The baton's take under a forced interleaving")
struct BatonRaceTests {
    /// A group with ada and bob in it: its id and their account ids.
    static func group(
        _ client: any TestClientProtocol, _ repository: StoreRepository
    ) async throws -> (
        id: Int64, ada: Int64, bob: Int64
    ) {
        let ada = try await client.signUp("ada")
        let bob = try await client.signUp("bob")
        let (id, invite) = try await client.createGroup(ada)
        try await client.join(bob, invite)
        let ids = try await repository.database.read { db in
            try await (
                db.one("SELECT id FROM account WHERE username = ?", "ada")?.int("id"),
                db.one("SELECT id FROM account WHERE username = ?", "bob")?.int("id")
            )
        }
        return (Int64(id), try #require(ids.0), try #require(ids.1))
    }

    @Test(
        "A rival's take between this take's read and its write wins: this one gets baton_held naming them",
        arguments: Backend.available)
    func rivalBetweenReadAndWrite(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let (id, ada, bob) = try await Self.group(client, repository)
            let now = harness.clock.now
            // Bob's claim lands in ada's transaction after it read the baton free (on SQLite, whose
            // one writer runs write transactions one after the other, this is the only way to get
            // there; on PostgreSQL it is what a concurrent commit looks like to the write).
            let rival: @Sendable (any SQLSession) async throws -> Void = { db in
                try await db.query(
                    "UPDATE baton SET holder_id = ?, since_ns = ?, expires_ns = ? WHERE team_id = ?", bob,
                    now.nanosecondsSinceEpoch, now.nanosecondsSinceEpoch + 3_600_000_000_000, id)
            }
            let error = await #expect(throws: StoreError.self) {
                try await StoreRepository.$afterTakeRead.withValue(rival) {
                    _ = try await repository.takeBaton(id, account: ada, now: now)
                }
            }
            #expect(error?.code == "baton_held", "\(String(describing: error))")
            #expect(error?.message.contains("bob") == true, "\(String(describing: error))")
        }
    }

    @Test(
        "Two takes that both read the baton free before either writes: exactly one holds it (PostgreSQL)",
        arguments: Backend.available.filter { $0 == .postgres })
    func bothReadBeforeEitherWrites(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let (id, ada, bob) = try await Self.group(client, repository)
            let now = harness.clock.now
            // Each take waits after its read until the other has read too. (SQLite could not get
            // here: its second write transaction begins only when the first has committed.)
            let barrier = Barrier(parties: 2)
            let results = try await StoreRepository.$afterTakeRead.withValue({ _ in await barrier.arrive() }) {
                try await withThrowingTaskGroup(of: Result<Int64?, StoreError>.self) { group in
                    for account in [ada, bob] {
                        group.addTask {
                            do {
                                return .success(try await repository.takeBaton(id, account: account, now: now).holderID)
                            } catch let error as StoreError {
                                return .failure(error)
                            }
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            let winners = results.compactMap { try? $0.get() }
            let losers = results.compactMap { if case .failure(let e) = $0 { e } else { nil } }
            #expect(winners.count == 1, "\(results)")
            #expect(losers.map(\.code) == ["baton_held"], "\(results)")
            let holder = try await repository.database.read { db in
                try await db.one("SELECT holder_id FROM baton WHERE team_id = ?", id)?.intOrNil("holder_id")
            }
            #expect(holder == winners.first ?? nil)
        }
    }
}

/// Lets `parties` tasks through together, once all of them have arrived.
actor Barrier {
    private let parties: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(parties: Int) { self.parties = parties }

    func arrive() async {
        if waiting.count + 1 >= parties {
            for continuation in waiting { continuation.resume() }
            waiting.removeAll()
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}
