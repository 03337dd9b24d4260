import Foundation
import GRDB
import HandoffModel
import PackControl
import SensorCodecs
import TestSupport
import Testing

/// GPS time on a pack whose clock is wrong, and a real gpsd that dies in the middle of a run.
@Suite("GPS in handoffd: GPS time, and gpsd dying mid-run (real time: gpsd and handoffd as processes)", .serialized)
struct GPSEndToEndTests {
    /// The demo capture with every wall time a year early (a Pi that booted without network),
    /// preceded by the kernel's "clock not synchronised" when `synchronized` is false.
    /// `dropFixesBeforeStart` removes the GPS sentences before the start command, so that the
    /// first fix comes during the run and the points already kept must be re-stamped.
    static func wrongClockCapture(
        in dir: TemporaryDirectory, synchronized: Bool, dropFixesBeforeStart: Bool
    ) throws
        -> (path: String, trueStart: Int64)
    {
        let yearNs: Int64 = 365 * 86_400 * 1_000_000_000
        var lines = try String(contentsOfFile: demoCapturePath, encoding: .utf8).split(separator: "\n").map(String.init)
        var trueStart: Int64 = 0
        var started = false
        var out = [lines.removeFirst()]
        for line in lines {
            var event = try CaptureCodec.decodeEvent(Array(line.utf8))
            if case .command(.start, _) = event.body, !started {
                started = true
                trueStart = event.wall!.nanosecondsSinceEpoch
            }
            if dropFixesBeforeStart, !started, case .payload(_, .nmea, _) = event.body { continue }
            if out.count == 1, !synchronized {
                out.append(
                    CaptureCodec.encode(
                        CaptureEvent(
                            monotonic: event.monotonic, wall: event.wall.map { $0.advanced(byNanoseconds: -yearNs) },
                            body: .clock(synchronized: false))))
            }
            event.wall = event.wall.map { $0.advanced(byNanoseconds: -yearNs) }
            out.append(CaptureCodec.encode(event))
        }
        let path = dir.path + "/wrong-clock.jsonl"
        try out.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return (path, trueStart)
    }

    static func record(
        _ capture: String, in dir: TemporaryDirectory
    ) throws -> (startWall: Int64, clock: String, log: String) {
        let daemon = try Daemon(in: dir, arguments: ["--replay", capture, "--speed", "max", "--exit-after-replay"])
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 0, "\(daemon.log)")
        let row = try daemon.openDatabase().read { db in
            try Row.fetchOne(db, sql: "SELECT start_wall_ns, clock_source FROM session ORDER BY id DESC LIMIT 1")
        }
        let r = try #require(row)
        return (r["start_wall_ns"], r["clock_source"], daemon.log)
    }

    @Test("A run recorded with the clock a year wrong and not synchronised ends up in GPS time (fix before the start)")
    func gpsTimeBeforeStart() throws {
        let dir = try TemporaryDirectory("gps-time-a")
        defer { dir.remove() }
        let (capture, trueStart) = try Self.wrongClockCapture(in: dir, synchronized: false, dropFixesBeforeStart: false)
        let (startWall, clock, _) = try Self.record(capture, in: dir)
        #expect(clock == "gps")
        #expect(abs(startWall - trueStart) < 500_000_000, "start \(startWall) vs true \(trueStart)")
    }

    @Test("The first fix comes during the run: the run and the points already kept are re-stamped to GPS time")
    func gpsTimeAfterStart() throws {
        let dir = try TemporaryDirectory("gps-time-b")
        defer { dir.remove() }
        let (capture, trueStart) = try Self.wrongClockCapture(in: dir, synchronized: false, dropFixesBeforeStart: true)
        let (startWall, clock, log) = try Self.record(capture, in: dir)
        #expect(clock == "gps")
        #expect(abs(startWall - trueStart) < 500_000_000, "start \(startWall) vs true \(trueStart)")
        #expect(log.contains("times now come from GPS time"))
        // The run really began before any fix: its first seconds have no position.
        let database = try DatabaseQueue(path: dir.path + "/handoff.sqlite")
        let firstFix = try database.read { db in
            try Int.fetchOne(db, sql: "SELECT min(elapsed_s) FROM point WHERE lat IS NOT NULL")
        }
        #expect((firstFix ?? 0) >= 1, "first point with a position at \(String(describing: firstFix)) s")
    }

    @Test("A synchronised clock is trusted: the same capture keeps the system's (wrong) times")
    func synchronisedClockIsTrusted() throws {
        let dir = try TemporaryDirectory("gps-time-c")
        defer { dir.remove() }
        let (capture, trueStart) = try Self.wrongClockCapture(in: dir, synchronized: true, dropFixesBeforeStart: false)
        let (startWall, clock, _) = try Self.record(capture, in: dir)
        #expect(clock == "system")
        #expect(abs(startWall - (trueStart - 365 * 86_400 * 1_000_000_000)) < 1_000)
    }
}

