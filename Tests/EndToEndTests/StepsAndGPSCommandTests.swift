import Foundation
import PackControl
import TestSupport
import Testing

@Suite("handoff steps and handoff gps", .serialized)
struct StepsAndGPSCommandTests {
    @Test(
        "steps counts a real recording within 5 % of the foot switches, natively and at 50 Hz",
        .enabled(if: Fixtures.available, "needs ../shared/fixtures (HANDOFF_FIXTURES)"))
    func countsRecording() throws {
        let dir = try TemporaryDirectory("steps-cli")
        defer { dir.remove() }
        let (csv, truth) = try StepDetectorFixture.csvText("Pixel_Jamie_Hard_BackPocket_1")
        let path = dir.path + "/walk.csv"
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        for extra in [[], ["--rate", "50"]] {
            let result = try handoff(["steps", path, "--json"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Int]
            let steps = try #require(object?["steps"])
            #expect(object?.count == 1, "--json prints {\"steps\": N}")
            #expect(abs(Double(steps - truth)) <= 0.05 * Double(truth), "\(steps) steps, truth \(truth) \(extra)")
        }
        let text = try handoff(["steps", path])
        #expect(text.stdout.contains(" steps in ") && text.stdout.contains("samples at"), "\(text.stdout)")
        // Standard input works too.
        #expect(try handoff(["steps", "-", "--json"], stdin: csv).stdout.hasPrefix(#"{"steps":"#))
    }

    @Test("steps refuses what it cannot count, saying what is wrong and what to do")
    func badInput() throws {
        let dir = try TemporaryDirectory("steps-bad")
        defer { dir.remove() }
        func file(_ name: String, _ text: String) throws -> String {
            let path = dir.path + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let walk = (0..<200).map { i in
            let t = Double(i) / 50
            return "\(t),0.3,\(9.81 + 2 * sin(2 * Double.pi * 1.8 * t)),0.5"
        }
        let cases: [(path: String, status: Int32, message: String)] = [
            (dir.path + "/missing.csv", 66, "cannot read"),
            (try file("words.csv", "t_s,x,y,z\n0.0,1,2,three\n"), 65, "each line must be t_s,x,y,z"),
            (try file("one.csv", "t_s,x,y,z\n0.0,0,0,9.81\n"), 65, "fewer than two samples"),
            (
                try file(
                    "ns.csv",
                    "t_s,x,y,z\n" + (0..<200).map { "\($0 * 20_000_000),0,0,9.8" }.joined(separator: "\n")),
                65, "Is t_s in seconds?"
            ),
            (
                try file(
                    "g.csv", "t_s,x,y,z\n" + (0..<200).map { "\(Double($0) / 50),0,0,1.0" }.joined(separator: "\n")),
                65, "values in g: multiply by 9.81"
            ),
        ]
        for c in cases {
            let result = try handoff(["steps", c.path])
            #expect(result.status == c.status, "\(c.path): \(result.stderr)")
            #expect(result.stderr.contains(c.message), "\(c.path): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(try handoff(["steps", try file("walk.csv", "t_s,x,y,z\n" + walk.joined(separator: "\n"))]).status == 0)
    }

    @Test("gps shows the live fix from the replayed receiver, in text and JSON; says when handoffd is down")
    func gpsCommand() async throws {
        let dir = try TemporaryDirectory("gps-cli")
        defer { dir.remove() }
        let down = try handoff(["gps", "--socket", dir.path + "/none.sock"])
        #expect(down.status == 69 && down.stderr.contains("handoffd"))
        let daemon = try Daemon(in: dir, arguments: ["--replay", demoCapturePath, "--speed", "20"])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        _ = try await daemon.waitFor { $0.gps.fix == .threeD && $0.gps.quality.satellites != nil }
        let json = try handoff(["gps", "--json", "--socket", daemon.socket])
        #expect(json.status == 0, "\(json.stderr)")
        let gps = try JSONDecoder().decode(GPSReport.self, from: Data(json.stdout.utf8))
        #expect(gps.fix == .threeD && gps.receiver.sensor == "gps0")
        #expect(gps.position.lat != nil && gps.position.lon != nil && gps.position.time?.hasSuffix("Z") == true)
        #expect(gps.clock == .system)
        let text = try handoff(["gps", "--socket", daemon.socket])
        #expect(text.status == 0)
        #expect(text.stdout.contains("3D") && text.stdout.contains("satellites"), "\(text.stdout)")
        #expect(!text.stdout.contains("clock"), "a synchronised clock needs no mention")
    }
}
