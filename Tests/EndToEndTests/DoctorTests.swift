import Foundation
import PackControl
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `handoff doctor` on this machine, which has no Bluetooth in its kernel, no gpsd, no Wi-Fi and
/// no IIO device: each of those is named, with what to do, and the exit status is 1. What depends
/// on the machine (the kernel's Bluetooth, the clock) is found out here independently, not assumed.
@Suite("handoff doctor names what is wrong")
struct DoctorTests {
    static func kernelHasBluetooth() -> Bool {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), 1)
        if fd >= 0 { close(fd) }
        return fd >= 0 || errno != EAFNOSUPPORT
    }

    /// adjtimex(2) with modes 0 (read only), called through the C library directly: TIME_ERROR
    /// (5), or STA_UNSYNC (0x40) in `status` (an int at offset 40 of struct timex on LP64 Linux),
    /// means unsynchronised.
    static func clockSynchronized() -> Bool {
        typealias AdjTimex = @convention(c) (UnsafeMutableRawPointer) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "adjtimex") else { return false }
        let call = unsafeBitCast(symbol, to: AdjTimex.self)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: 512)
        let state = call(buffer)
        let status = buffer.load(fromByteOffset: 40, as: Int32.self)
        return state >= 0 && state != 5 && (status & 0x40) == 0
    }

    static func configuration(_ dir: TemporaryDirectory, gpsdPort: UInt16) -> String {
        """
        [storage]
        database = "\(dir.path)/handoff.sqlite"
        [gps]
        gpsd = "127.0.0.1:\(gpsdPort)"
        [pedometer]
        sysfs = "\(dir.path)/sys"
        [sync]
        network = "iw"
        interface = "wlan-doctor9"
        home_ssids = ["Home"]
        """
    }

    @Test("With handoffd running: no Bluetooth, no gpsd, no Wi-Fi state, no IIO device; exit 1")
    func problemsNamed() async throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            atPath: dir.path + "/sys/bus/iio/devices", withIntermediateDirectories: true)
        let gpsdPort = freeLoopbackPort()
        try Self.configuration(dir, gpsdPort: gpsdPort).write(
            toFile: dir.path + "/handoff.toml", atomically: true, encoding: .utf8)
        let daemon = try Daemon(in: dir, arguments: [])
        defer { daemon.terminate() }
        try await daemon.waitUntilReady()

        let result = try handoff(["doctor", "--json", "--socket", daemon.socket])
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        let report = try ControlJSON.decode(DoctorReport.self, from: result.stdout)
        #expect(!report.ok)
        func check(_ id: String) -> DoctorCheck? { report.checks.first { $0.check == id } }

        #expect(check("service")?.status == .ok)
        if !Self.kernelHasBluetooth() {
            let bluetooth = try #require(check("bluetooth.adapter"))
            #expect(bluetooth.status == .problem)
            #expect(bluetooth.summary.contains("no Bluetooth"))
            #expect(bluetooth.action?.contains("modprobe bluetooth") == true)
        }
        let sensors = try #require(check("sensors"))
        #expect(sensors.status == .warning && sensors.action?.contains("handoff pair") == true)
        let gps = try #require(check("gps"))
        #expect(gps.status == .problem)
        #expect(gps.summary.contains("gpsd is not running at 127.0.0.1:\(gpsdPort)"), "\(gps)")
        #expect(gps.action?.contains("systemctl start gpsd") == true)
        let clock = try #require(check("clock"))
        let synchronized = Self.clockSynchronized()
        #expect(clock.status == (synchronized ? .ok : .problem), "\(clock)")
        let pedometer = try #require(check("pedometer"))
        #expect(pedometer.status == .warning && pedometer.summary.contains("steps come from the footpod"))
        #expect(check("storage.space")?.status == .ok)
        let database = try #require(check("storage.database"))
        #expect(database.status == .ok && database.summary.contains("quick_check"))
        let store = try #require(check("store"))
        #expect(store.status == .warning && store.action?.contains("handoff link --store") == true)
        let network = try #require(check("network.home"))
        #expect(network.status == .problem && network.summary.contains("cannot read the Wi-Fi state"), "\(network)")
        // Every check that is not ok says what to do.
        #expect(report.checks.allSatisfy { $0.status == .ok || $0.action?.isEmpty == false })

        // The same as text: one line per check, the action under it, a verdict at the end.
        let text = try handoff(["doctor", "--socket", daemon.socket])
        #expect(text.status == 1)
        #expect(text.stdout.contains("PROBLEM  gps"))
        #expect(text.stdout.contains("→ `sudo systemctl start gpsd`"))
        #expect(text.stdout.contains("fix the lines marked PROBLEM"))
        #expect(text.stdout.split(separator: "\n").allSatisfy { $0.count < 200 })
    }

    @Test("Without handoffd: the service is the first problem, and handoffd --doctor finds a damaged journal")
    func damagedJournalWithoutService() async throws {
        let dir = try TemporaryDirectory()
        try Self.configuration(dir, gpsdPort: freeLoopbackPort()).write(
            toFile: dir.path + "/handoff.toml", atomically: true, encoding: .utf8)
        // A journal with runs in it, then damaged in the middle (as a failing card does).
        let daemon = try Daemon(
            in: dir, arguments: ["--replay", demoCapturePath, "--speed", "max", "--exit-after-replay"])
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 0, "\(daemon.log)")
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: daemon.database))
        let size = try handle.seekToEnd()
        #expect(size > 64 * 1024)
        for offset in stride(from: UInt64(8192), to: size - 4096, by: 16384) {
            try handle.seek(toOffset: offset)
            handle.write(Data(repeating: 0xA5, count: 2048))
        }
        try handle.close()

        let config = dir.path + "/handoff.toml"
        let result = try handoff(
            [
                "doctor", "--json", "--socket", dir.path + "/control.sock", "--config", config,
            ], environment: ProcessInfo.processInfo.environment.merging(["HANDOFF_CONFIG": config]) { $1 })
        #expect(result.status == 1)
        let report = try ControlJSON.decode(DoctorReport.self, from: result.stdout)
        #expect(report.checks.first?.check == "service")
        #expect(report.checks.first?.status == .problem)
        #expect(report.checks.first?.summary.contains("not running") == true)
        // The fallback is handoffd --doctor with the same configuration: it reads the journal.
        let database = try #require(report.checks.first { $0.check == "storage.database" }, "\(report.checks)")
        #expect(database.status == .problem, "\(database)")
        #expect(database.summary.contains("damaged") || database.summary.contains("cannot"), "\(database)")
    }
}