@Suite(
    "A real gpsd dies during a run",
    .enabled(if: SystemPrograms.runnable("gpsd"), "needs Debian's gpsd"))
struct GpsdOutageTests {
    /// gpsd reading NMEA datagrams on `udpPort`, serving clients on `port`.
    static func startGpsd(port: UInt16, udpPort: UInt16, dir: TemporaryDirectory) throws -> BackgroundProcess {
        try BackgroundProcess(
            try SystemPrograms.require("gpsd", package: "gpsd"),
            [
                "-N", "-n", "-b", "-S", String(port), "-F", dir.path + "/gpsd.sock", "-P", dir.path + "/gpsd.pid",
                "udp://127.0.0.1:\(udpPort)",
            ],
            environment: ["GPSD_SHM_KEY": "0x4770" + String(port, radix: 16), "PATH": "/usr/sbin:/usr/bin:/bin"])
    }

    @Test("Kill gpsd mid-run: the footpod carries on, the GPS gap is in the session, GPS resumes when gpsd is back")
    func gpsdKilledDuringRun() async throws {
        let dir = try TemporaryDirectory("gpsd-outage")
        defer { dir.remove() }
        let capture = dir.path + "/run.jsonl"
        #expect(try handoff(["simulate", "--minutes", "1", "-o", capture]).status == 0)
        // The simulated receiver's sentences go to gpsd over UDP in real time; the strap and
        // footpod are replayed live from the same capture beside the real gpsd.
        var sentences: [(offset: Int64, text: String)] = []
        var first: Int64?
        var startOffset: Int64 = 0
        for line in try String(contentsOfFile: capture, encoding: .utf8).split(separator: "\n").dropFirst() {
            let event = try CaptureCodec.decodeEvent(Array(line.utf8))
            let base = first ?? event.monotonic.nanoseconds
            first = base
            let offset = event.monotonic.nanoseconds - base
            if case .command(.start, _) = event.body { startOffset = offset }
            if case .payload("gps0", .nmea, .text(let text)) = event.body { sentences.append((offset, text)) }
        }
        let port = freeLoopbackPort()
        let udpPort = freeLoopbackPort(udp: true)
        var gpsd = try Self.startGpsd(port: port, udpPort: udpPort, dir: dir)
        defer { killProcesses(commandLineContaining: ["-S", String(port)]) }
        try """
        [replay]
        file = "\(capture)"
        live = true
        sensors = ["hr0", "pod0"]
        [gps]
        source = "gpsd"
        gpsd = "127.0.0.1:\(port)"
        [pedometer]
        sources = ["footpod"]
        """.write(toFile: dir.path + "/handoff.toml", atomically: true, encoding: .utf8)
        let daemon = try Daemon(in: dir, arguments: ["--exit-after-replay"])
        defer { daemon.terminate() }
        // The receiver starts sending once handoffd answers, so that a slow start-up does not
        // put the outage before the run.
        try await daemon.waitUntilReady()
        let killAt = startOffset + 15_000_000_000
        let restartAt = killAt + 12_000_000_000
        let clock = ContinuousClock()
        let t0 = clock.now
        var t0Timespec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t0Timespec)
        let t0Monotonic = Int64(t0Timespec.tv_sec) * 1_000_000_000 + Int64(t0Timespec.tv_nsec)
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_addr.s_addr = inet_addr("127.0.0.1")
        target.sin_port = udpPort.bigEndian
        var killed = false
        var restarted = false
        for (offset, text) in sentences {
            try await clock.sleep(until: t0.advanced(by: .nanoseconds(offset)))
            if !killed, offset >= killAt {
                killProcesses(commandLineContaining: ["-S", String(port)])
                gpsd.kill9()
                killed = true
            }
            if killed, !restarted, offset >= restartAt {
                gpsd = try Self.startGpsd(port: port, udpPort: udpPort, dir: dir)
                restarted = true
            }
            let datagram = Array((text + "\r\n").utf8)
            _ = withUnsafePointer(to: &target) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, datagram, datagram.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        #expect(killed && restarted)
        let deadline = Date().addingTimeInterval(60)
        while daemon.process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(200)) }
        #expect(!daemon.process.isRunning, "handoffd did not finish the replay: \(daemon.log)")

        struct GPSEvent {
            var offset: Int64
            var kind: String
        }
        struct Point {
            var second: Int
            var latitude: Double?
            var distance: Double
            var steps: Int?
        }
        let db = try daemon.openDatabase()
        let eventRows = try db.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT event.offset_ns, event.kind FROM event JOIN sensor ON sensor.id = event.sensor_id
                    WHERE sensor.key = 'gps0' ORDER BY event.id
                    """)
        }
        let events = eventRows.map { row -> GPSEvent in GPSEvent(offset: row["offset_ns"], kind: row["kind"]) }
        let pointRows = try db.read { db in
            try Row.fetchAll(db, sql: "SELECT elapsed_s, lat, distance_m, steps FROM point ORDER BY elapsed_s")
        }
        let points = pointRows.map { row -> Point in
            Point(second: row["elapsed_s"], latitude: row["lat"], distance: row["distance_m"], steps: row["steps"])
        }
        // The kill and the restart in the run's own seconds. The daemon starts replaying a moment
        // after this test starts sending (its start-up, longer on a busy machine), so the run's
        // start is read from the journal (CLOCK_MONOTONIC, the daemon's and this test's) rather
        // than assumed.
        let runStart = try await db.read { db in try Int64.fetchOne(db, sql: "SELECT start_mono_ns FROM session") } ?? 0
        func runSecond(_ offset: Int64) -> Int {
            Int(((t0Monotonic + offset - runStart) / 1_000_000_000))
        }
        let killSecond = runSecond(killAt)
        let restartSecond = runSecond(restartAt)
        // The outage is in the session: the link dropped (gpsd closed the connection) and came back.
        let down = events.first { $0.kind == "disconnected" || $0.kind == "gap_start" }
        let up = events.last { $0.kind == "connected" || $0.kind == "gap_end" }
        #expect(down != nil && up != nil, "GPS events: \(events)")
        if let down, let up {
            // Seen up to 5 s late on a 2-core machine busy with the other suites' daemons.
            #expect(abs(Int(down.offset / 1_000_000_000) - killSecond) <= 6, "went down at \(down.offset)")
            #expect(
                up.offset > down.offset && Int(up.offset / 1_000_000_000) >= restartSecond - 1,
                "came back at \(up.offset)")
        }
        // No position is invented while gpsd is gone, and the footpod keeps the distance going.
        let noticed = max(killSecond + 4, down.map { Int($0.offset / 1_000_000_000) + 1 } ?? 0)
        let outage = points.filter { $0.second >= noticed && $0.second <= restartSecond }
        #expect(outage.count >= 6 && outage.allSatisfy { $0.latitude == nil }, "\(outage)")
        if let a = outage.first, let b = outage.last {
            #expect(
                b.distance - a.distance > Double(b.second - a.second) * 1.5, "distance \(a.distance) → \(b.distance)")
        }
        // GPS is back after gpsd restarts. The client's reconnect backoff tops out at 10 s, so the
        // first fix after the restart (the gap's end) comes within that and gpsd's own start-up;
        // from the second after it every point has a position. (A fixed "restart + 6 s" was
        // seen missed by 2 s on a loaded 2-core CI machine: the backoff's step fell late.)
        let back = events.last { $0.kind == "gap_end" && Int($0.offset / 1_000_000_000) >= killSecond }
        #expect(back != nil, "no gap_end after the restart: \(events)")
        if let back {
            let backSecond = Int(back.offset / 1_000_000_000)
            #expect(backSecond <= restartSecond + 14, "GPS came back at \(backSecond) s, gpsd at \(restartSecond) s")
            let after = points.filter { $0.second > backSecond + 1 }
            #expect(after.count >= 10 && after.allSatisfy { $0.latitude != nil }, "\(after)")
        }
        // Steps come from the footpod's cadence, the configured fallback.
        #expect((points.last?.steps ?? 0) > 100)
    }
}
