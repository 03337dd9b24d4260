import Foundation
import HandoffModel
import Logging
import PackControl
import PackStorage
import RunSimulator
import TestSupport
import Testing

@testable import PackService

@Suite("Units: distances and paces in kilometres or miles (issue 29)")
struct UnitsTests {
    @Test("Distances in miles: 1609.344 m is exactly a mile, always two decimals, never feet or yards")
    func distances() {
        #expect(Format.distance(1609.344, .miles) == "1.00 mi")
        #expect(Format.distance(5000, .miles) == "3.11 mi")
        #expect(Format.distance(5100, .miles) == "3.17 mi")
        #expect(Format.distance(42_195, .miles) == "26.22 mi")
        #expect(Format.distance(80.4672, .miles) == "0.05 mi", "a twentieth of a mile")
        #expect(Format.distance(850, .miles) == "0.53 mi", "no metres under a mile")
        #expect(Format.distance(0, .miles) == "0.00 mi")
        #expect(Format.distance(.nan, .miles) == "–")
        // Rounding at the second decimal: 0.005 mi is 8.04672 m.
        #expect(Format.distance(8.0, .miles) == "0.00 mi")
        #expect(Format.distance(8.1, .miles) == "0.01 mi")
        #expect(Format.distance(1609.344 * 9.996, .miles) == "10.00 mi")
        // Kilometres as before.
        #expect(Format.distance(850, .kilometers) == "850 m")
        #expect(Format.distance(5110, .kilometers) == "5.11 km")
        #expect(Format.distanceColumn(1000, .kilometers) == "1.00 km")
        #expect(Format.distanceColumn(1000, .miles) == "0.62 mi")
        #expect(Format.distanceColumn(850, .kilometers) == "0.85 km")
    }

    @Test("Paces in miles: seconds per kilometre × 1.609344, rounded to the second after converting")
    func paces() {
        #expect(Format.pace(300, .kilometers) == "5:00 /km")
        #expect(Format.pace(300, .miles) == "8:03 /mi", "482.8 s")
        #expect(Format.pace(331, .miles) == "8:53 /mi", "532.7 s")
        #expect(Format.pace(1000 / 1.609344 * 0.6, .miles) == "10:00 /mi", "exactly 600 s")
        // 599.7 s rounds up to the next minute, not to 9:60.
        #expect(Format.pace(599.7 / 1.609344, .miles) == "10:00 /mi")
        #expect(Format.pace(599.4 / 1.609344, .miles) == "9:59 /mi")
        #expect(Format.pace(nil, .miles) == "–:–– /mi")
        #expect(Format.pace(0, .miles) == "–:–– /mi")
        #expect(Format.pace(3599, .miles) == "96:32 /mi", "the slowest pace shown, an hour a kilometre")
        #expect(Format.pace(3600, .miles) == "–:–– /mi")
        #expect(abs(Units.miles.pace(300) - 482.8032) < 1e-9)
        #expect(Units.miles.distance(1609.344) == 1)
        #expect(Units(rawValue: "mi") == .miles && Units(rawValue: "km") == .kilometers)
        #expect(Units(rawValue: "miles") == nil)
    }

    @Test("[display] units is read; anything but \"km\" or \"mi\" is an error naming the key and both")
    func configuration() throws {
        var c = PackConfiguration()
        #expect(c.display.units == .kilometers)
        try c.apply(toml: "[display]\nunits = \"mi\"", path: "test.toml")
        #expect(c.display.units == .miles)
        try c.apply(toml: "[display]\nunits = \"km\"", path: "test.toml")
        #expect(c.display.units == .kilometers)
        for (toml, message) in [
            ("[display]\nunits = \"miles\"", #"display.units is "miles"; it must be "km" or "mi""#),
            ("[display]\nunits = \"MI\"", #"display.units is "MI"; it must be "km" or "mi""#),
            ("[display]\nunits = 1", "display.units must be a string"),
            ("[display]\nunit = \"mi\"", "unknown key display.unit"),
        ] {
            var d = PackConfiguration()
            do {
                try d.apply(toml: toml, path: "/etc/handoff/handoff.toml")
                Issue.record("accepted: \(toml)")
            } catch {
                #expect(error.description.contains(message), "\(error)")
                #expect(error.description.hasPrefix("/etc/handoff/handoff.toml"))
            }
        }
    }

    @Test("The engine in miles: status says so, messages and the log follow, show adds mile splits only when asked")
    func engine() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var configuration = PackConfiguration()
        configuration.display.units = .miles
        let run = RunSimulator.simulate(SimulationScenario(seed: 5, minutes: 14))
        let database = try PackDatabase(path: dir.path + "/units.sqlite")
        let engine = PackEngine(
            database: database, configuration: configuration, mode: .replay, sensors: run.header.sensors,
            recoveredRuns: [], logger: Logger(label: "test"))
        let start = run.events.first!.monotonic
        var paused: CommandReport?
        for event in run.events {
            await engine.ingest(event)
            if paused == nil, event.monotonic.seconds(since: start) > 300 {
                #expect(await engine.status().pack.units == .miles)
                paused = try await engine.command(.pause)
                let inKilometres = try await engine.command(.resume, units: .kilometers)
                #expect(inKilometres.message.contains(" km.") || inKilometres.message.hasSuffix(" m."))
            }
        }
        let message = try #require(paused?.message)
        #expect(message.hasPrefix("Paused at ") && message.contains(" mi. "), "\(message)")

        let plain = try await engine.show("last")
        #expect(plain.detail.mileSplits == nil)
        let report = try await engine.show("last", mileSplits: true)
        var withoutMiles = report
        withoutMiles.detail.mileSplits = nil
        #expect(withoutMiles == plain, "mile splits are all that is added")
        let distance = try #require(report.totals.distanceM)
        let timer = try #require(report.totals.timerS)
        let miles = try #require(report.detail.mileSplits)
        #expect(miles.count == Int(distance / 1609.344) + 1, "\(distance) m")
        #expect(miles.map(\.mile) == Array(1...miles.count))
        #expect(miles.dropLast().allSatisfy { $0.distanceM == 1609.3 })
        #expect(abs(miles.map(\.timeS).reduce(0, +) - timer) < 0.5)
        #expect(abs(miles.map(\.distanceM).reduce(0, +) - distance) < 0.5)
        #expect(miles.allSatisfy { $0.avgHrBpm != nil && $0.paceSPerKm != nil })
        await engine.shutdown()
    }
}
