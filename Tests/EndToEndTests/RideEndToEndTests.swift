import ActivityFormats
import Foundation
import HandoffModel
import PackControl
import RunSimulator
import TestSupport
import Testing

/// A ride through a real handoffd: `handoff start --sport`, the configured sport, and a simulated
/// ride's capture replayed into the journal and exported.
@Suite("Rides through handoffd")
struct RideEndToEndTests {
    @Test("A ride's capture replays into a ride: its sport, crank cadence and a FIT file that says cycling")
    func replayedRide() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let ride = RunSimulator.simulate(SimulationScenario(seed: 5, minutes: 12, sport: .bike))
        let capture = dir.file("ride.capture.jsonl").path
        try ride.captureText.write(toFile: capture, atomically: true, encoding: .utf8)
        let daemon = try Daemon(in: dir, arguments: ["--replay", capture, "--speed", "max"])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        _ = try await daemon.waitFor { $0.replay?.finished == true && $0.state == .finished }
        let socket = ["--socket", daemon.socket]
        let shown = try handoff(["show", "last", "--json"] + socket)
        let run = try JSONDecoder().decode(RunReport.self, from: Data(shown.stdout.utf8))
        #expect(run.sport == .bike)
        let truth = try #require(ride.truth.ride)
        let rpm = try #require(run.rates.avgCadenceRpm)
        #expect(abs(rpm - truth.averageCrankRPM) < 1.5, "\(rpm) for \(truth.averageCrankRPM)")
        #expect(run.rates.avgCadenceSpm == nil)
        // Twelve minutes: the wheel is learnt within the first 2 km, GPS measures until then.
        let distance = try #require(run.totals.distanceM)
        #expect(abs(distance - ride.truth.routeDistanceMeters) / ride.truth.routeDistanceMeters < 0.005)

        let path = dir.file("ride.fit").path
        let exported = try handoff(["export", "last", "--format", "fit", "-o", path] + socket)
        #expect(exported.status == 0, "\(exported.stderr)")
        let activity = try FITReader.read(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(activity.sport == .cycling)
        #expect(abs((activity.summary.statistics.averageCrankCadence ?? 0) - rpm) < 0.1)
        #expect(activity.points.contains { ($0.cadenceRPM ?? 0) > 70 })
    }

    @Test("`handoff start --sport bike`, the configured sport, and a sport there is not")
    func startedSports() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try "[recording]\nsport = \"walk\"\n".write(
            toFile: dir.file("handoff.toml").path, atomically: true, encoding: .utf8)
        let daemon = try Daemon(in: dir, arguments: [])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        let socket = ["--socket", daemon.socket]
        var result = try handoff(["start", "--sport", "bike", "--now", "--solo"] + socket)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Recording run 1 (bike)."), "\(result.stdout)")
        #expect(result.stderr.contains("no bike sensor (CSC) is sending"), "\(result.stderr)")
        #expect(try handoff(["stop", "--keep"] + socket).status == 0)
        // No sport named: the configured one.
        result = try handoff(["start", "--now", "--solo"] + socket)
        #expect(result.stdout.contains("(walk)"), "\(result.stdout)")
        #expect(try handoff(["stop", "--keep"] + socket).status == 0)
        let runs = try handoff(["runs", "--json"] + socket)
        let sports = try JSONDecoder().decode([RunReport].self, from: Data(runs.stdout.utf8)).map(\.sport)
        #expect(sports == [.walk, .bike], "\(runs.stdout)")

        result = try handoff(["start", "--sport", "swim"] + socket)
        #expect(result.status != 0)
        #expect(result.stderr.contains("swim"), "\(result.stderr)")
        // The control API refuses it in words too.
        do {
            _ = try daemon.client.send(.start(sport: "swim"), expecting: CommandReport.self)
            Issue.record("a swim started")
        } catch {
            #expect(error.code == "bad_request" && error.message.contains("run, bike or walk"), "\(error)")
        }
        #expect(try daemon.client.send(.status, expecting: StatusReport.self).state == .finished)
    }
}
