import Foundation
import PackControl
import SensorCodecs
import TestSupport
import Testing

@Suite("handoff decode, simulate and demo")
struct CLITests {
    @Test("decode hrm prints the measurement with RR intervals exactly as sent")
    func decodeHeartRate() throws {
        let result = try handoff(["decode", "hrm", "16", "48", "54", "03", "60", "03"])
        #expect(result.status == 0)
        #expect(
            result.stdout
                == #"{"contact":"detected","format":"uint8","hr_bpm":72,"rr_1024":[852,864],"rr_ms":[832.03,843.75]}"#
                + "\n")
    }

    @Test("decode reads standard input line by line and marks bad lines without stopping")
    func decodeStream() throws {
        let input = """
            # a comment
            02 00 05 50 ff ff 00 01
            00 80
            00 80 02 50
            """
        let result = try handoff(["decode", "rsc"], stdin: input)
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].contains(#""speed_mps":5"#) && lines[0].contains(#""total_distance_m":1684275.1"#))
        #expect(lines[1].contains(#""error":"value too short: instantaneous speed needs 2 bytes, 1 left""#))
        #expect(lines[2].contains(#""cadence_spm":80"#))
    }

    @Test(
        "decode nmea --json prints one fix per epoch with gpsd's TPV names",
        .enabled(if: Fixtures.available, "needs ../shared/fixtures (HANDOFF_FIXTURES)"))
    func decodeNMEA() throws {
        let log = try Fixtures.text("gpsd/ublox-neo-m9n-nmea.log")
        let result = try handoff(["decode", "nmea", "--json"], stdin: log)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 61, "one line per epoch of the log")
        let object = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
        #expect(object["time"] as? String == "2020-07-11T22:37:45.000Z")
        #expect(abs((object["lat"] as? Double ?? 0) - 38.110494) < 1e-9)
        #expect(object["mode"] as? Int == 3 && object["alt"] as? Double == 83.1)
        #expect(object["satellites_used"] as? Int == 25)
        #expect(result.stderr.contains("61 fixes from 1281 sentences"))
        let text = try handoff(["decode", "nmea"], stdin: log)
        #expect(text.stdout.hasPrefix("2020-07-11T22:37:45.000Z  3D  38.110494 -122.626897  alt 83.1 m"))
    }

    @Test("decode nmea on input with no sentence at all fails with the reason")
    func decodeNMEAGarbage() throws {
        let result = try handoff(["decode", "nmea"], stdin: "hello\n$GPGGA,1*00\n")
        #expect(result.status == 1 && result.stdout.isEmpty)
        #expect(result.stderr.contains("rejected 1") && result.stderr.contains("checksum"))
    }

    @Test(
        "decode hxm prints every frame of the real HxM stream with its offset and RR intervals",
        .enabled(if: Fixtures.available, "needs ../shared/fixtures (HANDOFF_FIXTURES)"))
    func decodeHxM() throws {
        let stream = try Fixtures.data("rfcomm/zephyr-hxm/120-second-bt-stream-hxm.dat")
        let result = try handoff(["decode", "hxm"], stdinBytes: stream)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 142)
        let second = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as! [String: Any]
        #expect(second["offset"] as? Int == 60)
        #expect(second["hr_bpm"] as? Int == 67 && second["beat_number"] as? Int == 102)
        #expect(second["rr_ms"] as? [Int] == [884], "19415 − 18531 ms")
        #expect(second["distance_m"] as? Double == 75.3125 && second["battery_pct"] as? Int == 100)
        #expect(result.stderr.contains("142 frames in 8521 bytes; skipped 0 bytes"))
    }

    @Test("decode polar realigns after invalid bytes, and fails on a stream without a packet")
    func decodePolar() throws {
        let stream = try Hex.decode("04020402FE08F701D1001104FE08F7")  // ends inside a packet
        let result = try handoff(["decode", "polar"], stdinBytes: Data(stream))
        #expect(result.status == 0)
        #expect(result.stdout == #"{"hr_bpm":0,"offset":4,"rr_ms":[4356],"sequence":1,"status":209}"# + "\n")
        #expect(result.stderr.contains("1 packets in 15 bytes; skipped 4 bytes"))
        let none = try handoff(["decode", "polar", "0102030405"])
        #expect(none.status == 1 && none.stdout.isEmpty)
        #expect(none.stderr.contains("0 packets in 5 bytes"))
        let notHex = try handoff(["decode", "hxm", "zz"])
        #expect(notHex.status != 0 && notHex.stderr.contains("must be hex"))
    }

    @Test("simulate writes a capture the codec reads, with the truth in its header")
    func simulate() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/run.jsonl"
        let result = try handoff(["simulate", "--seed", "3", "--minutes", "2", "-o", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Wrote \(path)"))
        let first = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")[0]
        let header = try CaptureCodec.decodeHeader(String(first))
        #expect(header.simulation?.seed == 3)
        #expect(try handoff(["simulate", "--minutes", "0"]).status != 0)
    }

    @Test(
        "The README's demo: distance within 0.5 % of the simulated route, HR within 1 bpm, and the run synced once to the local store's group"
    )
    func demo() throws {
        let result = try handoff(
            ["demo", "--speed", "max", "--json"],
            environment: ProcessInfo.processInfo.environment.merging(["HANDOFF_DEMO_CAPTURE": demoCapturePath]) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let run = try #require(object["run"] as? [String: Any])
        let error = try #require(object["distance_error_pct"] as? Double)
        #expect(abs(error) < 0.5)
        let avg = try #require(run["avg_hr_bpm"] as? Double)
        let truth = try #require(object["simulated_avg_hr_bpm"] as? Double)
        #expect(abs(avg - truth) < 1)
        // The demo's store has the run, once, in the group's total.
        let group = try #require(object["group"] as? [String: Any])
        let distance = try #require(run["distance_m"] as? Double)
        #expect(group["synced"] as? Bool == true)
        #expect(abs((group["total_m"] as? Double ?? 0) - distance) < 0.01, "\(group)")
        let members = group["members"] as? [[String: Any]] ?? []
        #expect(members.count == 1 && members.first?["runs"] as? Int == 1)
    }
}
