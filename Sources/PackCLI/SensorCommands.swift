import ArgumentParser
import Foundation
import PackControl

public struct Scan: ParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "List the Bluetooth LE devices advertising nearby, sensors first.",
        discussion: """
            Wake a strap by wearing it (or wetting its contacts) and a footpod by walking a few steps first.
            --classic runs a classic Bluetooth inquiry instead, for the older straps that connect over RFCOMM
            (Polar WearLink+, Zephyr HxM): it lists name, address and class of device.
            """)

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    @Option(help: "How long to listen, 1 to 60 seconds.")
    var seconds = 10

    @Flag(help: "Look for classic (BR/EDR) straps by inquiry instead of BLE advertisements.")
    var classic = false

    public init() {}

    public func validate() throws {
        guard (1...60).contains(seconds) else { throw ValidationError("--seconds must be between 1 and 60") }
    }

    public func run() throws {
        if !output.json {
            Output.error(classic ? "inquiring for \(seconds) s, then asking names…" : "scanning for \(seconds) s…")
        }
        let report: ScanReport
        do {
            // An inquiry is followed by a name request (up to 5 s) for each device that sent none.
            report = try connection.client(timeout: seconds + (classic ? 60 : 15)).send(
                .scan(seconds: Double(seconds), classic: classic ? true : nil),
                expecting: ScanReport.self)
        } catch {
            throw Output.fail(error, json: output.json)
        }
        if output.json {
            try Output.printJSON(report.devices)
            return
        }
        if classic { return printClassic(report) }
        guard !report.devices.isEmpty else {
            Output.print(
                "Nothing advertised within \(seconds) s. Is the sensor awake and not connected to a phone or watch?")
            return
        }
        var rows = [["NAME", "ADDRESS", "TYPE", "KIND", "RSSI", "SERVICES"]]
        for d in report.devices {
            rows.append([
                (d.name ?? "(no name)") + (d.paired ? " *" : ""), d.address, d.addressType.rawValue,
                Self.kindName(d.kind),
                d.rssi.map { "\($0) dBm" } ?? "", d.services.joined(separator: " "),
            ])
        }
        Output.print(Output.table(rows))
        if report.devices.contains(where: \.paired) { Output.print("* paired") }
        if let sensor = report.devices.first(where: { $0.kind != nil && !$0.paired }) {
            Output.print("Pair one with `handoff pair \"\(sensor.name ?? sensor.address)\"`.")
        }
    }

    func printClassic(_ report: ScanReport) {
        guard !report.devices.isEmpty else {
            Output.print(
                "No classic device answered within \(seconds) s. Wear the strap (it wakes with skin contact) and make sure no phone holds it."
            )
            return
        }
        var rows = [["NAME", "ADDRESS", "CLASS", "RSSI", "PROTOCOL"]]
        for d in report.devices {
            rows.append([
                (d.name ?? "(no name)") + (d.paired ? " *" : ""), d.address, d.classOfDevice ?? "",
                d.rssi.map { "\($0) dBm" } ?? "", d.profile ?? "-",
            ])
        }
        Output.print(Output.table(rows))
        if report.devices.contains(where: \.paired) { Output.print("* paired") }
        if let strap = report.devices.first(where: { !$0.paired }) {
            Output.print(
                "Pair one with `handoff pair \(strap.address) --as \(strap.profile ?? "polar-wearlink|zephyr-hxm")`.")
        }
    }

    static func kindName(_ kind: String?) -> String {
        switch kind {
        case "heart_rate": "hr"
        case "footpod": "footpod"
        case "bike": "bike"
        case let other?: other
        case nil: "-"
        }
    }
}

