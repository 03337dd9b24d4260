import HandoffModel
import Logging
import PackSystem
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// An IMU's hardware pedometer through IIO (`in_steps_input`, enabled by `in_steps_en`), as on
/// Bosch's BMA400 and BMI323 (and, in recent kernels, BMI270) mainline drivers; hw/README.md says
/// which parts a Raspberry Pi OS kernel builds. Its count is read once a second and
/// passed on as a `steps` payload; the recorder turns counts into increments. Counts are stamped
/// by `clock`.
public struct IIOStepCounterSource: LiveSource {
    public let descriptor: SensorDescriptor
    public let device: IIODevice
    public let clock: PackClock
    public var period = 1.0

    public init(id: SensorID = "steps0", device: IIODevice, clock: PackClock) {
        self.device = device
        self.clock = clock
        descriptor = SensorDescriptor(
            id: id, kind: .pedometer, name: device.model.map { "\($0) step counter" } ?? "step counter",
            address: device.directory, transport: .iioSteps)
    }

    public func run(emit: @escaping @Sendable (CaptureEvent) -> Void, stop: StopFlag, logger: Logger) {
        var link = LinkKeeper(sensor: descriptor.id, clock: clock)
        while !stop.isSet {
            if device.read("in_steps_en") == "0", !device.write("in_steps_en", "1") {
                logger.warning(
                    "Cannot enable the step counter (in_steps_en): is the udev rule for IIO installed?",
                    metadata: ["sensor.id": "\(descriptor.id)", "device": "\(device.directory)"])
            }
            guard let text = device.read("in_steps_input"), let count = Int(text), count >= 0 else {
                link.down(reason: "in_steps_input unreadable", emit: emit, stop: stop) { attempts in
                    logger.warning(
                        "The step counter is not readable; retrying",
                        metadata: [
                            "sensor.id": "\(descriptor.id)", "device": "\(device.directory)",
                            "attempts": "\(attempts)",
                        ])
                }
                continue
            }
            link.up(reason: device.directory, emit: emit)
            emit(clock.stamp(.payload(sensor: descriptor.id, kind: .steps, .text(String(count)))))
            _ = stop.sleep(seconds: period)
        }
    }
}

/// An IIO accelerometer, with the pack's own step detection (`StepDetector`).
///
/// Samples come from the driver's buffer (`/dev/iio:deviceN`, with `scan_elements` and a
/// trigger the driver or udev set up) when it offers one, else from polling `in_accel_*_raw` at
/// the sampling frequency. Values are scaled to m/s² by `in_accel_scale` (or the per-axis scale)
/// and `in_accel_offset`, per the IIO ABI. The running count goes out as a `steps` payload each
/// second and whenever it changes. Counts are stamped, and sysfs polling timed, by `clock`.
public struct IIOAccelerometerSource: LiveSource {
    public let descriptor: SensorDescriptor
    public let device: IIODevice
    /// Where `/dev/iio:deviceN` lives.
    public let deviceRoot: String
    public let requestedRate: Double
    public let clock: PackClock

    public init(
        id: SensorID = "steps0", device: IIODevice, deviceRoot: String = "/dev", rate: Double = 50, clock: PackClock
    ) {
        self.device = device
        self.deviceRoot = deviceRoot
        self.clock = clock
        requestedRate = rate
        descriptor = SensorDescriptor(
            id: id, kind: .pedometer, name: device.model.map { "\($0) accelerometer" } ?? "accelerometer",
            address: device.directory, transport: .iioAccel)
    }

    /// The scale to m/s² per axis.
    func scales() -> [Double] {
        ["x", "y", "z"].map { axis in
            device.readNumber("in_accel_\(axis)_scale") ?? device.readNumber("in_accel_scale") ?? 1
        }
    }

    func offsets() -> [Double] {
        ["x", "y", "z"].map { axis in
            device.readNumber("in_accel_\(axis)_offset") ?? device.readNumber("in_accel_offset") ?? 0
        }
    }

