import Foundation
import GRDB
import PackControl
import TestSupport
import Testing

@Suite("Crash and power-cut recovery", .serialized)
struct CrashRecoveryTests {
    /// The highest point handoffd said it recorded (logged at trace level before its commit).
    static func lastLoggedPoint(_ log: String) -> Int? {
        log.split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: "recorded point ") else { return nil }
            return Int(line[range.upperBound...].prefix(while: \.isNumber))
        }.max()
    }

    /// Starts handoffd replaying the demo run at 25×, waits for run `run` to start and kills it
    /// `after` seconds in. The waiting is done on a thread of its own, not on the test pool: other
    /// suites' synchronous work can hold the pool's threads for a minute at the start of a pass,
    /// and a kill timed there came after the whole run had been replayed. Returns the killed
    /// daemon and the last point it said it recorded.
    static func startAndKill(
        run: Int, in dir: TemporaryDirectory, after seconds: Double
    ) async throws -> (Daemon, Int) {
        let daemon = try Daemon(
            in: dir, arguments: ["--replay", demoCapturePath, "--speed", "25", "--log-level", "trace"],
            logName: "run\(run).log")
        let started: Bool = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(60)
                while !daemon.log.contains("Run \(run) started"), Date() < deadline { usleep(5_000) }
                guard daemon.log.contains("Run \(run) started") else {
                    daemon.kill()
                    return continuation.resume(returning: false)
                }
                usleep(useconds_t(seconds * 1_000_000))
                daemon.kill()
                continuation.resume(returning: true)
            }
        }
        guard started else { throw DaemonFailure("run \(run) never started: \(daemon.log)") }
        return (daemon, Self.lastLoggedPoint(daemon.log) ?? 0)
    }

    @Test(
        "SIGKILL at 20 random moments while recording: each run is recovered, the journal is sound, at most 2 s of points are lost"
    )
    func killTwentyTimes() async throws {
        let dir = try TemporaryDirectory("handoff-kill")
        defer { dir.remove() }
        var random = SystemRandomNumberGenerator()
        var moments: [Double] = []
        for run in 1...20 {
            let moment = Double.random(in: 0.05...2.0, using: &random)
            moments.append(moment)
            let (daemon, logged) = try await Self.startAndKill(run: run, in: dir, after: moment)
            #expect(!daemon.log.contains("Run \(run) finished"), "run \(run) was killed while it recorded")

            // Start again: the open run is recovered before anything else happens.
            let restarted = try Daemon(in: dir, arguments: [], logName: "recover\(run).log")
            let status = try await restarted.waitUntilReady()
            restarted.terminate()
            #expect(status.recoveredRuns == [Int64(run)], "run \(run), killed \(moment) s in")
            #expect(restarted.log.contains("Recovered a run left open by a crash or power cut"))

            let journal = try restarted.openDatabase().read { db in
                (
                    integrity: try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                    session: try Row.fetchOne(
                        db, sql: "SELECT state, recovered FROM session WHERE id = ?", arguments: [run]),
                    elapsed: try Int.fetchAll(
                        db, sql: "SELECT elapsed_s FROM point WHERE session_id = ? ORDER BY elapsed_s", arguments: [run]
                    ),
                    pauses: try Int64.fetchAll(
                        db, sql: "SELECT offset_ns FROM event WHERE session_id = ? AND kind = 'pause'", arguments: [run]
                    ),
                    outbox: try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM outbox WHERE session_id = ?", arguments: [run]),
                    lastEvent: try String.fetchOne(
                        db, sql: "SELECT kind FROM event WHERE session_id = ? ORDER BY id DESC LIMIT 1",
                        arguments: [run])
                )
            }
            #expect(journal.integrity == "ok")
            let session = try #require(journal.session)
            #expect(session["state"] as String == "finished")
            #expect(session["recovered"] as Bool == true)
            let last = journal.elapsed.last ?? -1
            #expect(
                last >= logged - 2, "run \(run): handoffd had recorded point \(logged), the journal kept up to \(last)")
            // Every second is there but those the runner paused (the demo run pauses at 603 s).
            let gaps = zip(journal.elapsed, journal.elapsed.dropFirst()).filter { $1 - $0 != 1 }
            #expect(journal.elapsed.first == 0 || journal.elapsed.isEmpty)
            #expect(
                gaps.allSatisfy { a, b in
                    journal.pauses.contains { $0 >= Int64(a) * 1_000_000_000 && $0 < Int64(b) * 1_000_000_000 }
                },
                "run \(run): points missing inside the run at \(gaps)")
            #expect(journal.outbox == 1)
            #expect(journal.lastEvent == "recovered")
        }
        print("killed at", moments.map { Double(Int($0 * 1000)) / 1000 })
    }
}
