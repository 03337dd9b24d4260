import ArgumentParser
import Foundation
import HandoffModel
import PackControl

/// The socket to reach `handoffd` on.
public struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "handoffd's control socket (default: $HANDOFF_SOCKET, /run/handoff/control.sock as root, else $XDG_RUNTIME_DIR/handoff/control.sock)."
    )
    var socket: String?

    public init() {}

    var client: ControlClient { ControlClient(socketPath: socket ?? ControlPaths.defaultSocket) }

    /// A client that waits `seconds` for the reply (a scan or a pairing takes a while).
    func client(timeout seconds: Int) -> ControlClient {
        ControlClient(socketPath: socket ?? ControlPaths.defaultSocket, timeoutSeconds: seconds)
    }
}

extension ControlClient {
    /// Sends a request; a failure is printed (text or JSON) and becomes the exit status.
    func call<Result: Codable & Sendable>(_ request: ControlRequest, _ type: Result.Type, json: Bool) throws -> Result {
        do { return try send(request, expecting: type) } catch { throw Output.fail(error, json: json) }
    }
}

/// `--json`: one JSON object per line, snake_case keys with units in their names.
public struct JSONOption: ParsableArguments {
    @Flag(name: .long, help: "Print JSON for scripts instead of text.")
    var json = false

    public init() {}
}

extension Units: ExpressibleByArgument {}
extension RunSport: ExpressibleByArgument {}

/// `--units km|mi`: how the text writes distances and paces. Without it, as handoffd is
/// configured (`[display] units`, in `status`); `--json` is the same in any units.
public struct UnitsOption: ParsableArguments {
    @Option(
        name: .long,
        help: "Write distances and paces in km or mi (default: handoffd's [display] units). --json is always metres.")
    var units: Units?

    public init() {}

    /// The units given, or those handoffd is configured with (one `status` request). For
    /// `--json`, whose numbers do not depend on them, nothing is asked.
    func resolve(_ client: ControlClient, json: Bool) throws -> Units {
        if let units { return units }
        if json { return .kilometers }
        let status = try client.call(.status, StatusReport.self, json: json)
        return Self.configured(status)
    }

    /// The units a `status` reply says handoffd is configured with: kilometres from a handoffd
    /// that does not say.
    static func configured(_ status: StatusReport) -> Units {
        status.pack.units ?? .kilometers
    }

    /// What to put in a request whose reply depends on the units: only those given, and never
    /// for `--json`, whose replies are the same whatever `--units` says.
    func request(json: Bool) -> String? { json ? nil : units?.rawValue }
}

enum Output {
    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// A progress line on the terminal's standard error, redrawn in place; `nil` clears it.
    static func progress(_ line: String?) {
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line ?? "")".utf8))
    }

    /// A question, without a line end, for the answer to follow on the same line.
    static func prompt(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func printJSON(_ value: some Encodable) throws {
        print(try ControlJSON.encode(value))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data("handoff: \(text)\n".utf8))
    }

    /// Prints a failure and exits non-zero: a sentence a person can act on, or JSON for scripts.
    static func fail(_ error: ControlError, json: Bool) -> ExitCode {
        if json, let text = try? ControlJSON.encode(ControlResponse<String>(error: error)) {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        } else {
            self.error(error.message)
        }
        return error.code == .notRunning ? ExitCode(69) : ExitCode.failure  // 69: EX_UNAVAILABLE
    }

    /// Left-aligned columns, each as wide as its widest cell.
    static func table(_ rows: [[String]], rightAligned: Set<Int> = []) -> String {
        guard let columns = rows.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            row.enumerated().map { i, cell in
                let padding = String(repeating: " ", count: widths[i] - cell.count)
                return rightAligned.contains(i) ? padding + cell : cell + padding
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n")
    }

    /// A UTC ISO time as local `2026-06-14 08:29`.
    static func localTime(_ iso: String, weekday: Bool = false) -> String {
        let parser = ISO8601DateFormatter()
        guard let date = parser.date(from: iso) else { return iso }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.dateFormat = weekday ? "EEE d MMM yyyy HH:mm" : "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
