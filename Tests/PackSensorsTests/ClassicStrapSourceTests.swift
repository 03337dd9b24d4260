import BlueZ
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

/// The classic strap source's framing and supervision, with a Unix stream socket pair standing in
/// for the kernel's RFCOMM socket (this machine has no Bluetooth; `scripts/bluez-vm run classic`
/// runs the same source against the real kernel stack and a virtual HxM).
@Suite(
    "Classic strap source over a socket pair instead of RFCOMM (no kernel Bluetooth here; real time: its reading thread and read timeouts)"
)
struct ClassicStrapSourceTests {
    static let hxm = PairedSensor(
        address: "00:07:80:12:34:56", addressType: .bredr, kind: .heartRate, name: "HXM026001",
        pairedWallNanoseconds: 0, profile: "zephyr-hxm", pin: "1234")

    static func frame(_ n: Int, battery: UInt8 = 90) -> [UInt8] {
        HxMGeneralData(
            battery: battery, heartRate: UInt8(140 + n), heartBeatNumber: UInt8(n * 2),
            heartBeatTimestamps: (0..<15).map { UInt16(truncatingIfNeeded: (n * 2 - $0) * 400 + 100_000) }
        ).encodedFrame()
    }

    /// Runs `source` until `done` (asked every 20 ms) or 10 s, then stops it.
    static func run(_ source: ClassicStrapSource, until done: (EventCollector) -> Bool) -> EventCollector {
        let collector = EventCollector()
        let stop = StopFlag()
        let thread = Thread { source.run(emit: { collector.add($0) }, stop: stop, logger: Logger(label: "test")) }
        thread.start()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !done(collector) { usleep(20_000) }
        stop.set()
        while thread.isExecuting { usleep(20_000) }
        return collector
    }

    static func payloads(_ collector: EventCollector, _ kind: PayloadKind) -> [[UInt8]] {
        collector.all.compactMap { if case .payload(_, let k, .bytes(let b)) = $0.body, k == kind { b } else { nil } }
    }

    @Test(
        "Frames split anyhow, with garbage between, come out whole and in order; battery on change; a closed link is a gap, then it reconnects"
    )
    func framesAndReconnection() throws {
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        var second: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &second) == 0)
        let strapEnds = [ends[1], second[1]]
        let attempts = Atomic<Int>(0)
        var source = ClassicStrapSource(sensor: Self.hxm, clock: .system)
        source.backoff = Backoff(initial: 0.05, maximum: 0.1)
        let clientEnds = [ends[0], second[0]]
        source.connect = { _ in
            let attempt = attempts.add(1, ordering: .relaxed).newValue
            guard attempt <= 2 else {
                throw BlueZError.classicConnectFailed(address: "00:07:80:12:34:56", errno: EHOSTDOWN)
            }
            return RFCOMMStream(adopting: clientEnds[attempt - 1])
        }
        // The first link: three frames in odd pieces with noise, the battery dropping on the third.
        let stream = Self.frame(0) + [0x00, 0x02, 0x26] + Self.frame(1) + [0xFF] + Self.frame(2, battery: 89)
        let writer = Thread {
            var offset = 0
            for size in [7, 1, 60, 13, 2, 200] where offset < stream.count {
                let end = min(stream.count, offset + size)
                _ = stream[offset..<end].withUnsafeBytes { write(strapEnds[0], $0.baseAddress, $0.count) }
                offset = end
                usleep(30_000)
            }
            usleep(100_000)
            close(strapEnds[0])  // the strap goes away
            // The second link: one more frame.
            let again = Self.frame(3)
            _ = again.withUnsafeBytes { write(strapEnds[1], $0.baseAddress, $0.count) }
        }
        writer.start()
        let collector = Self.run(source) { c in Self.payloads(c, .zephyrHxM).count >= 4 && c.links.count >= 3 }
        close(strapEnds[1])

        #expect(Self.payloads(collector, .zephyrHxM) == (0...3).map { Self.frame($0, battery: $0 == 2 ? 89 : 90) })
        #expect(Self.payloads(collector, .batteryLevel) == [[90], [89], [90]], "on connecting, then on change")
        #expect(collector.links == [.connected, .disconnected, .connected])
        let reason = collector.all.compactMap { e -> String? in
            if case .link(_, .disconnected, let r) = e.body { r } else { nil }
        }
        #expect(reason.first == "the strap closed the connection")
    }

    @Test(
        "A link that stays open but sends nothing readable is dropped after the silence timeout, timed on the source's clock"
    )
    func silentLink() throws {
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer { close(ends[1]) }
        // The strap's 8 s of silence pass on the test's clock, a second each time it looks.
        let time = TestPackClock()
        var source = ClassicStrapSource(sensor: Self.hxm, clock: time.clock)
        let attempts = Atomic<Int>(0)
        let client = ends[0]
        source.connect = { _ in
            guard attempts.add(1, ordering: .relaxed).newValue == 1 else { throw BlueZError.cancelled }
            return RFCOMMStream(adopting: client)
        }
        let garbage = [UInt8](repeating: 0x55, count: 100)
        _ = garbage.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        let collector = Self.run(source) { c in
            if c.links == [.connected] { time.advance(seconds: 1) }
            return c.links.count >= 2
        }
        #expect(collector.links == [.connected, .disconnected])
        let reason = collector.all.compactMap { e -> String? in
            if case .link(_, .disconnected, let r) = e.body { r } else { nil }
        }
        #expect(reason.first == "no HxM frame for 8 s (100 bytes could not be read)")
        // Both link events carry the test clock's times, the drop more than 8 of its seconds later.
        let links = collector.all.filter { if case .link = $0.body { true } else { false } }
        #expect(links.allSatisfy { $0.wall == time.wall(at: $0.monotonic) })
        #expect(links.count == 2 && links[1].monotonic.seconds(since: links[0].monotonic) > 8)
    }
}