public struct Pair: ParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Pair a Bluetooth sensor: handoffd connects, reads what it is, and keeps it connected from now on.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    @Argument(
        help:
            "The sensor's address (F0:12:34:56:78:9A) or advertised name (`handoff scan` lists them); a classic strap's address (`handoff scan --classic`)."
    )
    var sensor: String

    @Option(
        name: .customLong("as"),
        help:
            "What to use it as: hr, footpod or bike (default: what it offers); polar-wearlink or zephyr-hxm for a classic strap."
    )
    var kind: String?

    @Option(help: "Classic straps: the RFCOMM channel (default: ask the strap by SDP each time).")
    var channel: Int?

    @Option(help: "Classic straps: the PIN it asks for (default 0000 for Polar, 1234 for Zephyr).")
    var pin: String?

    public init() {}

    static let classicProfiles = ["polar-wearlink", "zephyr-hxm"]

    public func validate() throws {
        if let kind, !(["hr", "footpod", "bike"] + Self.classicProfiles).contains(kind) {
            throw ValidationError("--as takes hr, footpod or bike, or polar-wearlink or zephyr-hxm for a classic strap")
        }
        let classic = kind.map(Self.classicProfiles.contains) ?? false
        if !classic, channel != nil || pin != nil {
            throw ValidationError("--channel and --pin are for classic straps (--as polar-wearlink or zephyr-hxm)")
        }
        if let channel, !(1...30).contains(channel) { throw ValidationError("--channel must be 1 to 30") }
        if let pin, pin.isEmpty || pin.utf8.count > 16 { throw ValidationError("--pin must be 1 to 16 characters") }
    }

    public func run() throws {
        if !output.json { Output.error("looking for \(sensor) and connecting (up to 40 s)…") }
        let report: PairedSensorReport
        do {
            report = try connection.client(timeout: 75).send(
                .pair(target: sensor, kind: kind, channel: channel, pin: pin),
                expecting: PairedSensorReport.self)
        } catch {
            throw Output.fail(error, json: output.json)
        }
        if output.json {
            try Output.printJSON(report)
        } else {
            Output.print(
                "Paired \(report.name ?? report.address) (\(report.address)) as \(report.classic.profile ?? Scan.kindName(report.kind))."
            )
            Output.print(Sensors.details(report))
        }
    }
}

public struct Sensors: ParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "List the paired sensors: connection, battery, when last heard.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    public init() {}

    public func run() throws {
        let reports: [PairedSensorReport]
        do {
            reports = try connection.client.send(
                .sensors, expecting: [PairedSensorReport].self)
        } catch  where error.code == .replaying {
            return try replayed()
        } catch {
            throw Output.fail(error, json: output.json)
        }
        if output.json {
            try Output.printJSON(reports)
            return
        }
        guard !reports.isEmpty else {
            Output.print("No sensors are paired. `handoff scan` finds them; `handoff pair NAME` pairs one.")
            return
        }
        var rows = [["NAME", "ADDRESS", "KIND", "LINK", "BATTERY", "LAST SEEN"]]
        for r in reports {
            rows.append([
                r.name ?? "(no name)", r.address, Scan.kindName(r.kind), r.link.rawValue,
                r.device.batteryPercent.map { "\($0) %" } ?? "", lastSeen(r),
            ])
        }
        Output.print(Output.table(rows))
    }

    /// While handoffd replays a capture nothing is paired: the capture's sensors stand in.
    func replayed() throws {
        let status = try connection.client.call(.status, StatusReport.self, json: output.json)
        guard let replay = status.replay else {
            throw Output.fail(ControlError(code: "replaying", message: "handoffd stopped replaying"), json: output.json)
        }
        if output.json { return try Output.printJSON(ReplayedSensorsReport(replay: replay, sensors: status.sensors)) }
        Output.print(Status.replayLine(replay))
        var rows = [["ID", "KIND", "NAME", "STATE"]]
        for s in status.sensors {
            let state =
                s.link == .ended
                ? "ended with the capture"
                : s.fresh ? "replayed, live" : s.lastSeenS == nil ? "not in the capture yet" : "silent"
            rows.append([s.id, s.kind.rawValue.replacingOccurrences(of: "_", with: " "), s.name ?? "", state])
        }
        Output.print(Output.table(rows))
    }

    func lastSeen(_ r: PairedSensorReport) -> String {
        if let s = r.lastSeenS { return s < 2 ? "now" : "\(Format.duration(s)) ago" }
        return r.lastSeen.map { Output.localTime($0) } ?? "never"
    }

    static func details(_ r: PairedSensorReport) -> String {
        var rows: [[String]] = []
        let device = [r.device.manufacturer, r.device.model].compactMap { $0 }.joined(separator: " ")
        if !device.isEmpty { rows.append(["device", device + (r.device.firmware.map { ", firmware \($0)" } ?? "")]) }
        if let location = r.device.location { rows.append(["worn on", location]) }
        if let battery = r.device.batteryPercent { rows.append(["battery", "\(battery) %"]) }
        if let profile = r.classic.profile {
            rows.append([
                "protocol", profile + ", RFCOMM channel " + (r.classic.rfcommChannel.map(String.init) ?? "from SDP"),
            ])
        }
        rows.append(["link", r.link.rawValue])
        return Output.table(rows.map { ["  " + $0[0], $0[1]] })
    }
}

