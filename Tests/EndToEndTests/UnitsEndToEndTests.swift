import Foundation
import PackControl
import TestSupport
import Testing

@Suite("Units in handoff's text: --units and handoffd's [display] units (issue 29)", .serialized)
struct UnitsEndToEndTests {
    /// The lines of `text` whose first word is `word` (a table's header or row).
    static func rows(_ text: String, startingWith word: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            $0.split(separator: " ").first.map(String.init) == word
        }
    }

    /// `text` has a distance (`3.11 mi`) or a pace (`8:03 /mi`) in `unit`.
    static func has(_ text: String, _ unit: String) -> Bool {
        text.range(of: #"\d \#(unit)\b|/\#(unit)\b"#, options: .regularExpression) != nil
    }

    @Test(
        "--units mi prints miles, /mi and splits per mile; [display] units = \"mi\" does without it, --units km overrides it; --json is the same in any units"
    )
    func miles() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var jsonInKilometres: [String: String] = [:]
        do {
            let daemon = try Daemon(in: dir, arguments: ["--replay", demoCapturePath, "--speed", "max"])
            defer { daemon.terminate() }
            try await daemon.waitUntilReady()
            _ = try await daemon.waitFor { $0.replay?.finished == true && $0.state == .finished }
            let socket = ["--socket", daemon.socket]

            let km = try handoff(["show", "last"] + socket)
            #expect(km.status == 0, "\(km.stderr)")
            #expect(Self.has(km.stdout, "km") && km.stdout.contains(" /km") && !Self.has(km.stdout, "mi"))
            #expect(Self.rows(km.stdout, startingWith: "KM").count == 1)

            let mi = try handoff(["show", "last", "--units", "mi"] + socket)
            #expect(mi.status == 0, "\(mi.stderr)")
            let head = try #require(mi.stdout.split(separator: "\n").first)
            #expect(head.hasSuffix(" mi") && head.contains(" · 3."), "about 3.1 miles: \(head)")
            #expect(mi.stdout.contains(" /mi") && !Self.has(mi.stdout, "km"))
            // Splits per mile: three whole ones and the rest; laps (every kilometre) in miles.
            #expect(Self.rows(mi.stdout, startingWith: "MI").count == 1, "\(mi.stdout)")
            #expect(Self.rows(mi.stdout, startingWith: "KM").isEmpty)
            for mile in ["1", "2", "3"] { #expect(Self.rows(mi.stdout, startingWith: mile).count >= 1) }
            #expect(Self.rows(mi.stdout, startingWith: "3.17").count == 1, "the last 0.17 mile of 3.17")
            #expect(mi.stdout.contains("0.62 mi"), "a kilometre's lap")
            // A whole mile's pace per mile is its time.
            let splits = mi.stdout.components(separatedBy: "Splits\n").last?.components(separatedBy: "Laps").first ?? ""
            for mile in ["1", "2", "3"] {
                let columns = try #require(Self.rows(splits, startingWith: mile).first).split(separator: " ")
                #expect(columns.count >= 4 && columns[1] == columns[2] && columns[3] == "/mi", "\(columns)")
            }

            let runs = try handoff(["runs", "--units", "mi"] + socket)
            #expect(runs.status == 0, "\(runs.stderr)")
            #expect(Self.has(runs.stdout, "mi") && runs.stdout.contains(" /mi") && !Self.has(runs.stdout, "km"))
            let runsKm = try handoff(["runs"] + socket)
            #expect(Self.has(runsKm.stdout, "km") && runsKm.stdout.contains(" /km") && !Self.has(runsKm.stdout, "mi"))

            for command in [["show", "last"], ["runs"], ["sync", "status"]] {
                let plain = try handoff(command + ["--json"] + socket)
                #expect(plain.status == 0, "\(command): \(plain.stderr)")
                for units in ["mi", "km"] {
                    let given = try handoff(command + ["--json", "--units", units] + socket)
                    #expect(given.stdout == plain.stdout, "\(command) --json --units \(units)")
                }
                jsonInKilometres[command.joined(separator: " ")] = plain.stdout
            }
            let status =
                try JSONSerialization.jsonObject(
                    with: Data(try handoff(["status", "--json"] + socket).stdout.utf8)) as? [String: Any]
            #expect(status?["units"] as? String == "km")

            let wrong = try handoff(["show", "last", "--units", "miles"] + socket)
            #expect(wrong.status != 0)
            #expect(wrong.stderr.contains("miles") && wrong.stderr.contains("km"), "\(wrong.stderr)")
        }

        // The same journal under a handoffd configured in miles.
        try "[display]\nunits = \"mi\"\n".write(toFile: dir.path + "/handoff.toml", atomically: true, encoding: .utf8)
        let daemon = try Daemon(in: dir, arguments: [], logName: "handoffd-miles.log")
        defer { daemon.terminate() }
        let ready = try await daemon.waitUntilReady()
        #expect(ready.pack.units == .miles)
        let socket = ["--socket", daemon.socket]

        let shown = try handoff(["show", "last"] + socket)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(Self.has(shown.stdout, "mi") && shown.stdout.contains(" /mi") && !Self.has(shown.stdout, "km"))
        #expect(Self.rows(shown.stdout, startingWith: "MI").count == 1)
        let overridden = try handoff(["show", "last", "--units", "km"] + socket)
        #expect(overridden.stdout.contains(" /km") && !Self.has(overridden.stdout, "mi"))
        #expect(Self.rows(overridden.stdout, startingWith: "KM").count == 1)
        #expect(try handoff(["runs"] + socket).stdout.contains(" /mi"))
        // JSON is what it was under kilometres.
        for command in [["show", "last"], ["runs"]] {
            let json = try handoff(command + ["--json"] + socket)
            #expect(json.stdout == jsonInKilometres[command.joined(separator: " ")], "\(command) --json")
        }

        // handoffd's own messages follow its configuration, or --units.
        #expect(try handoff(["start", "--now"] + socket).status == 0)
        _ = try await daemon.waitFor { ($0.run.points ?? 0) >= 1 }
        let status = try handoff(["status"] + socket)
        #expect(status.stdout.contains("0.00 mi") && status.stdout.contains("/mi"), "\(status.stdout)")
        let paused = try handoff(["pause"] + socket)
        #expect(paused.stdout.contains(", 0.00 mi."), "\(paused.stdout)")
        let resumed = try handoff(["resume", "--units", "km"] + socket)
        #expect(resumed.stdout.contains(", 0 m."), "\(resumed.stdout)")
        let pausedJSON = try handoff(["pause", "--json", "--units", "km"] + socket)
        #expect(pausedJSON.stdout.contains(" mi."), "--json asks in no units: \(pausedJSON.stdout)")
        #expect(try handoff(["stop"] + socket).status == 0)
    }

    @Test(
        "A watch's run imported under [display] units = \"mi\": its distance in miles, and mile splits whose pace is their time",
        .enabled(if: Fixtures.available, "needs ../shared/fixtures"))
    func importedInMiles() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try "[display]\nunits = \"mi\"\n".write(toFile: dir.path + "/handoff.toml", atomically: true, encoding: .utf8)
        let daemon = try Daemon(in: dir, arguments: [])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        let socket = ["--socket", daemon.socket]
        let fenix = try Fixtures.url("files/fit/activity-small-fenix2-run.fit").path
        let imported = try handoff(["import", fenix] + socket)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains(": 5.60 mi in 47:12"), "\(imported.stdout)")
        let shown = try handoff(["show", "last"] + socket)
        let splits = shown.stdout.components(separatedBy: "Splits\n").last?.components(separatedBy: "Laps").first ?? ""
        for mile in 1...5 {
            let columns = try #require(Self.rows(splits, startingWith: String(mile)).first).split(separator: " ")
            #expect(columns.count >= 4 && columns[1] == columns[2] && columns[3] == "/mi", "mile \(mile): \(columns)")
        }
        #expect(Self.rows(splits, startingWith: "5.60").count == 1, "\(splits)")
    }
}
