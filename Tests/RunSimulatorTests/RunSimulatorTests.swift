import Foundation
import HandoffModel
import RunSimulator
import SensorCodecs
import TestSupport
import Testing

@Suite("Run simulator")
struct RunSimulatorTests {
    @Test("The same seed gives the same capture, byte for byte; another seed another")
    func deterministic() {
        let a = RunSimulator.simulate(SimulationScenario(seed: 11)).captureText
        let b = RunSimulator.simulate(SimulationScenario(seed: 11)).captureText
        let c = RunSimulator.simulate(SimulationScenario(seed: 12)).captureText
        #expect(a == b)
        #expect(a != c)
    }

    @Test("The committed demo capture is exactly what the simulator makes with the default scenario")
    func committedDemoCapture() throws {
        let url = Fixtures.repositoryRoot.appendingPathComponent("Sources/PackCLI/Resources/demo-run.capture.jsonl")
        let committed = try String(contentsOf: url, encoding: .utf8)
        let made = RunSimulator.simulate(SimulationScenario()).captureText
        #expect(committed == made, "regenerate with: swift run handoff simulate -o \(url.path)")
    }

    @Test("A simulated capture has what the demo promises: fix, pause, underpass, dropout, corrupt sentences")
    func contents() throws {
        let run = RunSimulator.simulate(SimulationScenario())
        let commands = run.events.compactMap { if case .command(let c, _) = $0.body { c } else { nil } }
        #expect(commands == [.start, .pause, .resume, .stop])
        let links = run.events.compactMap { if case .link(_, let s, _) = $0.body { s } else { nil } }
        #expect(links == [.connected, .connected, .disconnected, .connected])
        var sentences = 0
        var noFix = 0
        var corrupt = 0
        var heartRates = 0
        var footpod = 0
        for event in run.events {
            guard case .payload(_, let kind, let payload) = event.body else { continue }
            switch (kind, payload) {
            case (.nmea, .text(let line)):
                sentences += 1
                do {
                    if case .rmc(let rmc) = try NMEAReport(line: line), !rmc.hasFix { noFix += 1 }
                } catch { corrupt += 1 }
            case (.heartRateMeasurement, .bytes(let bytes)):
                _ = try HeartRateMeasurement(decoding: bytes)
                heartRates += 1
            case (.rscMeasurement, .bytes(let bytes)):
                _ = try RSCMeasurement(decoding: bytes)
                footpod += 1
            default:
                Issue.record("unexpected payload \(kind)")
            }
        }
        #expect(corrupt == 2)
        #expect(noFix > 11 + 10, "no fix at power-on and under the bridge")
        #expect(run.truth.routeDistanceMeters > 4500 && run.truth.routeDistanceMeters < 5500)
        #expect(heartRates > 1000 && footpod > 1000 && sentences > 2000)
        // Monotonic times never go backwards.
        #expect(zip(run.events, run.events.dropFirst()).allSatisfy { $0.monotonic <= $1.monotonic })
    }
}