public struct Forget: ParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Forget a paired sensor: handoffd disconnects it and stops looking for it.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The sensor's address or name.")
    var sensor: String

    public init() {}

    public func run() throws {
        let report: PairedSensorReport
        do {
            report = try connection.client.send(
                .forget(sensor: sensor), expecting: PairedSensorReport.self)
        } catch {
            throw Output.fail(error, json: output.json)
        }
        if output.json {
            try Output.printJSON(report)
        } else {
            Output.print("Forgot \(report.name ?? report.address).")
        }
    }
}

public struct SensorCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sensor", abstract: "Work with one paired sensor.", subcommands: [SensorTest.self])

    public init() {}
}

public struct SensorTest: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "test", abstract: "Show a paired sensor's live values for a few seconds.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The sensor's address or name.")
    var sensor: String

    @Option(help: "How long to show values, in seconds.")
    var seconds = 10

    public init() {}

    public func run() async throws {
        var lastDecoded = -1
        var heard = false
        for second in 0..<max(1, seconds) {
            let report: SensorReport
            do {
                report = try connection.client.send(
                    .sensor(sensor: sensor), expecting: SensorReport.self)
            } catch {
                throw Output.fail(error, json: output.json)
            }
            let fresh = report.payloads.decoded != lastDecoded
            lastDecoded = report.payloads.decoded
            if fresh && report.link == .connected { heard = true }
            if output.json {
                try Output.printJSON(report)
            } else {
                Output.print(Self.line(report, second: second))
            }
            if second + 1 < seconds { try await Task.sleep(for: .seconds(1)) }
        }
        if !heard && !output.json {
            Output.error(
                "\(sensor) sent nothing: wake it (wear the strap, walk with the footpod) and check `handoff sensors`")
            throw ExitCode.failure
        }
    }

    static func line(_ r: SensorReport, second: Int) -> String {
        var parts = ["\(String(format: "%3d", second)) s"]
        guard r.link == .connected || r.fresh else {
            return parts[0] + "  \((r.link ?? .connecting).rawValue)" + (r.payloads.lastError.map { " · \($0)" } ?? "")
        }
        if let v = r.values {
            if let hr = v.hrBpm { parts.append("\(hr) bpm") }
            if let rr = v.rrMs, !rr.isEmpty {
                parts.append("RR " + rr.map { Format.fixed($0, 0) }.joined(separator: "/") + " ms")
            }
            if let contact = v.contact { parts.append(contact == "detected" ? "contact" : "NO CONTACT") }
            if let speed = v.speedMps { parts.append("\(Format.fixed(speed, 2)) m/s") }
            if let cadence = v.cadenceSpm { parts.append("\(cadence) spm") }
            if let stride = v.strideM { parts.append("stride \(Format.fixed(stride, 2)) m") }
            if let rpm = v.crankRpm { parts.append("\(Format.fixed(rpm, 0)) rpm") }
        }
        if let battery = r.batteryPercent { parts.append("battery \(battery) %") }
        if r.payloads.rejected > 0 { parts.append("\(r.payloads.rejected) malformed") }
        return parts.joined(separator: "  ")
    }
}
