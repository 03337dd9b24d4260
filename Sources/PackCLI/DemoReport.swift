import Foundation
import PackControl

struct DemoReport: Encodable {
    let run: RunReport
    let simulatedDistanceM: Double?
    let simulatedAvgHrBpm: Double?
    let distanceErrorPct: Double?
    let directory: String?
    var files: [String] = []
    var group: DemoGroupReport?

    enum CodingKeys: String, CodingKey {
        case run, directory, files, group
        case simulatedDistanceM = "simulated_distance_m", simulatedAvgHrBpm = "simulated_avg_hr_bpm"
        case distanceErrorPct = "distance_error_pct"
    }

    init(run: RunReport, replay: ReplayReport?, directory: String?) {
        self.run = run
        simulatedDistanceM = replay?.simulatedDistanceM
        simulatedAvgHrBpm = replay?.simulatedAvgHrBpm
        if let truth = replay?.simulatedDistanceM, let distance = run.totals.distanceM {
            distanceErrorPct = Format.rounded((distance - truth) / truth * 100, 3)
        } else {
            distanceErrorPct = nil
        }
        self.directory = directory
    }
}

/// Finding the demo's files.
enum DemoFiles {
    static var executableDirectory: String {
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (exe as NSString).deletingLastPathComponent
    }

    /// The demo capture: `$HANDOFF_DEMO_CAPTURE`, the build's resource bundle beside this
    /// executable, or an installed copy under share/handoff.
    static func demoCapture() -> String? {
        let name = "demo-run.capture.jsonl"
        var candidates: [String] = []
        if let path = ProcessInfo.processInfo.environment["HANDOFF_DEMO_CAPTURE"], !path.isEmpty {
            candidates.append(path)
        }
        candidates += [
            executableDirectory + "/Handoff_PackCLI.resources/" + name,
            executableDirectory + "/../share/handoff/" + name,
            "/usr/share/handoff/" + name,
        ]
        return candidates.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    static func executable(_ name: String) -> String? {
        let beside = executableDirectory + "/" + name
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    static func temporaryDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory() + "handoff-demo.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        return String(cString: made)
    }

    static func tail(_ path: String, lines: Int = 15) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }
}
