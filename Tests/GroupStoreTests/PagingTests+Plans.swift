import Foundation
import HandoffModel
import Testing

@testable import GroupStore

/// Records each statement a repository function runs, so that a test can ask the engine how it
/// plans exactly those.
final class RecordingSession: SQLSession {
    let inner: any SQLSession
    private(set) var statements: [(sql: String, arguments: [SQLValue])] = []

    init(_ inner: any SQLSession) { self.inner = inner }

    func query(_ sql: String, _ arguments: [SQLValue]) async throws -> [SQLRow] {
        statements.append((sql, arguments))
        return try await inner.query(sql, arguments)
    }
}

extension PagingTests {
    @Test(
        "Every statement of a page reads through an index, in the index's order: no scan of a table, no sort",
        arguments: Backend.available)
    func pagesReadIndexes(_ backend: Backend) async throws {
        let harness = try StoreHarness(backend)
        try await harness.run { client, repository in
            let ada = try await client.signUp("ada")
            let (id, _) = try await client.createGroup(ada)
            try await Self.seed(repository, team: id, count: 2_000, modulo: 50_000)
            try await Self.addPending(repository, team: id, every: 101)
            // Statistics, as autovacuum gathers them on a live PostgreSQL (SQLite's store never
            // gathers any, and plans on its indexes alone).
            if backend == .postgres { try await repository.database.write { db in try await db.query("ANALYZE") } }
            let team = Int64(id)
            let now = harness.clock.now
            let problems = try await repository.database.read { db in
                // PostgreSQL picks a sequential scan over a small table whatever its indexes;
                // forbidding it leaves one only where no index serves the statement.
                if backend == .postgres { try await db.query("SET LOCAL enable_seqscan = off") }
                let recorder = RecordingSession(db)
                for cursor: PageCursor? in [nil, .distance(mm: 25_000, account: 900, rank: 1000)] {
                    _ = try await StoreRepository.members(
                        recorder, team: team, order: .distance, after: cursor, limit: 50, now: now)
                }
                for cursor: PageCursor? in [nil, .rotation(turn: 900, account: 900)] {
                    _ = try await StoreRepository.members(
                        recorder, team: team, order: .rotation, after: cursor, limit: 50, now: now)
                }
                for cursor: PageCursor? in [nil, .name(key: "runner15", account: 16)] {
                    _ = try await StoreRepository.members(
                        recorder, team: team, order: .name(prefix: "runner1"), after: cursor, limit: 50, now: now)
                }
                for cursor: PageCursor? in [nil, .leg(taken: 5, id: 3)] {
                    _ = try await StoreRepository.legs(recorder, team, after: cursor, limit: 20)
                }
                _ = try await StoreRepository.nextInRotation(recorder, team: team, after: 900)
                var problems: [String] = []
                for (sql, arguments) in recorder.statements {
                    let plan: [String]
                    if backend == .sqlite {
                        plan = try await db.query("EXPLAIN QUERY PLAN " + sql, arguments).map { try $0.text("detail") }
                    } else {
                        plan = try await db.query("EXPLAIN (COSTS OFF) " + sql, arguments).map {
                            try $0.text("QUERY PLAN")
                        }
                    }
                    let bad = plan.filter {
                        backend == .sqlite
                            ? $0.hasPrefix("SCAN ") || $0.contains("TEMP B-TREE")
                            : $0.contains("Seq Scan") || (sql.contains("ORDER BY") && $0.contains("Sort"))
                    }
                    if !bad.isEmpty { problems.append("\(sql)\n  \(plan.joined(separator: "\n  "))") }
                }
                #expect(recorder.statements.count >= 12, "\(recorder.statements.count) statements recorded")
                return problems
            }
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n\n"))")
        }
    }
}
