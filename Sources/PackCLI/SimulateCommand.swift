import ArgumentParser
import Foundation
import HandoffModel
import PackControl
import RunSimulator

public struct Simulate: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Make a capture of a realistic simulated run (what `handoff demo` replays).",
        discussion: """
            The runner waits for a GPS fix, stops at a road crossing (pausing), runs under a bridge \
            (GPS outage, bridged by the footpod), loses the heart-rate strap for a few seconds, and \
            finishes where they began. The capture's header records the true route length and \
            average heart rate. The same seed always gives the same capture. --sport bike rides the \
            route instead, with a bike's speed and cadence sensor (CSC, 2.105 m wheel) in place of the \
            footpod; the header then also records the wheel and the mean cadence.
            """)

    @Option(help: "The random seed.")
    var seed: UInt64 = 7

    @Option(help: "Loops of the 5 km route.")
    var loops = 1

    @Option(help: "Run for this many minutes instead of whole loops.")
    var minutes: Double?

    @Option(help: "run or bike.")
    var sport: RunSport = .run

    @Option(name: [.short, .long], help: "Write the capture here (default: standard output).")
    var output: String?

    public init() {}

    public func validate() throws {
        guard loops >= 1 else { throw ValidationError("--loops must be at least 1") }
        if let minutes, !(1...600).contains(minutes) { throw ValidationError("--minutes must be between 1 and 600") }
        if sport == .walk { throw ValidationError("--sport: the simulator rides or runs; a walk is not simulated") }
    }

    public func run() async throws {
        let run = RunSimulator.simulate(SimulationScenario(seed: seed, loops: loops, minutes: minutes, sport: sport))
        let text = run.captureText
        if let output {
            do { try text.write(toFile: output, atomically: true, encoding: .utf8) } catch {
                Output.error("cannot write \(output): \(error.localizedDescription)")
                throw ExitCode.failure
            }
            let truth = run.truth
            FileHandle.standardError.write(
                Data(
                    "Wrote \(output): \(run.events.count) events; route \(Format.fixed(truth.routeDistanceMeters, 1)) m, average heart rate \(Format.fixed(truth.averageHeartRate, 1)) bpm.\n"
                        .utf8))
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}
