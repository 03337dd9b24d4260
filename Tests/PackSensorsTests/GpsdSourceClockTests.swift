import Foundation
import HandoffModel
import Logging
import PackSensors
import PackSystem
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The gpsd source on the clock it is given: a loopback socket stands in for gpsd, a test clock
/// for the pack's.
@Suite(
    "gpsd source on an injected clock (a loopback stand-in for gpsd; real time only for its socket reads)",
    .serialized)
struct GpsdSourceClockTests {
    static func wait(_ what: String, until condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(30)
        while !condition() {
            try #require(Date() < deadline, "timed out waiting for \(what)")
            usleep(10_000)
        }
    }

    @Test("Reports and link changes are stamped by the injected clock, and gpsd's silence is timed on it")
    func stampsAndSilence() throws {
        let (listener, port) = try listenOnLoopback()
        defer { close(listener) }
        let time = TestPackClock(synchronized: false)
        time.advance(seconds: 60)
        var source = GpsdSource(id: "gps0", host: "127.0.0.1", port: port, clock: time.clock)
        source.backoff = Backoff(initial: 0.05, maximum: 0.05)
        let collector = EventCollector()
        let stop = StopFlag()
        let thread = Thread { [source] in
            source.run(emit: { collector.add($0) }, stop: stop, logger: Logger(label: "test"))
        }
        thread.start()
        defer {
            stop.set()
            while thread.isExecuting { usleep(10_000) }
        }
        // gpsd: takes the client, reads its WATCH, sends one report.
        let gpsd = accept(listener, nil, nil)
        try #require(gpsd >= 0)
        defer { close(gpsd) }
        var watch: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        while watch.count < GpsdSource.watchCommand.utf8.count {
            let n = read(gpsd, &chunk, chunk.count)
            try #require(n > 0, "the client closed before its WATCH")
            watch += chunk[..<n]
        }
        #expect(String(decoding: watch, as: UTF8.self) == GpsdSource.watchCommand)
        let tpv = #"{"class":"TPV","device":"/dev/ttyAMA0","mode":3}"#
        #expect(Array((tpv + "\n").utf8).withUnsafeBytes { write(gpsd, $0.baseAddress, $0.count) } > 0)
        try Self.wait("the report") { collector.texts(.gpsd) == [tpv] }

        // Stamped by the test clock: 65 s on its monotonic clock, and the wall time that goes
        // with it (trusted or not, a pack on `system_clock = unsynchronized` dates consistently).
        let at65 = MonotonicInstant(nanoseconds: 65 * nanosecondsPerSecond)
        #expect(collector.all.map(\.monotonic) == [at65, at65])
        #expect(collector.all.map(\.wall) == [time.wall(at: at65), time.wall(at: at65)])

        // Then gpsd says nothing: 11 s pass on the source's clock (none on the test's), and the
        // link goes down at that time, for that reason.
        time.advance(seconds: 11)
        try Self.wait("the link to go down") { collector.links.count >= 2 }
        let down = try #require(
            collector.all.first { if case .link(_, .disconnected, _) = $0.body { true } else { false } })
        #expect(down.monotonic == at65.advanced(byNanoseconds: 11 * nanosecondsPerSecond))
        guard case .link(_, .disconnected, let reason) = down.body else { return }
        #expect(reason == "gpsd sent nothing for 10 s")
    }
}
