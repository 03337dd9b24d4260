import Foundation
import HandoffModel
import TestSupport
import Testing

/// What the executables say about themselves: every help text, and their versions.
@Suite("Help texts and versions of handoff, handoffd and handoff-store")
struct HelpTextTests {
    /// The subcommands an ArgumentParser help lists under SUBCOMMANDS (the first word of each
    /// entry, without the "(default)" mark).
    static func subcommands(_ help: String) -> [String] {
        guard let start = help.range(of: "SUBCOMMANDS:\n") else { return [] }
        return help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { !$0.isEmpty && $0.hasPrefix(" ") }
            .compactMap { line in
                // An entry starts two spaces in; a wrapped abstract is indented further.
                guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
                return line.split(separator: " ").first.map(String.init)
            }
    }

    @Test(
        "No help text of handoff (every subcommand, walked from the root), handoffd or handoff-store says \"for now\"")
    func noForNow() throws {
        var helps: [(command: String, text: String)] = []
        var queue: [[String]] = [[]]
        while let path = queue.popLast() {
            let result = try runProcess(Products.url("handoff"), path + ["--help"])
            #expect(result.status == 0, "handoff \(path.joined(separator: " ")) --help: \(result.stderr)")
            helps.append(("handoff " + path.joined(separator: " "), result.stdout))
            queue += Self.subcommands(result.stdout).filter { $0 != "help" }.map { path + [$0] }
        }
        #expect(helps.count > 20, "the walk reached the subcommands: \(helps.map(\.command))")
        #expect(helps.contains { $0.command == "handoff demo" })
        for executable in ["handoffd", "handoff-store"] {
            let result = try runProcess(Products.url(executable), ["--help"])
            #expect(result.status == 0)
            helps.append((executable, result.stdout))
        }
        for help in helps {
            #expect(!help.text.lowercased().contains("for now"), "\(help.command) --help says \"for now\"")
        }
        // The help is wrapped to the terminal's width: compare with single spaces.
        let daemon = try #require(helps.last { $0.command == "handoffd" }).text.split(whereSeparator: \.isWhitespace)
            .joined(separator: " ")
        #expect(daemon.contains("Bluetooth LE") && daemon.contains("gpsd") && daemon.contains("replays a capture"))
    }

    @Test("handoffd --version and handoff --version print the pack's version; handoff-store --version its own")
    func versions() throws {
        for executable in ["handoffd", "handoff"] {
            let result = try runProcess(Products.url(executable), ["--version"])
            #expect(result.status == 0)
            #expect(result.stdout == HandoffVersion.current + "\n", "\(executable): \(result.stdout)")
        }
        let store = try runProcess(Products.url("handoff-store"), ["--version"])
        #expect(store.status == 0 && !store.stdout.isEmpty && store.stdout.hasSuffix("\n"))
        #expect(store.stdout.first?.isNumber == true, "a version number: \(store.stdout)")
    }
}
