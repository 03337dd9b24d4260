import Foundation
import HandoffModel
import Logging
import PackSensors
import PackSystem
import SensorCodecs
import TestSupport
import Testing

/// The gpsd client against a real gpsd (Debian's gpsd 3.22, started by gpsfake on a loopback
/// port), fed the real receiver logs in the shared fixtures.
@Suite(
    "gpsd client against a real gpsd (gpsfake; real time: gpsd paces its replay on the wall clock)",
    .enabled(if: Fixtures.available && SystemPrograms.runnable("gpsfake"), "needs gpsd-clients and the fixtures"),
    .serialized)
struct GpsdClientTests {
    static let logs = [
        "beidou-gb", "bu353-glonass", "gp-320fw-2019-04-07-coldboot", "mtk-3301", "nmea-fuzzy-cases",
        "sirfstarv-nmea", "ublox-neo-m9n-nmea",
    ]

    /// Plays `log` once through gpsfake and returns every event our client passed on.
    static func playThroughGpsd(_ log: String) throws -> [CaptureEvent] {
        let port = freeLoopbackPort()
        let path = try Fixtures.url("gpsd/\(log).log").path
        // -1: play once, then gpsd reports the device gone; -p: gpsfake watches too, which makes
        // gpsd open the pty at once, and feeds after 1.4 s: our client connects well before.
        let gpsfake = try BackgroundProcess(
            try SystemPrograms.require("gpsfake", package: "gpsd-clients"),
            ["-1", "-p", "-q", "-s", "38400", "-P", String(port), path],
            environment: ProcessInfo.processInfo.environment.merging(["PATH": "/usr/sbin:/usr/bin:/bin"]) { _, b in b })
        defer {
            // gpsfake lingers after the log (and SIGTERM takes it seconds): end it and its gpsd.
            killProcesses(commandLineContaining: ["-S", String(port)])
            gpsfake.kill9()
        }
        let collector = EventCollector()
        let stop = StopFlag()
        var source = GpsdSource(id: "gps0", host: "127.0.0.1", port: port, clock: .system)
        source.backoff = Backoff(initial: 0.05, maximum: 0.2)
        let client = source
        let thread = Thread { client.run(emit: { collector.add($0) }, stop: stop, logger: Logger(label: "test")) }
        thread.start()
        // gpsfake ends the log with a DEVICE report whose "activated" is 0.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if collector.all.contains(where: {
                if case .payload(_, _, .text(let t)) = $0.body {
                    t.contains(#""class":"DEVICE""#) && t.contains(#""activated":0"#)
                } else {
                    false
                }
            }) {
                break
            }
            usleep(50_000)
        }
        stop.set()
        while thread.isExecuting { usleep(20_000) }
        // What gpsd says after it closed the device at the log's end belongs to no epoch.
        let events = collector.all
        let end = events.firstIndex {
            if case .payload(_, _, .text(let t)) = $0.body {
                t.contains(#""class":"DEVICE""#) && t.contains(#""activated":0"#)
            } else {
                false
            }
        }
        return Array(events[..<(end ?? events.endIndex)])
    }

    @Test("Fixes read from gpsd equal our own decoding of the same log", arguments: logs)
    func sameFixesAsOurDecoder(log: String) throws {
        func play() throws -> (connected: Bool, fixes: [GNSSFix]) {
            var merger = GpsdFixMerger()
            var fromGpsd: [GNSSFix] = []
            var connected = false
            for event in try Self.playThroughGpsd(log) {
                switch event.body {
                case .link(_, .connected, _): connected = true
                case .payload(_, .gpsd, .text(let line)):
                    if let fix = merger.add(try GpsdReport(line: line)) { fromGpsd.append(fix) }
                default: break
                }
            }
            if let last = merger.flush() { fromGpsd.append(last) }
            return (connected, fromGpsd)
        }
        // On a machine loaded by the other suites, gpsfake has been seen (once in CI) to finish a
        // short log before gpsd reported a fix of it: such a play says nothing about decoding, so
        // it is played once more. Every fix gpsd does report is still compared below.
        var (connected, fromGpsd) = try play()
        if !fromGpsd.contains(where: { $0.time != nil }) { (connected, fromGpsd) = try play() }
        #expect(connected)
        let (ours, _) = NMEADecoder.fixes(in: try Fixtures.data("gpsd/\(log).log"))
        let dated = fromGpsd.filter { $0.time != nil }
        #expect(!dated.isEmpty, "\(log): gpsd reported no dated fix")
        for theirs in dated {
            let seconds = theirs.time!.secondsOfDay
            guard let mine = ours.first(where: { $0.time.map { abs($0.secondsOfDay - seconds) < 0.0005 } ?? false })
            else {
                Issue.record("\(log): gpsd has a fix at \(seconds) s of the day that we do not")
                continue
            }
            var problems: [String] = []
            if mine.mode != theirs.mode { problems.append("mode \(mine.mode) vs \(theirs.mode)") }
            func check(_ name: String, _ a: Double?, _ b: Double?, _ tolerance: Double) {
                switch (a, b) {
                case (nil, nil): break
                case (let x?, let y?) where abs(x - y) <= tolerance: break
                default: problems.append("\(name) \(a.map { "\($0)" } ?? "absent") vs \(b.map { "\($0)" } ?? "absent")")
                }
            }
            check("lat", mine.latitude, theirs.latitude, 1e-6)
            check("lon", mine.longitude, theirs.longitude, 1e-6)
            check("alt", mine.altitudeMeters, theirs.altitudeMeters, 0.1)
            check("speed", mine.speedMetersPerSecond, theirs.speedMetersPerSecond, 0.01)
            check("track", mine.trackDegrees, theirs.trackDegrees, 0.01)
            #expect(problems.isEmpty, "\(log) at \(seconds) s: \(problems.joined(separator: "; "))")
        }
    }

    @Test("gpsd's error estimates and sky view reach the fix")
    func errorEstimates() throws {
        let events = try Self.playThroughGpsd("ublox-neo-m9n-nmea")
        var merger = GpsdFixMerger()
        var fixes: [GNSSFix] = []
        for case .payload(_, .gpsd, .text(let line)) in events.map(\.body) {
            if let fix = merger.add(try GpsdReport(line: line)) { fixes.append(fix) }
        }
        let fix = try #require(fixes.last { $0.mode == .threeD })
        #expect(fix.errors?.eph != nil && fix.errors?.epv != nil)
        #expect(fix.hdop != nil && fix.satellitesSeen != nil && fix.satellitesUsed != nil)
    }
}
