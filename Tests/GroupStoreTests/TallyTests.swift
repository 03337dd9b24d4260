import Foundation
import HandoffAPI
import HandoffModel
import HummingbirdTesting
import Synchronization
import Testing

@testable import GroupStore

/// The totals many uploads touch are a stored base plus a ledger of pending rows that a roll-up
/// folds in (Groups/Tally.swift): exact whenever they are read, exact after any roll-up, and no
/// upload waits for another's transaction.
@Suite("Totals kept as a ledger with a roll-up")
struct TallyTests {
    static func pendingRows(_ repository: StoreRepository) async throws -> Int64 {
        try await repository.database.read { db in try await db.one("SELECT count(*) AS n FROM tally")?.int("n") ?? -1 }
    }

    static func accountID(_ repository: StoreRepository, _ username: String) async throws -> Int64 {
        let id = try await repository.database.read { db in
            try await db.one("SELECT id FROM account WHERE username = ?", username)?.int("id")
        }
        return try #require(id)
    }

    /// A run as an upload would store it, without a file to parse.
    static func run(start: WallInstant, distanceMM: Int64) -> NewRun {
        let uuid = UUID().uuidString.lowercased()
        let hex = uuid.replacingOccurrences(of: "-", with: "")
        return NewRun(
            uuid: uuid, started: start, elapsedMS: 600_000, timerMS: 600_000, distanceMM: distanceMM, sport: "run",
            format: "fit", sha256: hex + hex, file: [1, 2, 3], summary: #"{"source":"test"}"#)
    }

    /// What the concurrent parts of a test report to it.
    final class Gauge: Sendable {
        let done = Atomic<Bool>(false)
        let folded = Atomic<Int>(0)
        let mostPending = Atomic<Int64>(0)
    }

    @Test(
        "Before any roll-up, the group's total, members, legs and former members read exact; a roll-up changes nothing shown",
        arguments: Backend.available)
    func readsExactBeforeRollUp(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let (id, invite) = try await client.createGroup(ada)
            try await client.join(bob, invite)
            #expect(try await client.call(.post, "/v1/groups/\(id)/baton/take", token: ada).status == .ok)
            let base = harness.clock.now.advanced(byNanoseconds: 60 * nanosecondsPerSecond)
            var uploaded: [(token: String, uuid: String, mm: Int64)] = []
            for (index, token) in [ada, ada, bob].enumerated() {
                let file = RunFiles.fit(
                    start: base.advanced(byNanoseconds: Int64(index) * 60 * nanosecondsPerSecond),
                    seconds: 600 + index * 60)
                let uuid = UUID().uuidString.lowercased()
                #expect(try await client.upload(token, uuid: uuid, file: file).status == .created)
                uploaded.append((token, uuid, try RunFiles.distanceMM(file)))
            }
            #expect(try await Self.pendingRows(repository) == 3, "each counted run left a tally row")

            func progress() async throws -> ProgressView {
                try await client.call(.get, "/v1/groups/\(id)/progress", token: ada).decode(ProgressView.self)
            }
            var shown = try await progress()
            let adaMM = uploaded[0].mm + uploaded[1].mm
            #expect(shown.group.totalM == Double(adaMM + uploaded[2].mm) / 1000)
            #expect(shown.members.map(\.distanceM) == [Double(adaMM) / 1000, Double(uploaded[2].mm) / 1000])
            #expect(shown.members.map(\.runs) == [2, 1])
            #expect(shown.legs.map(\.distanceM) == [Double(adaMM) / 1000] && shown.legs.map(\.runs) == [2])
            let group = try await client.call(.get, "/v1/groups/\(id)", token: bob).decode(GroupView.self)
            #expect(group.totalM == shown.group.totalM)
            let baton = try await client.call(.get, "/v1/groups/\(id)/baton", token: bob).decode(BatonState.self)
            #expect(baton.legs == shown.legs)

            // A deleted run: a negative row, still pending.
            #expect(try await client.call(.delete, "/v1/runs/\(uploaded[1].uuid)", token: ada).status == .noContent)
            #expect(try await Self.pendingRows(repository) == 4)
            shown = try await progress()
            #expect(shown.group.totalM == Double(uploaded[0].mm + uploaded[2].mm) / 1000)
            #expect(shown.members.map(\.runs) == [1, 1])
            #expect(shown.legs.map(\.distanceM) == [Double(uploaded[0].mm) / 1000] && shown.legs.map(\.runs) == [1])
            #expect(try await totalsProblems(repository).isEmpty)

            // Bob leaves with his run still pending: it stays in the total, as former members'.
            let bobID = try await Self.accountID(repository, "bob")
            try await repository.leave(Int64(id), member: bobID, by: bobID, now: harness.clock.now)
            let left = try await progress()
            #expect(left.group.totalM == shown.group.totalM)
            #expect(left.formerMembersM == Double(uploaded[2].mm) / 1000)
            #expect(left.members.map(\.username) == ["ada"])
            #expect(try await totalsProblems(repository).isEmpty)

            #expect(try await Self.pendingRows(repository) == 3, "bob's pending row was folded as he left")
            #expect(try await repository.rollUp(all: true) == 3)
            #expect(try await Self.pendingRows(repository) == 0)
            #expect(try await progress() == left, "a roll-up changes nothing shown")
            try await checkTotals(repository)
        }
    }

