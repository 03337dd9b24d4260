import Foundation
import PackControl
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Whether this machine's kernel has Bluetooth sockets (CI's does not; the BlueZ VM covers the
/// commands against the real stack).
let kernelHasBluetooth: Bool = {
    let fd = socket(31 /* AF_BLUETOOTH */, Int32(SOCK_RAW.rawValue), 1 /* BTPROTO_HCI */)
    if fd >= 0 { close(fd) }
    return fd >= 0
}()

@Suite(
    "The Bluetooth commands on a machine without kernel Bluetooth: clear errors, nothing paired",
    .enabled(if: !kernelHasBluetooth, "this kernel has Bluetooth: scripts/bluez-vm covers these commands"),
    .serialized)
struct BluetoothCommandTests {
    static func liveDaemon(_ dir: TemporaryDirectory) throws -> Daemon {
        try "[gps]\nsource = \"none\"\n[pedometer]\nsources = [\"footpod\"]\n".write(
            toFile: dir.path + "/handoff.toml", atomically: true, encoding: .utf8)
        return try Daemon(in: dir, arguments: [])
    }

    @Test("scan and pair say the kernel has no Bluetooth and how to fix it, in text and JSON")
    func noBluetooth() async throws {
        let dir = try TemporaryDirectory("ble-none")
        defer { dir.remove() }
        let daemon = try Self.liveDaemon(dir)
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        let socket = ["--socket", daemon.socket]

        let scan = try handoff(["scan", "--seconds", "1"] + socket)
        #expect(scan.status == 1)
        #expect(scan.stderr.contains("scanning for 1 s"))
        #expect(
            scan.stderr.contains("no Bluetooth support") && scan.stderr.contains("modprobe bluetooth"), "\(scan.stderr)"
        )
        let json = try handoff(["scan", "--seconds", "1", "--json"] + socket)
        #expect(json.status == 1 && json.stdout.isEmpty)
        #expect(json.stderr.contains(#""code":"no_adapter""#), "\(json.stderr)")

        let pair = try handoff(["pair", "Handoff HR", "--as", "hr"] + socket)
        #expect(pair.status == 1)
        #expect(pair.stderr.contains("no Bluetooth support"), "\(pair.stderr)")

        let inquiry = try handoff(["scan", "--classic", "--seconds", "1", "--json"] + socket)
        #expect(inquiry.status == 1 && inquiry.stderr.contains(#""code":"no_adapter""#), "\(inquiry.stderr)")
        let classic = try handoff(["pair", "00:07:80:12:34:56", "--as", "zephyr-hxm"] + socket)
        #expect(classic.status == 1 && classic.stderr.contains("no Bluetooth support"), "\(classic.stderr)")
        let byName = try handoff(["pair", "HXM026001", "--as", "zephyr-hxm", "--json"] + socket)
        #expect(byName.status == 1 && byName.stderr.contains("pair a classic strap by its address"), "\(byName.stderr)")
        #expect(try handoff(["sensors", "--json"] + socket).stdout == "[]\n", "nothing was paired")
        #expect(daemon.log.contains("Bluetooth is not available"), "handoffd says so at start")
    }

    @Test("With nothing paired: sensors says how to pair, forget and sensor test name what is missing")
    func nothingPaired() async throws {
        let dir = try TemporaryDirectory("ble-unpaired")
        defer { dir.remove() }
        let daemon = try Self.liveDaemon(dir)
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        let socket = ["--socket", daemon.socket]

        let sensors = try handoff(["sensors"] + socket)
        #expect(sensors.status == 0)
        #expect(sensors.stdout.contains("No sensors are paired") && sensors.stdout.contains("handoff scan"))
        #expect(try handoff(["sensors", "--json"] + socket).stdout == "[]\n")

        let forget = try handoff(["forget", "Handoff HR"] + socket)
        #expect(forget.status == 1)
        #expect(forget.stderr.contains(#"no paired sensor is "Handoff HR""#), "\(forget.stderr)")
        let test = try handoff(["sensor", "test", "Handoff HR", "--seconds", "1", "--json"] + socket)
        #expect(test.status == 1 && test.stderr.contains(#""code":"not_paired""#), "\(test.stderr)")
    }

    @Test("Bad arguments are refused before handoffd is asked; a replaying handoffd says it has no Bluetooth")
    func refusals() async throws {
        #expect(try handoff(["scan", "--seconds", "0"]).status == 64)
        let kind = try handoff(["pair", "Handoff HR", "--as", "kayak"])
        #expect(kind.status == 64 && kind.stderr.contains("--as takes hr, footpod or bike"))
        let channel = try handoff(["pair", "00:07:80:12:34:56", "--as", "zephyr-hxm", "--channel", "31"])
        #expect(channel.status == 64 && channel.stderr.contains("--channel must be 1 to 30"))
        let pinForBLE = try handoff(["pair", "Handoff HR", "--as", "hr", "--pin", "1234"])
        #expect(pinForBLE.status == 64 && pinForBLE.stderr.contains("for classic straps"))

        let dir = try TemporaryDirectory("ble-replay")
        defer { dir.remove() }
        let daemon = try Daemon(in: dir, arguments: ["--replay", demoCapturePath, "--speed", "1"])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()
        let scan = try handoff(["scan", "--seconds", "1", "--socket", daemon.socket])
        #expect(scan.status == 1)
        #expect(
            scan.stderr.contains("replays the capture") && scan.stderr.contains("instead of using Bluetooth"),
            "\(scan.stderr)")
    }
}
