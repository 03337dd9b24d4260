import HandoffModel
import Logging
import PackSystem
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// A GPS receiver on a UART or USB serial port, read without gpsd.
///
/// The port is opened in raw mode (termios: no echo, no line editing, no CR/LF translation,
/// 8N1, no flow control) at the configured baud rate; the bytes go through the same framer as
/// everything else, and each sentence is passed on as an `nmea` payload. A USB receiver that is
/// unplugged makes the link go down, and the port is reopened with backoff until it is back.
/// Sentences are stamped, and the silence timed, by `clock`.
public struct SerialNMEASource: LiveSource {
    public let descriptor: SensorDescriptor
    public let device: String
    public let baudRate: Int
    public let clock: PackClock

    public init(id: SensorID = "gps0", device: String, baudRate: Int = 9600, clock: PackClock) {
        self.device = device
        self.baudRate = baudRate
        self.clock = clock
        descriptor = SensorDescriptor(
            id: id, kind: .gps, name: "NMEA receiver", address: device, transport: .serial)
    }

    /// The baud rates termios offers for GPS receivers.
    public static let supportedBaudRates: [Int: speed_t] = [
        4800: speed_t(B4800), 9600: speed_t(B9600), 19200: speed_t(B19200), 38400: speed_t(B38400),
        57600: speed_t(B57600), 115200: speed_t(B115200), 230400: speed_t(B230400), 460800: speed_t(B460800),
    ]

    /// Opens the port in raw mode; non-terminals (a FIFO or file in tests) are read as they are.
    static func open(_ device: String, baudRate: Int) throws -> Int32 {
        let fd = Glibc.open(device, O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw FileError(call: "open", path: device, errno: errno) }
        if isatty(fd) == 1 {
            guard let speed = supportedBaudRates[baudRate] else {
                close(fd)
                throw FileError(call: "cfsetspeed \(baudRate)", path: device, errno: EINVAL)
            }
            var tio = termios()
            guard tcgetattr(fd, &tio) == 0 else {
                let e = errno
                close(fd)
                throw FileError(call: "tcgetattr", path: device, errno: e)
            }
            cfmakeraw(&tio)
            tio.c_cflag |= tcflag_t(CLOCAL) | tcflag_t(CREAD)
            tio.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
            cfsetispeed(&tio, speed)
            cfsetospeed(&tio, speed)
            guard tcsetattr(fd, TCSANOW, &tio) == 0 else {
                let e = errno
                close(fd)
                throw FileError(call: "tcsetattr", path: device, errno: e)
            }
            tcflush(fd, TCIFLUSH)
        }
        return fd
    }

    public func run(emit: @escaping @Sendable (CaptureEvent) -> Void, stop: StopFlag, logger: Logger) {
        var link = LinkKeeper(sensor: descriptor.id, clock: clock)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !stop.isSet {
            var reason = "stopped"
            do {
                let fd = try Self.open(device, baudRate: baudRate)
                defer { close(fd) }
                logger.info(
                    "Reading the GPS receiver",
                    metadata: ["sensor.id": "\(descriptor.id)", "device": "\(device)", "baud": "\(baudRate)"])
                link.up(reason: device, emit: emit)
                var framer = NMEAFramer()
                var lastData = clock.monotonic()
                while !stop.isSet {
                    guard waitReadable(fd, timeout: 0.25) else {
                        if clock.monotonic().seconds(since: lastData) > 10 {
                            reason = "the receiver sent nothing for 10 s"
                            break
                        }
                        continue
                    }
                    let (n, code) = retryingEINTR {
                        chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    }
                    if n < 0, code == EAGAIN { continue }
                    if n == 0 {
                        // A FIFO whose writer closed, or a port that went away.
                        reason = "the device closed"
                        break
                    }
                    if n < 0 {
                        reason = "reading \(device): \(String(cString: strerror(code)))"
                        break
                    }
                    lastData = clock.monotonic()
                    framer.append(chunk[..<n]) { line in
                        let text = String(decoding: line, as: UTF8.self)
                        emit(clock.stamp(.payload(sensor: descriptor.id, kind: .nmea, .text(text))))
                    }
                }
            } catch {
                reason = "\(error)"
            }
            if stop.isSet { break }
            link.down(reason: reason, emit: emit, stop: stop) { attempts in
                logger.warning(
                    "The GPS receiver is not readable; retrying",
                    metadata: [
                        "sensor.id": "\(descriptor.id)", "device": "\(device)", "reason": "\(reason)",
                        "attempts": "\(attempts)",
                    ])
            }
        }
    }
}
