import Foundation
import HandoffModel
import Logging
import PackSensors
import PackSystem
import SensorCodecs
import TestSupport
import Testing

/// The IIO sources against sysfs trees built in a temporary folder: the kernel is simulated
/// (this machine has no IMU), the files and their formats are the IIO ABI's.
@Suite(
    "IIO pedometer sources (simulated kernel: a sysfs tree in a temporary folder; real time: the sources poll it on their own threads)",
    .serialized)
struct IIOTests {

    static func write(_ path: String, _ text: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    static func run(
        _ source: any LiveSource, until done: (EventCollector) -> Bool, timeout: Double = 10
    ) -> EventCollector {
        let collector = EventCollector()
        let stop = StopFlag()
        let thread = Thread { source.run(emit: { collector.add($0) }, stop: stop, logger: Logger(label: "test")) }
        thread.start()
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, !done(collector) { usleep(20_000) }
        stop.set()
        while thread.isExecuting { usleep(10_000) }
        return collector
    }

    @Test("Step counter (simulated kernel): enabled through in_steps_en, its count read each second")
    func stepCounter() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let dev = dir.path + "/bus/iio/devices/iio:device0"
        try Self.write(dev + "/name", "lsm6dsl\n")
        try Self.write(dev + "/in_steps_en", "0\n")
        try Self.write(dev + "/in_steps_input", "120\n")
        try Self.write(dir.path + "/bus/iio/devices/iio:device1/in_accel_x_raw", "0\n")
        let found = IIODevice.find(sysfs: dir.path, having: "in_steps_input")
        #expect(found.map(\.name) == ["iio:device0"] && found.first?.model == "lsm6dsl")
        var source = IIOStepCounterSource(device: found[0], clock: .system)
        source.period = 0.05
        let collector = Self.run(source) { c in
            if c.stepCounts.count == 3 { try? Self.write(dev + "/in_steps_input", "131\n") }
            return c.stepCounts.last == 131
        }
        #expect(collector.stepCounts.first == 120 && collector.stepCounts.last == 131)
        #expect(try String(contentsOfFile: dev + "/in_steps_en", encoding: .utf8).hasPrefix("1"))
        if case .link(_, .connected, _)? = collector.all.first?.body {} else { Issue.record("no link event first") }
    }

    @Test("The fallback order picks the step counter, then the accelerometer, else nothing")
    func selection() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(
            PedometerSelection.source(
                order: ["step-counter", "accelerometer"], sysfs: dir.path, deviceRoot: dir.path, rate: 50,
                clock: .system) == nil)
        try Self.write(dir.path + "/bus/iio/devices/iio:device1/in_accel_x_raw", "0\n")
        let accel = PedometerSelection.source(
            order: ["step-counter", "accelerometer"], sysfs: dir.path, deviceRoot: dir.path, rate: 50, clock: .system)
        #expect(accel?.descriptor.transport == .iioAccel)
        try Self.write(dir.path + "/bus/iio/devices/iio:device0/in_steps_input", "0\n")
        let counter = PedometerSelection.source(
            order: ["step-counter", "accelerometer"], sysfs: dir.path, deviceRoot: dir.path, rate: 50, clock: .system)
        #expect(counter?.descriptor.transport == .iioSteps)
        let accelFirst = PedometerSelection.source(
            order: ["accelerometer", "step-counter"], sysfs: dir.path, deviceRoot: dir.path, rate: 50, clock: .system)
        #expect(accelFirst?.descriptor.transport == .iioAccel)
    }

    @Test("Scan types parse as the IIO ABI writes them, and records unpack with alignment and sign")
    func scanTypes() throws {
        let s16 = try #require(IIOScanType("le:s16/16>>0"))
        #expect(s16.signed && !s16.bigEndian && s16.bytes == 2)
        let be12 = try #require(IIOScanType("be:s12/16>>4"))
        let ts = try #require(IIOScanType("le:s64/64>>0"))
        #expect(
            IIOScanType("xx:s16/16>>0") == nil && IIOScanType("le:s17/16>>0") == nil && IIOScanType("le:s16/16") == nil)
        let layout = IIOScanLayout([("in_accel_x", 0, s16), ("in_accel_y", 1, be12), ("in_timestamp", 3, ts)])
        #expect(layout.channel("in_accel_y")?.offset == 2 && layout.channel("in_timestamp")?.offset == 8)
        #expect(layout.recordSize == 16)
        var record = [UInt8](repeating: 0, count: 16)
        record[0] = 0x18; record[1] = 0xFC  // -1000 little-endian
        record[2] = 0xFF; record[3] = 0xF0  // -1 in 12 bits, big-endian, shifted left 4
        record[8] = 0x40; record[9] = 0x42; record[10] = 0x0F  // 1 000 000
        record.withUnsafeBytes { bytes in
            #expect(s16.value(in: bytes, at: 0) == -1000)
            #expect(be12.value(in: bytes, at: 2) == -1)
            #expect(ts.value(in: bytes, at: 8) == 1_000_000)
        }
    }

    @Test(
        "Accelerometer buffer (simulated kernel): a walk's samples give the detector's count",
        .enabled(if: Fixtures.available, "needs ../shared/fixtures (HANDOFF_FIXTURES)"))
    func bufferedAccelerometer() throws {
        // A real walk (phone in hand) at 50 Hz, written as the driver's buffer would hold it:
        // x, y, z as le:s16 counts of 0.00239 m/s² (±8 g), and a le:s64 nanosecond timestamp.
        let (samples, _) = try StepDetectorFixture.load("Nexus_Jamie_Hard_InHand_1")
        let walk = try samples.resampled(to: 50)
        let scale = 0.002394
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let dev = dir.path + "/bus/iio/devices/iio:device2"
        try Self.write(dev + "/name", "bmi160_accel\n")
        try Self.write(dev + "/in_accel_x_raw", "0\n")
        try Self.write(dev + "/in_accel_scale", "\(scale)\n")
        try Self.write(dev + "/in_accel_sampling_frequency", "50.000000\n")
        for (i, axis) in ["x", "y", "z"].enumerated() {
            try Self.write(dev + "/scan_elements/in_accel_\(axis)_type", "le:s16/16>>0\n")
            try Self.write(dev + "/scan_elements/in_accel_\(axis)_index", "\(i)\n")
            try Self.write(dev + "/scan_elements/in_accel_\(axis)_en", "0\n")
        }
        try Self.write(dev + "/scan_elements/in_timestamp_type", "le:s64/64>>0\n")
        try Self.write(dev + "/scan_elements/in_timestamp_index", "3\n")
        try Self.write(dev + "/scan_elements/in_timestamp_en", "0\n")
        try Self.write(dev + "/buffer/length", "0\n")
        try Self.write(dev + "/buffer/enable", "0\n")
        var buffer = Data()
        var quantised = AccelerometerCSV()
        for i in walk.times.indices {
            var record = [UInt8](repeating: 0, count: 16)
            let counts = [walk.x[i], walk.y[i], walk.z[i]].map { Int16(clamping: Int(($0 / scale).rounded())) }
            for (axis, c) in counts.enumerated() {
                record[axis * 2] = UInt8(truncatingIfNeeded: c)
                record[axis * 2 + 1] = UInt8(truncatingIfNeeded: c >> 8)
            }
            let ns = Int64(walk.times[i] * 1e9) + 5_000_000_000
            for b in 0..<8 { record[8 + b] = UInt8(truncatingIfNeeded: ns >> (8 * Int64(b))) }
            buffer.append(contentsOf: record)
            quantised.times.append(walk.times[i])
            quantised.x.append(Double(counts[0]) * scale)
            quantised.y.append(Double(counts[1]) * scale)
            quantised.z.append(Double(counts[2]) * scale)
        }
        try buffer.write(to: URL(fileURLWithPath: dir.path + "/iio:device2"))
        let expected = quantised.countSteps()
        let device = try #require(IIODevice.find(sysfs: dir.path, having: "in_accel_x_raw").first)
        let source = IIOAccelerometerSource(device: device, deviceRoot: dir.path, rate: 50, clock: .system)
        let collector = Self.run(source) { $0.stepCounts.last == expected }
        #expect(expected > 290)
        #expect(collector.stepCounts.last == expected)
        #expect(try String(contentsOfFile: dev + "/scan_elements/in_accel_y_en", encoding: .utf8).hasPrefix("1"))
    }
}

