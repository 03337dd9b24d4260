import Foundation
import HandoffModel
import Logging
import PackSensors
import PackSystem
import SensorCodecs
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The serial NMEA source on a real terminal: a pseudo-terminal pair from the kernel, so that the
/// termios calls are the ones a UART or a USB receiver gets. The test writes as a receiver would.
@Suite(
    "Serial NMEA source on a kernel pseudo-terminal (real time: the source's own thread reads the terminal)",
    .serialized)
struct SerialNMESourceTests {
    /// Opens a pseudo-terminal: the controlling side's descriptor and the terminal's path.
    /// (Glibc's posix_openpt family is not visible to Swift; these are its two ioctls, whose
    /// numbers are the same on x86-64, arm64 and 32-bit ARM.)
    static func openPTY() throws -> (master: Int32, path: String) {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0, "/dev/ptmx: \(String(cString: strerror(errno)))")
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        let tiocsptlck: UInt = 0x4004_5431
        let tiocgptn: UInt = 0x8004_5430
        try #require(withUnsafeMutablePointer(to: &unlock) { ioctl(master, tiocsptlck, $0) } == 0)
        try #require(withUnsafeMutablePointer(to: &number) { ioctl(master, tiocgptn, $0) } == 0)
        return (master, "/dev/pts/\(number)")
    }

    static func wait(_ what: String, timeout: Double = 120, until condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            try #require(Date() < deadline, "timed out waiting for \(what)")
            usleep(10_000)
        }
    }

    static func write(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            sent += n
        }
    }

    @Test("Raw mode at the configured baud rate; split, noisy input framed; a vanished port goes down")
    func readsReceiver() throws {
        let (master, path) = try Self.openPTY()
        var masterOpen = true
        defer { if masterOpen { close(master) } }
        let collector = EventCollector()
        let stop = StopFlag()
        defer { stop.set() }
        let source = SerialNMEASource(id: "gps0", device: path, baudRate: 38400, clock: .system)
        let thread = Thread { source.run(emit: { collector.add($0) }, stop: stop, logger: Logger(label: "test")) }
        thread.start()
        try Self.wait("the port to open") { collector.links == [.connected] }

        // The terminal is in raw mode at 38400 baud, 8N1, no flow control.
        var tio = termios()
        #expect(tcgetattr(master, &tio) == 0)
        #expect(cfgetispeed(&tio) == speed_t(B38400) && cfgetospeed(&tio) == speed_t(B38400))
        #expect(tio.c_lflag & tcflag_t(ICANON | ECHO | ISIG) == 0, "line editing and echo are off")
        #expect(tio.c_iflag & tcflag_t(ICRNL | IXON) == 0, "no CR translation, no XON/XOFF")
        #expect(
            tio.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8) && tio.c_cflag & (tcflag_t(PARENB) | tcflag_t(CRTSCTS)) == 0)

        // What a receiver sends: a partial line from before we listened, binary, sentences split
        // across writes, a $$ prefix, a bare LF.
        let rmc = "$GPRMC,081836,A,3751.65,S,14507.36,E,000.0,360.0,130998,011.3,E*62"
        let gga = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47"
        let stream =
            Array(",4807.038,N*1F\r\n".utf8) + [0xB5, 0x62, 0x01, 0x07, 0x00, 0xFF] + Array("\r\n".utf8)
            + Array("\(rmc)\r\n$\(gga)\n".utf8)
        for chunk in stride(from: 0, to: stream.count, by: 7) {
            Self.write(master, Array(stream[chunk..<min(chunk + 7, stream.count)]))
            usleep(2_000)
        }
        try Self.wait("two sentences") { collector.texts(.nmea).count >= 2 }
        #expect(collector.texts(.nmea) == [rmc, gga])
        // The sentences decode with the same codec as every other source.
        guard case .gga(let gga) = try NMEAReport(line: collector.texts(.nmea)[1]) else {
            Issue.record("not GGA")
            return
        }
        #expect(abs((gga.latitude ?? 0) - 48.1173) < 1e-9)

        // The receiver goes away (a USB receiver unplugged: the terminal hangs up).
        close(master)
        masterOpen = false
        try Self.wait("the link to go down") { collector.links == [.connected, .disconnected] }
        stop.set()
    }

    @Test("A port that does not exist is retried, with no link until it opens")
    func missingPort() throws {
        let directory = try TemporaryDirectory("handoff-serial")
        defer { directory.remove() }
        let device = directory.file("ttyGPS").path
        let warnings = CapturedLog()
        let collector = EventCollector()
        let stop = StopFlag()
        defer { stop.set() }
        let source = SerialNMEASource(id: "gps0", device: device, baudRate: 9600, clock: .system)
        let done = Atomic(false)
        let thread = Thread {
            source.run(emit: { collector.add($0) }, stop: stop, logger: Logger(label: "test") { _ in warnings })
            done.store(true, ordering: .releasing)
        }
        thread.start()
        // The source has tried the missing port and said it will retry: nothing else came of it.
        try Self.wait("a failed attempt", timeout: 120) { warnings.count(.warning) >= 1 }
        #expect(collector.all.isEmpty)
        // The probe: the port appears (a pseudo-terminal behind the path) and the link comes up,
        // the first and only event.
        let (master, path) = try Self.openPTY()
        defer { close(master) }
        #expect(symlink(path, device) == 0)
        try Self.wait("the port to open", timeout: 120) { !collector.all.isEmpty }
        #expect(collector.links == [.connected] && collector.all.count == 1)
        stop.set()
        try Self.wait("the source to stop", timeout: 120) { done.load(ordering: .acquiring) }
    }
}