    @Test(
        "A storm of uploads, deletes and leaves in two groups, with roll-ups running beside it: every total exact",
        arguments: Backend.available)
    func stormWithRollUps(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let owner = try await client.signUp("owner")
            let (first, invite) = try await client.createGroup(owner, name: "First")
            let (second, otherInvite) = try await client.createGroup(owner, name: "Second")
            var runners: [Int64] = []
            for i in 0..<12 {
                let token = try await client.signUp("runner\(i)")
                try await client.join(token, invite)
                if i % 2 == 0 { try await client.join(token, otherInvite) }
                if i == 0 {
                    #expect(try await client.call(.post, "/v1/groups/\(first)/baton/take", token: token).status == .ok)
                }
                runners.append(try await Self.accountID(repository, "runner\(i)"))
            }
            let leavers = [runners[3], runners[4]]
            let base = harness.clock.now.advanced(byNanoseconds: 60 * nanosecondsPerSecond)
            let gauge = Gauge()
            // Two rollers at once, as two store instances would run them.
            let rollers = (0..<2).map { _ in
                Task {
                    while !gauge.done.load(ordering: .acquiring) {
                        gauge.mostPending.max(try await Self.pendingRows(repository), ordering: .relaxed)
                        gauge.folded.add(try await repository.rollUp(), ordering: .relaxed)
                        try await Task.sleep(for: .milliseconds(2))
                    }
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<300 {
                    if index >= 16 { try await group.next() }
                    let runner = runners[index % runners.count]
                    let run = Self.run(
                        start: base.advanced(byNanoseconds: Int64(index) * nanosecondsPerSecond),
                        distanceMM: 1_000_000 + Int64(index) * 7)
                    group.addTask {
                        let (stored, _, _, created) = try await repository.putRun(
                            run, account: runner, now: harness.clock.now)
                        #expect(created)
                        if index % 6 == 1 { try await repository.deleteRun(uuid: stored.uuid, account: runner) }
                    }
                    if index == 100 || index == 200 {
                        let leaver = leavers[index / 100 - 1]
                        group.addTask {
                            try await repository.leave(
                                Int64(first), member: leaver, by: leaver, now: harness.clock.now)
                        }
                    }
                }
                try await group.waitForAll()
            }
            gauge.done.store(true, ordering: .releasing)
            for roller in rollers { try await roller.value }
            #expect(gauge.folded.load(ordering: .relaxed) > 0, "the roll-ups ran during the storm")
            #expect(gauge.mostPending.load(ordering: .relaxed) > 0, "rows were pending at some point")
            let runs = try await repository.database.read { db in try await db.one("SELECT count(*) AS n FROM run") }
            #expect(try runs?.int("n") == 250)
            let shown = try await client.call(.get, "/v1/groups/\(first)/progress", token: owner).decode(
                ProgressView.self)
            #expect(!shown.members.contains { ["runner3", "runner4"].contains($0.username) })
            #expect(shown.formerMembersM > 0)
            _ = second
            try await checkTotals(repository)
        }
    }

