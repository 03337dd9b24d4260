// handoff-bench: work loads for scripts/bench to count under callgrind. Not installed on a pack.
//
//   handoff-bench notifications N   N Heart Rate Measurement notifications through what the pack
//                                   does with each: read from a SEQPACKET socket (a socket pair in
//                                   place of the L2CAP ATT socket), ATT and GATT handling, stamping,
//                                   HRM decoding and the recorder. Callgrind's count for N minus
//                                   its count for 0, over N, is the instructions per notification.
//   handoff-bench hxm N             N Zephyr HxM frames (60 bytes, one a second) the same way: read
//                                   from a stream socket pair in place of the RFCOMM socket, in
//                                   reads of whatever arrived, framed (CRC-8), stamped, decoded with
//                                   RR intervals from the beat timestamps, and recorded.
//   handoff-bench activity …        activity files: writing and reading a 3-hour marathon at 1 Hz
//                                   (ActivityBench.swift).
//   handoff-bench sync …            uploading queued runs to a store, and the bytes an upload
//                                   takes (SyncBench.swift).
import BlueZ
import Foundation
import GATT
import HandoffModel
import PackSensors
import Recorder
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

@main
enum HandoffBench {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "activity" { return try ActivityBench.run(Array(arguments.dropFirst())) }
        if arguments.first == "sync" { return try SyncBench.run(Array(arguments.dropFirst())) }
        guard let mode = arguments.first, ["notifications", "hxm"].contains(mode),
            let count = arguments.dropFirst().first.flatMap({ Int($0) }), count >= 0
        else {
            FileHandle.standardError.write(Data("usage: handoff-bench notifications|hxm N\n".utf8))
            exit(64)
        }
        if mode == "hxm" { return try hxm(count) }
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0 else {
            FileHandle.standardError.write(Data("socketpair failed\n".utf8))
            exit(71)
        }
        let serverFD = fds[1]
        // The strap: notifications of a realistic size (flags, HR, two RR intervals), sent by a
        // thread of their own, as the kernel would deliver them.
        let server = Thread {
            for n in 0..<count {
                let hr = UInt8(120 + n % 41)
                let rr = UInt16(60 * 1024 / Int(hr))
                let pdu: [UInt8] = [
                    0x1B, 0x0E, 0x00, 0x16, hr, UInt8(rr & 0xFF), UInt8(rr >> 8), UInt8(rr & 0xFF), UInt8(rr >> 8),
                ]
                _ = pdu.withUnsafeBytes { send(serverFD, $0.baseAddress, $0.count, 0) }
            }
            shutdown(serverFD, Int32(SHUT_WR))
        }
        server.start()

        let client = GATTClient(
            bearer: SocketATTBearer(adopting: fds[0]), now: { PackClock.system.monotonic().seconds })
        let sensor = SensorID("F0:F0:F0:00:00:01")
        var pipeline = RunPipeline(sensors: [SensorDescriptor(id: sensor, kind: .heartRate, transport: .ble)])
        _ = pipeline.process(CaptureEvent(monotonic: PackClock.system.monotonic(), body: .command(.start)))
        var decoded = 0
        var points = 0
        // Stamped a second apart, as a strap sends them, so that each makes a record point.
        let start = PackClock.system.monotonic()
        while let value = try? client.nextValue(timeout: 5) {
            decoded += 1
            let event = CaptureEvent(
                monotonic: start.advanced(byNanoseconds: Int64(decoded) * nanosecondsPerSecond),
                body: .payload(sensor: sensor, kind: .heartRateMeasurement, .bytes(value.value)))
            let step = pipeline.process(event)
            points += step.outputs.filter { if case .point = $0 { true } else { false } }.count
        }
        print("notifications \(decoded) points \(points) rejected \(pipeline.decoding[sensor]?.rejected ?? 0)")
    }

    static func hxm(_ count: Int) throws {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            FileHandle.standardError.write(Data("socketpair failed\n".utf8))
            exit(71)
        }
        let serverFD = fds[1]
        // The strap: a frame per beat-second with realistic beats (about 2.5 a frame).
        let server = Thread {
            var beats = 0
            var clock = 0
            var times: [UInt16] = Array(repeating: 0, count: 15)
            for n in 0..<count {
                let hr = 120 + n % 41
                let newBeats = (n % 2 == 0) ? 2 : 3
                for _ in 0..<newBeats {
                    clock += 60_000 / hr
                    beats += 1
                    times = [UInt16(truncatingIfNeeded: clock)] + times.dropLast()
                }
                let frame = HxMGeneralData(
                    battery: 90, heartRate: UInt8(hr), heartBeatNumber: UInt8(truncatingIfNeeded: beats),
                    heartBeatTimestamps: times, distance16ths: UInt16(truncatingIfNeeded: n * 48),
                    speed256ths: 768, strides: UInt8(truncatingIfNeeded: n)
                ).encodedFrame()
                var sent = 0
                while sent < frame.count {
                    let written = frame[sent...].withUnsafeBytes { send(serverFD, $0.baseAddress, $0.count, 0) }
                    if written <= 0 { break }
                    sent += written
                }
            }
            shutdown(serverFD, Int32(SHUT_WR))
        }
        server.start()

        let stream = RFCOMMStream(adopting: fds[0])
        let sensor = SensorID("00:07:80:12:34:56")
        var pipeline = RunPipeline(sensors: [SensorDescriptor(id: sensor, kind: .heartRate, transport: .rfcomm)])
        _ = pipeline.process(CaptureEvent(monotonic: PackClock.system.monotonic(), body: .command(.start)))
        var framer = ClassicStrapFramer(profile: .zephyrHxM)
        var points = 0
        var rr = 0
        var frames = 0
        let start = PackClock.system.monotonic()
        while true {
            guard let bytes = try? stream.read(timeout: 5), !bytes.isEmpty else { break }
            framer.append(bytes) { kind, payload in
                guard kind == .zephyrHxM else { return }
                frames += 1
                let event = CaptureEvent(
                    monotonic: start.advanced(byNanoseconds: Int64(frames) * nanosecondsPerSecond),
                    body: .payload(sensor: sensor, kind: kind, .bytes(payload)))
                for output in pipeline.process(event).outputs {
                    switch output {
                    case .point: points += 1
                    case .rrIntervals(let batch): rr += batch.intervals1024ths.count
                    default: break
                    }
                }
            }
        }
        print("frames \(framer.frames) points \(points) rr \(rr) rejected \(pipeline.decoding[sensor]?.rejected ?? 0)")
    }
}
