// handoff-bench: work loads for scripts/bench to count under callgrind. Not installed on a pack.
//
//   handoff-bench notifications N   N Heart Rate Measurement notifications through what the pack
//                                   does with each: read from a SEQPACKET socket (a socket pair in
//                                   place of the L2CAP ATT socket), ATT and GATT handling, stamping,
//                                   HRM decoding and the recorder. Callgrind's count for N minus
//                                   its count for 0, over N, is the instructions per notification.
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
        guard arguments.first == "notifications", let count = arguments.dropFirst().first.flatMap({ Int($0) }),
            count >= 0
        else {
            FileHandle.standardError.write(Data("usage: handoff-bench notifications N\n".utf8))
            exit(64)
        }
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

        let client = GATTClient(bearer: SocketATTBearer(adopting: fds[0]), now: { LiveClock.monotonic().seconds })
        let sensor = SensorID("F0:F0:F0:00:00:01")
        var pipeline = RunPipeline(sensors: [SensorDescriptor(id: sensor, kind: .heartRate, transport: "ble")])
        _ = pipeline.process(CaptureEvent(monotonic: LiveClock.monotonic(), body: .command(.start)))
        var decoded = 0
        var points = 0
        // Stamped a second apart, as a strap sends them, so that each makes a record point.
        let start = LiveClock.monotonic()
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
}