    @Test(
        "An upload held open before its commit keeps no other upload to the group waiting, nor a roll-up (PostgreSQL)",
        arguments: Backend.available.filter { $0 == .postgres })
    func uploadDoesNotWaitForAnother(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let bob = try await client.signUp("bob")
            let (id, invite) = try await client.createGroup(ada)
            try await client.join(bob, invite)
            let adaID = try await Self.accountID(repository, "ada")
            let bobID = try await Self.accountID(repository, "bob")
            let start = harness.clock.now.advanced(byNanoseconds: 60 * nanosecondsPerSecond)
            // Connections open beforehand: the window below measures waiting on locks, not
            // connecting, which took seconds on a loaded machine.
            try await withThrowingTaskGroup(of: Void.self) { reads in
                for _ in 0..<3 {
                    reads.addTask {
                        _ = try await repository.database.read { try await $0.query("SELECT pg_sleep(0.1)", []) }
                    }
                }
                try await reads.waitForAll()
            }
            let (entered, enter) = AsyncStream<Void>.makeStream()
            let (release, go) = AsyncStream<Void>.makeStream()
            let hold: @Sendable (any SQLSession) async throws -> Void = { _ in
                enter.yield()
                var iterator = release.makeAsyncIterator()
                _ = await iterator.next()
            }
            let held = Task {
                try await StoreRepository.$beforeRunCommit.withValue(hold) {
                    try await repository.putRun(
                        Self.run(start: start, distanceMM: 5_000_000), account: adaID, now: harness.clock.now)
                }
            }
            var inside = entered.makeAsyncIterator()
            _ = await inside.next()

            // Bob's upload, then a roll-up, while ada's transaction stays open: none of their
            // statements ever waits on a lock (PostgreSQL's own view, polled), and they finish.
            // A minute at most: on a loaded machine they took over 5 s without any lock wait.
            let gauge = Gauge()
            let bobs = Task {
                defer { gauge.done.store(true, ordering: .releasing) }
                let upload = try await repository.putRun(
                    Self.run(start: start, distanceMM: 3_000_000), account: bobID, now: harness.clock.now)
                return (upload.created, try await repository.rollUp(all: true))
            }
            let deadline = ContinuousClock.now + .seconds(60)
            var waits: [String] = []
            while !gauge.done.load(ordering: .acquiring), ContinuousClock.now < deadline, waits.isEmpty {
                waits = try await repository.database.readStatement(
                    """
                    SELECT wait_event || ': ' || query AS waiting FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock'
                    """, []
                ).map { try $0.text("waiting") }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(waits.isEmpty, "nothing waits on ada's open upload")
            let finished = gauge.done.load(ordering: .acquiring)
            #expect(finished, "bob's upload and a roll-up finish while ada's upload is open")
            go.yield()
            go.finish()
            #expect(try await held.value.created, "ada's upload went through once let go")
            let (created, folded) = try await bobs.value
            #expect(created)
            #expect(folded == 1, "the roll-up folded bob's row, not ada's uncommitted one")
            #expect(try await Self.pendingRows(repository) == 1)
            let group = try await client.call(.get, "/v1/groups/\(id)", token: bob).decode(GroupView.self)
            #expect(group.totalM == 8000)
            try await checkTotals(repository)
        }
    }

    @Test(
        "The roller waits for the schema, then folds what uploads leave pending, and stops when cancelled",
        arguments: Backend.available)
    func rollerFolds(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let (id, _) = try await client.createGroup(ada)
            let file = RunFiles.fit(start: harness.clock.now.advanced(byNanoseconds: 60 * nanosecondsPerSecond))
            #expect(try await client.upload(ada, uuid: UUID().uuidString.lowercased(), file: file).status == .created)
            let (ready, schemaReady) = AsyncStream<Void>.makeStream()
            let roller = TallyRoller(
                repository: repository, logger: harness.logger, ready: ready, interval: .milliseconds(20))
            let running = Task { try await roller.run() }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await Self.pendingRows(repository) == 1, "nothing rolls before the schema is ready")
            schemaReady.yield()
            schemaReady.finish()
            let deadline = ContinuousClock.now + .seconds(10)
            while try await Self.pendingRows(repository) > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await Self.pendingRows(repository) == 0, "the roller folded the upload's row")
            running.cancel()
            try await running.value
            let group = try await client.call(.get, "/v1/groups/\(id)", token: ada).decode(GroupView.self)
            #expect(group.totalM == Double(try RunFiles.distanceMM(file)) / 1000)
            try await checkTotals(repository)
        }
    }
}