    /// Sets the sampling frequency if the driver lets us, and returns what it runs at.
    func configureRate() -> Double {
        for attribute in ["in_accel_sampling_frequency", "sampling_frequency"] {
            guard device.read(attribute) != nil else { continue }
            _ = device.write(attribute, String(requestedRate))
            if let actual = device.readNumber(attribute), actual > 0 { return actual }
        }
        return requestedRate
    }

    /// The buffered layout, when the driver offers a buffer with x, y and z.
    func bufferedLayout() -> IIOScanLayout? {
        var enabled: [(name: String, index: Int, type: IIOScanType)] = []
        for channel in ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"] {
            guard let typeText = device.read("scan_elements/\(channel)_type"), let type = IIOScanType(typeText),
                let index = device.read("scan_elements/\(channel)_index").flatMap(Int.init)
            else {
                if channel == "in_timestamp" { continue }
                return nil
            }
            if device.read("scan_elements/\(channel)_en") != "1" { device.write("scan_elements/\(channel)_en", "1") }
            guard device.read("scan_elements/\(channel)_en") == "1" else { return nil }
            enabled.append((channel, index, type))
        }
        return IIOScanLayout(enabled)
    }

    public func run(emit: @escaping @Sendable (CaptureEvent) -> Void, stop: StopFlag, logger: Logger) {
        var backoff = Backoff.reconnecting
        while !stop.isSet {
            let rate = configureRate()
            var detector = StepDetector(sampleRate: rate)
            let scale = scales()
            let offset = offsets()
            emit(clock.stamp(.link(sensor: descriptor.id, state: .connected, reason: device.directory)))
            var reason: String?
            if let layout = bufferedLayout(), let path = Optional(deviceRoot + "/" + device.name),
                access(path, R_OK) == 0
            {
                reason = readBuffer(
                    path, layout, rate: rate, scale: scale, offset: offset, &detector, emit, stop, logger: logger)
                if reason == nil {
                    // A device without a trigger (no interrupt line wired, or added by new_device)
                    // refuses to enable its buffer: sysfs polling still counts.
                    logger.notice(
                        "The accelerometer's buffer cannot be enabled (no trigger?); polling sysfs instead",
                        metadata: ["sensor.id": "\(descriptor.id)", "device": "\(device.directory)"])
                }
            }
            if reason == nil {
                logger.info(
                    "Counting steps from the accelerometer, polling sysfs",
                    metadata: ["sensor.id": "\(descriptor.id)", "device": "\(device.directory)", "rate_hz": "\(rate)"])
                reason = poll(rate: rate, scale: scale, offset: offset, &detector, emit, stop)
            }
            if stop.isSet { break }
            detector.finish()
            emit(clock.stamp(.payload(sensor: descriptor.id, kind: .steps, .text(String(detector.count)))))
            let why = reason ?? "stopped"
            emit(clock.stamp(.link(sensor: descriptor.id, state: .disconnected, reason: why)))
            logger.warning("The accelerometer stopped: \(why); retrying", metadata: ["sensor.id": "\(descriptor.id)"])
            _ = stop.sleep(seconds: backoff.delay())
        }
    }

    /// Counts so far, passed on each second of samples and whenever a bout is confirmed.
    private struct Reporter {
        var lastReport = -Double.infinity
        var lastCount = -1

        mutating func report(
            _ count: Int, at t: Double, _ id: SensorID, _ clock: PackClock, _ emit: @Sendable (CaptureEvent) -> Void
        ) {
            guard count != lastCount || t - lastReport >= 1 else { return }
            lastReport = t
            lastCount = count
            emit(clock.stamp(.payload(sensor: id, kind: .steps, .text(String(count)))))
        }
    }

    /// Reads the buffer until it ends (why), or nil at once when it cannot be enabled.
    private func readBuffer(
        _ path: String, _ layout: IIOScanLayout, rate: Double, scale: [Double], offset: [Double],
        _ detector: inout StepDetector, _ emit: @escaping @Sendable (CaptureEvent) -> Void, _ stop: StopFlag,
        logger: Logger
    ) -> String? {
        device.write("buffer/length", "128")
        guard device.write("buffer/enable", "1") else { return nil }
        logger.info(
            "Counting steps from the accelerometer's buffer",
            metadata: ["sensor.id": "\(descriptor.id)", "device": "\(path)", "rate_hz": "\(rate)"])
        defer { device.write("buffer/enable", "0") }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return "cannot open \(path): \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        let axes = ["in_accel_x", "in_accel_y", "in_accel_z"].compactMap { layout.channel($0) }
        let timestamp = layout.channel("in_timestamp")
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: layout.recordSize * 64)
        var index = 0
        var firstTimestamp: Int64?
        var reporter = Reporter()
        while !stop.isSet {
            guard waitReadable(fd, timeout: 0.5) else { continue }
            let (n, code) = retryingEINTR { chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
            if n < 0, code == EAGAIN { continue }
            if n <= 0 { return n == 0 ? "the buffer ended" : "reading \(path): \(String(cString: strerror(code)))" }
            pending.append(contentsOf: chunk[..<n])
            var used = 0
            pending.withUnsafeBytes { bytes in
                while used + layout.recordSize <= bytes.count {
                    let record = UnsafeRawBufferPointer(rebasing: bytes[used..<(used + layout.recordSize)])
                    var values = [0.0, 0.0, 0.0]
                    for (i, axis) in axes.enumerated() {
                        values[i] = (Double(axis.type.value(in: record, at: axis.offset)) + offset[i]) * scale[i]
                    }
                    let t: Double
                    if let timestamp {
                        let ns = timestamp.type.value(in: record, at: timestamp.offset)
                        let first = firstTimestamp ?? ns
                        firstTimestamp = first
                        t = Double(ns - first) / 1e9
                    } else {
                        t = Double(index) / rate
                    }
                    index += 1
                    detector.add(time: t, x: values[0], y: values[1], z: values[2])
                    reporter.report(detector.count, at: t, descriptor.id, clock, emit)
                    used += layout.recordSize
                }
            }
            pending.removeFirst(used)
        }
        return "stopped"
    }

    private func poll(
        rate: Double, scale: [Double], offset: [Double], _ detector: inout StepDetector,
        _ emit: @escaping @Sendable (CaptureEvent) -> Void, _ stop: StopFlag
    ) -> String {
        let start = clock.monotonic()
        var reporter = Reporter()
        var next = 0.0
        while !stop.isSet {
            var values = [0.0, 0.0, 0.0]
            for (i, axis) in ["x", "y", "z"].enumerated() {
                guard let raw = device.readNumber("in_accel_\(axis)_raw") else {
                    return "in_accel_\(axis)_raw unreadable"
                }
                values[i] = (raw + offset[i]) * scale[i]
            }
            let t = clock.monotonic().seconds(since: start)
            detector.add(time: t, x: values[0], y: values[1], z: values[2])
            reporter.report(detector.count, at: t, descriptor.id, clock, emit)
            next += 1 / rate
            // The pause is real time, `clock` says where the schedule is: at most one period, so
            // that a test's clock standing still does not stretch the pauses (the system's clock,
            // with samples on schedule, never asks for more).
            let wait = min(next - clock.monotonic().seconds(since: start), 1 / rate)
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
        }
        return "stopped"
    }
}

/// Picks the pedometer source: the first kind in `order` that this pack has.
public enum PedometerSelection {
    public static func source(
        order: [String], sysfs: String, deviceRoot: String, rate: Double, clock: PackClock
    ) -> (any LiveSource)? {
        for kind in order {
            switch kind {
            case "step-counter":
                if let device = IIODevice.find(sysfs: sysfs, having: "in_steps_input").first {
                    return IIOStepCounterSource(device: device, clock: clock)
                }
            case "accelerometer":
                if let device = IIODevice.find(sysfs: sysfs, having: "in_accel_x_raw").first {
                    return IIOAccelerometerSource(device: device, deviceRoot: deviceRoot, rate: rate, clock: clock)
                }
            default:
                continue  // the footpod is the recorder's fallback, not a device
            }
        }
        return nil
    }
}
