import ArgumentParser
import Foundation
import PackControl

public struct Status: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Show what the pack is doing: the run, its numbers, each sensor.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption
    @OptionGroup var units: UnitsOption

    @Flag(help: "Redraw every second until interrupted.")
    var watch = false

    public init() {}

    public func run() async throws {
        repeat {
            let report: StatusReport
            do {
                report = try connection.client.send(.status, expecting: StatusReport.self)
            } catch {
                throw Output.fail(error, json: output.json)
            }
            if output.json {
                try Output.printJSON(report)
            } else {
                if watch && Output.standardOutputIsTerminal {
                    FileHandle.standardOutput.write(Data("\u{1B}[H\u{1B}[J".utf8))
                }
                Output.print(Self.render(report, units.units ?? UnitsOption.configured(report)))
                if watch && !Output.standardOutputIsTerminal { Output.print("") }
            }
            if watch { try await Task.sleep(for: .seconds(1)) }
        } while watch
    }

    /// What every command says first while handoffd replays a capture instead of reading sensors.
    static func replayLine(_ replay: ReplayReport) -> String {
        let name = (replay.file as NSString).lastPathComponent
        if replay.finished {
            return "Replayed the capture \(name) (\(replay.events) events): it has ended, so no sensor is live."
        }
        let progress = Int((replay.progress * 100).rounded())
        return
            "Replaying the capture \(name) at \(replay.speed) (\(progress) %, \(replay.events) events): its sensors stand in for real ones."
    }

    static func render(_ r: StatusReport, _ units: Units) -> String {
        var lines: [String] = []
        switch r.state {
        case .recording, .paused:
            let head = r.state == .paused ? "Paused" : "Recording"
            var parts = ["\(head) run \(r.run.id.map(String.init) ?? "?")"]
            parts.append(Format.duration(r.run.elapsedS ?? 0))
            parts.append(Format.distance(r.run.distanceM ?? 0, units))
            parts.append(Format.pace(r.live.paceSPerKm, units))
            if let lap = r.run.lap { parts.append("lap \(lap): \(Format.distance(r.run.lapDistanceM ?? 0, units))") }
            lines.append(parts.joined(separator: " · "))
        case .finished:
            lines.append("Not recording: the last run finished. `handoff start` begins another.")
        default:
            lines.append("Not recording. `handoff start` begins a run.")
        }
        var values: [[String]] = []
        values.append(["heart rate", r.live.hrBpm.map { "\($0) bpm" } ?? "–"])
        values.append(["cadence", r.live.cadenceSpm.map { "\($0) spm" } ?? "–"])
        if let steps = r.run.steps { values.append(["steps", "\(steps)"]) }
        var gps = r.gps.fix.phrase
        if r.replay?.finished == true { gps = "no fix (the capture has ended)" }
        if r.gps.fix != .none, let hdop = r.gps.quality.hdop { gps += " · HDOP \(Format.fixed(hdop, 1))" }
        if r.gps.fix != .none, let sats = r.gps.quality.satellites { gps += " · \(sats) satellites" }
        values.append(["GPS", gps])
        lines.append(Output.table(values.map { ["  " + $0[0], $0[1]] }))
        if !r.sensors.isEmpty {
            lines.append("Sensors")
            lines.append(
                Output.table(
                    r.sensors.map { s in
                        var state: String
                        if let seen = s.lastSeenS {
                            state =
                                s.fresh ? "live, \(Format.fixed(seen, 1)) s ago" : "silent for \(Format.duration(seen))"
                        } else {
                            state = "not heard yet"
                        }
                        if s.link == .disconnected { state = "disconnected" }
                        if s.link == .ended { state = "the capture has ended" }
                        var notes = state
                        if s.payloads.rejected > 0 {
                            notes += " · \(s.payloads.rejected) rejected (last: \(s.payloads.lastError ?? "?"))"
                        }
                        return [
                            "  " + s.id, s.kind.rawValue.replacingOccurrences(of: "_", with: " "), s.name ?? "", notes,
                        ]
                    }))
        }
        if let replay = r.replay { lines.insert(replayLine(replay), at: 0) }
        if !r.pack.recoveredRuns.isEmpty {
            lines.append(
                "Recovered after a crash or power cut: run \(r.pack.recoveredRuns.map(String.init).joined(separator: ", ")) (finished at its last saved second)."
            )
        }
        return lines.joined(separator: "\n")
    }
}