extension IIOTests {
    @Test("An accelerometer whose buffer cannot be enabled (no trigger) is polled through sysfs instead")
    func bufferRefusedFallsBackToPolling() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let dev = dir.path + "/bus/iio/devices/iio:device0"
        try Self.write(dev + "/name", "mpu6050\n")
        for (i, axis) in ["x", "y", "z"].enumerated() {
            try Self.write(dev + "/in_accel_\(axis)_raw", axis == "z" ? "16384\n" : "0\n")
            try Self.write(dev + "/scan_elements/in_accel_\(axis)_type", "be:s16/16>>0\n")
            try Self.write(dev + "/scan_elements/in_accel_\(axis)_index", "\(i)\n")
            try Self.write(dev + "/scan_elements/in_accel_\(axis)_en", "0\n")
        }
        try Self.write(dev + "/in_accel_scale", "0.000598\n")
        try Self.write(dev + "/buffer/length", "0\n")
        // The kernel refuses the write (EINVAL without a trigger); here the attribute cannot be
        // opened for writing at all, which the source sees the same way.
        try FileManager.default.createDirectory(atPath: dev + "/buffer/enable", withIntermediateDirectories: true)
        // A character device node that would give samples if read: it must not be.
        var record = [UInt8](repeating: 0, count: 6)
        record[4] = 0x40
        try Data((0..<500).flatMap { _ in record }).write(to: URL(fileURLWithPath: dir.path + "/iio:device0"))
        let device = try #require(IIODevice.find(sysfs: dir.path, having: "in_accel_x_raw").first)
        let source = IIOAccelerometerSource(device: device, deviceRoot: dir.path, rate: 20, clock: .system)
        let collector = Self.run(source, until: { $0.stepCounts.count >= 2 }, timeout: 5)
        // Polled: a pack standing still (1 g on z) counts no steps, once a second.
        #expect(collector.stepCounts.count >= 2)
        #expect(collector.stepCounts.allSatisfy { $0 == 0 })
        // The buffer was not read to its end: the source kept polling, and no link went down.
        #expect(!collector.links.contains(.disconnected), "\(collector.links)")
    }
}

extension EventCollector {
    /// The step counts the source passed on.
    var stepCounts: [Int] { texts(.steps).compactMap { Int($0) } }
}
