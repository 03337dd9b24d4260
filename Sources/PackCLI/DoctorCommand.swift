import ArgumentParser
import Foundation
import PackControl

/// `handoff doctor`: what is wrong with the pack, part by part, and what to do about it.
public struct Doctor: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Check the pack: Bluetooth, sensors, GPS, clock, steps, storage, the store, home Wi-Fi.",
        discussion: """
            Each line says OK, or what is wrong and what to do. Exits 1 when something is a problem \
            (warnings alone exit 0). handoffd runs the checks (it has the capabilities, the journal \
            and the store's token); when it does not answer, `handoffd --doctor` runs them in this \
            process instead.
            """)

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    @Option(help: "The configuration for the checks when handoffd does not answer (default: handoffd's).")
    var config: String?

    public init() {}

    public func run() async throws {
        var report: DoctorReport
        // The checks take a few seconds (gpsd's fix, the store's answer).
        let client = connection.client(timeout: 60)
        do {
            report = try client.send(.doctor, expecting: DoctorReport.self)
            report.checks.insert(
                DoctorCheck("service", .ok, "handoffd answers on \(client.socketPath)"), at: 0)
            report = DoctorReport(checks: report.checks)
        } catch {
            var checks = [
                DoctorCheck(
                    "service", .problem, Self.firstLine(of: error, socket: client.socketPath),
                    action: "`sudo systemctl start handoffd`; `journalctl -u handoffd` says why it stopped")
            ]
            checks += Self.checksWithoutService(config: config)
            report = DoctorReport(checks: checks)
        }
        if output.json {
            try Output.printJSON(report)
        } else {
            Output.print(Self.render(report))
        }
        if !report.ok { throw ExitCode.failure }
    }

    static func firstLine(of error: any Error, socket: String) -> String {
        let text = (error as? ControlError)?.message ?? "handoffd does not answer on \(socket): \(error)"
        return String(text.split(separator: "\n").first ?? "handoffd does not answer")
    }

    /// Runs `handoffd --doctor` (beside this program, else on PATH) for the checks.
    static func checksWithoutService(config: String?) -> [DoctorCheck] {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("handoffd").path
        let process = Process()
        if FileManager.default.isExecutableFile(atPath: beside) {
            process.executableURL = URL(fileURLWithPath: beside)
            process.arguments = ["--doctor"]
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["handoffd", "--doctor"]
        }
        if let config { process.arguments! += ["--config", config] }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            return [
                DoctorCheck("checks", .problem, "cannot run handoffd --doctor: \(error)", action: "install handoffd")
            ]
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard let report = try? ControlJSON.decode(DoctorReport.self, from: String(decoding: data, as: UTF8.self))
        else {
            return [
                DoctorCheck(
                    "checks", .problem, "handoffd --doctor did not report (exit \(process.terminationStatus))",
                    action: "run `handoffd --doctor` to see why")
            ]
        }
        return report.checks
    }

    static func render(_ report: DoctorReport) -> String {
        // The id column fits the longest id (a sensor's address makes 24), up to 28.
        let width = min(28, (report.checks.map(\.check.count).max() ?? 10) + 2)
        var lines: [String] = []
        for check in report.checks {
            let label: String =
                switch check.status {
                case .ok: "OK     "
                case .warning: "WARNING"
                case .problem: "PROBLEM"
                }
            let name = check.check.padding(toLength: max(width, check.check.count + 1), withPad: " ", startingAt: 0)
            lines.append("\(label)  \(name)\(check.summary)")
            if let action = check.action {
                lines.append(String(repeating: " ", count: 9 + name.count) + "→ \(action)")
            }
        }
        let problems = report.checks.filter { $0.status == .problem }.count
        let warnings = report.checks.filter { $0.status == .warning }.count
        func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        if problems > 0 {
            lines.append(
                "\(plural(problems, "problem"))\(warnings > 0 ? ", \(plural(warnings, "warning"))" : ""): fix the lines marked PROBLEM before a run."
            )
        } else if warnings > 0 {
            lines.append("No problems; \(plural(warnings, "warning")).")
        } else {
            lines.append("All OK.")
        }
        return lines.joined(separator: "\n")
    }
}
