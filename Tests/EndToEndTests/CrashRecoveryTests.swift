import Foundation
import GRDB
import PackControl
import TestSupport
import Testing

@Suite("Crash and power-cut recovery (real time: handoffd killed while it records)", .serialized)
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

    /// Starts handoffd replaying the demo run at 25× and kills it as soon as its journal holds
    /// `laps` closed laps of run `run` and 5 points after the last of them, so that the final
    /// lap has some (polled on a thread of its own, as above: no time window).
    static func killAfterLaps(_ laps: Int, run: Int, in dir: TemporaryDirectory) async throws -> Daemon {
        let daemon = try Daemon(
            in: dir, arguments: ["--replay", demoCapturePath, "--speed", "25"], logName: "laps\(run).log")
        let killed: Bool = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                // A bound only for giving up on a daemon that never gets there.
                let deadline = Date().addingTimeInterval(600)
                var there = false
                while !there, Date() < deadline, !daemon.log.contains("Run \(run) finished") {
                    there =
                        (try? daemon.openDatabase().read { db in
                            try Bool.fetchOne(
                                db,
                                sql: """
                                    SELECT (SELECT count(*) FROM lap WHERE session_id = ?1) >= ?2
                                        AND (SELECT max(elapsed_s) FROM point WHERE session_id = ?1)
                                            >= (SELECT max(end_elapsed_s) FROM lap WHERE session_id = ?1) + 5
                                    """, arguments: [run, laps])
                        } ?? false) ?? false
                    if !there { usleep(5_000) }
                }
                daemon.kill()
                continuation.resume(returning: there)
            }
        }
        guard killed else { throw DaemonFailure("run \(run) never closed \(laps) laps: \(daemon.log)") }
        return daemon
    }

    @Test(
        "SIGKILL after one and after two laps closed: the recovered run's distance, time and laps are what its journal holds"
    )
    func killAfterLaps() async throws {
        let dir = try TemporaryDirectory("handoff-kill-laps")
        defer { dir.remove() }
        for (run, closedLaps) in [(1, 1), (2, 2)] {
            let daemon = try await Self.killAfterLaps(closedLaps, run: run, in: dir)
            #expect(!daemon.log.contains("Run \(run) finished"), "run \(run) was killed while it recorded")
            // What the killed daemon had committed: the recovery may use nothing else.
            let before = try daemon.openDatabase().read { db in
                (
                    points: try Row.fetchAll(
                        db, sql: "SELECT elapsed_s, distance_m FROM point WHERE session_id = ? ORDER BY elapsed_s",
                        arguments: [run]
                    ).map { (elapsed: $0["elapsed_s"] as Int, distance: $0["distance_m"] as Double) },
                    laps: try Row.fetchAll(
                        db, sql: "SELECT * FROM lap WHERE session_id = ? ORDER BY lap_index", arguments: [run]),
                    pauses: try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM event WHERE session_id = ? AND kind = 'pause'", arguments: [run])
                )
            }
            let restarted = try Daemon(in: dir, arguments: [], logName: "recover-laps\(run).log")
            let status = try await restarted.waitUntilReady()
            restarted.terminate()
            #expect(status.pack.recoveredRuns == [Int64(run)])
            let after = try restarted.openDatabase().read { db in
                (
                    session: try Row.fetchOne(
                        db, sql: "SELECT elapsed_s, timer_s, distance_m, point_count FROM session WHERE id = ?",
                        arguments: [run]),
                    laps: try Row.fetchAll(
                        db, sql: "SELECT * FROM lap WHERE session_id = ? ORDER BY lap_index", arguments: [run])
                )
            }
            // Computed here from the journal as the killed daemon left it: the run ends at its last
            // point; the closed laps stay as they were; the final lap runs from the last closed
            // one's end to the last point and covers the distance between those two points.
            let last = try #require(before.points.last)
            #expect(before.laps.count == closedLaps)
            let session = try #require(after.session)
            #expect(session["elapsed_s"] as Double == Double(last.elapsed))
            #expect(session["distance_m"] as Double == last.distance)
            #expect(session["point_count"] as Int == before.points.count)
            if before.pauses == 0 { #expect(session["timer_s"] as Double == Double(last.elapsed)) }
            #expect(after.laps.count == closedLaps + 1)
            #expect(Array(after.laps.prefix(closedLaps)) == before.laps, "run \(run): the closed laps changed")
            let lapStart: Int = try #require(before.laps.last)["end_elapsed_s"]
            let startDistance = try #require(before.points.first { $0.elapsed == lapStart }).distance
            let final = try #require(after.laps.last)
            #expect(final["lap_index"] as Int == closedLaps + 1)
            #expect(final["trigger"] as String == "session_end")
            #expect(final["start_elapsed_s"] as Int == lapStart)
            #expect(final["end_elapsed_s"] as Int == last.elapsed)
            #expect(final["point_count"] as Int == before.points.filter { $0.elapsed > lapStart }.count)
            #expect(
                abs(final["distance_m"] as Double - (last.distance - startDistance)) < 1e-6,
                "run \(run): final lap \(final["distance_m"] as Double) m, its points cover \(last.distance - startDistance) m"
            )
            let lapsTotal = after.laps.reduce(0.0) { $0 + ($1["distance_m"] as Double) }
            #expect(
                abs(lapsTotal - last.distance) < 1e-6, "run \(run): laps add up to \(lapsTotal) m of \(last.distance) m"
            )
        }
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
            #expect(status.pack.recoveredRuns == [Int64(run)], "run \(run), killed \(moment) s in")
            #expect(restarted.log.contains("Recovered a run left open by a crash or power cut"))

            let journal = try restarted.openDatabase().read { db in
                (
                    integrity: try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                    session: try Row.fetchOne(
                        db,
                        sql: "SELECT state, recovered, elapsed_s, distance_m, point_count FROM session WHERE id = ?",
                        arguments: [run]),
                    lastDistance: try Double.fetchOne(
                        db, sql: "SELECT distance_m FROM point WHERE session_id = ? ORDER BY elapsed_s DESC LIMIT 1",
                        arguments: [run]),
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
            // The recovered summary is the run up to its last kept point.
            if let lastElapsed = journal.elapsed.last {
                #expect(session["elapsed_s"] as Double? == Double(lastElapsed), "run \(run)")
                #expect(session["distance_m"] as Double? == journal.lastDistance, "run \(run)")
                #expect(session["point_count"] as Int? == journal.elapsed.count, "run \(run)")
            }
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
