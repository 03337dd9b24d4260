import ArgumentParser
import Foundation
import GroupStore
import HandoffModel

/// `handoff-store moderation`: the operator reads the reports people sent about comments and
/// profiles, and resolves each (hide, delete, suspend the account, or dismiss).
struct ModerationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moderation", abstract: "Read and resolve people's reports of comments and profiles.",
        subcommands: [List.self, Resolve.self, Suspend.self, Unsuspend.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The open reports, oldest first (with --all, the resolved ones too).")

        @Flag(help: "Resolved reports too.")
        var all = false

        @Flag(help: "The reports as a JSON array, for a script.")
        var json = false

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let reports = try await storage.withRepository { [all] in try await $0.reports(all: all) }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(reports), as: UTF8.self))
                return
            }
            for report in reports { print(Self.lines(report).joined(separator: "\n") + "\n") }
            let open = reports.filter { $0.resolvedAt == nil }.count
            print(
                open == 0
                    ? "No open reports."
                    : "\(open) open report\(open == 1 ? "" : "s"). Resolve one with: handoff-store moderation resolve ID hide|delete|suspend|dismiss"
            )
        }

        /// A report in a few lines that fit a terminal.
        static func lines(_ report: StoredReport) -> [String] {
            let by = report.reporter.map { "reported by \(Self.shown($0))" } ?? "reporter's account deleted"
            let state = report.resolution.map { "resolved: \($0)" } ?? "open"
            var lines = [
                "#\(report.id)  \(report.kind) of \(Self.shown(report.reported)), \(by) · \(report.createdAt) · \(state)"
            ]
            if let run = report.run, let comment = report.comment {
                lines.append("    comment \(comment) on run \(run)")
            }
            lines += Self.wrapped(report.excerpt).map { "    > " + $0 }
            lines += Self.wrapped("Reason: " + report.reason).map { "    " + $0 }
            return lines
        }

        /// A person's text with any control character shown as "?" (the store refuses them, but a
        /// terminal must never take a report's words as its own commands), cut to 3 lines of 96.
        static func wrapped(_ text: String) -> [String] {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                let shown = Self.shown(String(line))
                return shown.count > 96 ? String(shown.prefix(95)) + "…" : shown
            }
            return lines.count > 3 ? Array(lines.prefix(3)) + ["…"] : lines
        }

        static func shown(_ text: String) -> String {
            String(
                String.UnicodeScalarView(
                    text.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : $0 }))
        }
    }

    struct Resolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Resolve a report: hide or delete what was reported, suspend its author's account, or dismiss it.",
            discussion: """
                hide: the comment, or the profile's fields, are shown to nobody but their author. \
                delete: the comment, or the profile's fields, are deleted. suspend: the account cannot \
                sign in, its packs are unlinked and nothing of it is shown to anyone (the reported comment \
                is hidden too); `moderation unsuspend USER` lifts it. dismiss: nothing changes. Every \
                other open report of the same thing is resolved with it.
                """)

        @Argument(help: "The report's number, from `moderation list`.")
        var id: Int64

        @Argument(help: "hide, delete, suspend or dismiss.")
        var action: String

        @OptionGroup var storage: StorageOptions

        func validate() throws {
            guard ReportAction(rawValue: action) != nil else {
                throw ValidationError("the action is hide, delete, suspend or dismiss, not \(action)")
            }
        }

        func run() async throws {
            let action = ReportAction(rawValue: action) ?? .dismiss
            let now = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970)
            let report = try await storage.withRepository { [id] in try await $0.resolve(report: id, action, now: now) }
            print("Report \(report.id): \(report.resolution ?? action.rawValue).")
        }
    }

    struct Suspend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Suspend USER's account: no signing in, packs unlinked, nothing of theirs shown to anyone.")

        @Argument(help: "The account's username.")
        var user: String

        @Option(help: "Why, kept with the suspension.")
        var reason = "suspended by the operator"

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let now = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970)
            try await storage.withRepository { [user, reason] in
                try await $0.setSuspended(username: user, true, reason: reason, now: now)
            }
            print("\(user) is suspended. Lift it with: handoff-store moderation unsuspend \(user)")
        }
    }

    struct Unsuspend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lift USER's suspension: they sign in again (their packs must be linked again).")

        @Argument(help: "The account's username.")
        var user: String

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let now = WallInstant(secondsSinceEpoch: Date().timeIntervalSince1970)
            try await storage.withRepository { [user] in
                try await $0.setSuspended(username: user, false, reason: "", now: now)
            }
            print("\(user) may sign in again; their packs must be linked again with `handoff link`.")
        }
    }
}
