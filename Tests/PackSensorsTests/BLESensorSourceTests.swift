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

/// The BLE sensor source's supervision, with a socket pair standing in for the kernel's L2CAP
/// socket (this machine has no Bluetooth; `scripts/bluez-vm` runs the same source against the
/// real kernel stack).
@Suite(
    "BLE sensor source over a socket pair instead of L2CAP (no kernel Bluetooth here; real time: its reading thread and ATT timeouts)"
)
struct BLESensorSourceTests {
    static let strap = PairedSensor(
        address: "F0:F0:F0:00:00:01", addressType: .public, kind: .heartRate, name: "Handoff HR",
        pairedWallNanoseconds: 0)

    /// A strap's ATT server: MTU, discovery of Heart Rate and Battery, both subscribed.
    static let connectAndSubscribe: [ScriptedATTServer.Step] = [
        .expect("02 f700"), .send("03 1700"),
        .expect("10 0100 ffff 0028"), .send("11 06 0c00 1100 0d18 1200 1500 0f18"),
        .expect("10 1600 ffff 0028"), .send("01 10 1600 0a"),
        .expect("08 0c00 1100 0328"), .send("09 07 0d00 10 0e00 372a 1000 02 1100 382a"),
        .expect("08 1100 1100 0328"), .send("01 08 1100 0a"),
        .expect("08 1200 1500 0328"), .send("09 07 1300 12 1400 192a"),
        .expect("08 1400 1500 0328"), .send("01 08 1400 0a"),
        .expect("04 0f00 0f00"), .send("05 01 0f00 0229"),
        .expect("12 0f00 0100"), .send("13"),
        .expect("04 1500 1500"), .send("05 01 1500 0229"),
        .expect("12 1500 0100"), .send("13"),
        // The battery is read once on connecting: it notifies only when it changes.
        .expect("0a 1400"), .send("0b 58"),
    ]

    @Test("Subscribes, passes every notification on raw and in order, and reports the link dropping")
    func followsAStrap() throws {
        let notifications = ["167856 04", "10 79 5004 4b04", "", "00 7a"]
        let server = ScriptedATTServer(
            Self.connectAndSubscribe + notifications.map { .send("1b 0e00 " + $0) } + [
                .send("1b 1400 57"), .pause(0.3),
            ])
        let attempts = Atomic<Int>(0)
        var source = BLESensorSource(sensor: Self.strap, clock: .system)
        source.backoff = Backoff(initial: 0.05, maximum: 0.1)
        let clientFD = server.clientFD
        source.connect = { _, _ in
            if attempts.add(1, ordering: .relaxed).newValue == 1 { return SocketATTBearer(adopting: clientFD) }
            throw BlueZError.connectTimedOut(address: "F0:F0:F0:00:00:01", seconds: 20)
        }
        let collector = EventCollector()
        let stop = StopFlag()
        let thread = Thread { [source] in
            source.run(emit: { collector.add($0) }, stop: stop, logger: Logger(label: "test"))
        }
        thread.start()
        #expect(server.finish() == [])
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, !collector.links.contains(.disconnected) || attempts.load(ordering: .relaxed) < 3 {
            usleep(20_000)
        }
        stop.set()
        while thread.isExecuting { usleep(20_000) }

        #expect(collector.links == [.connected, .disconnected])
        let payloads = collector.all.compactMap { event -> (PayloadKind, [UInt8])? in
            if case .payload(let sensor, let kind, .bytes(let bytes)) = event.body, sensor == "F0:F0:F0:00:00:01" {
                return (kind, bytes)
            }
            return nil
        }
        #expect(
            payloads.filter { $0.0 == .heartRateMeasurement }.map { Hex.encode($0.1) }
                == notifications.map {
                    Hex.encode(try! Hex.decode($0))
                })
        #expect(payloads.filter { $0.0 == .batteryLevel }.map(\.1) == [[0x58], [0x57]])
        if case .link(_, .disconnected, let reason) = collector.all.last(where: {
            if case .link = $0.body { true } else { false }
        })?.body {
            #expect(reason == "the link was closed")
        }
        // It kept trying after the strap went away, without reporting the same drop again.
        #expect(attempts.load(ordering: .relaxed) >= 3)
    }

    @Test("A sensor without the measurement it was paired for is never reported connected")
    func missingMeasurement() throws {
        let server = ScriptedATTServer([
            .expect("02 f700"), .send("03 1700"),
            .expect("10 0100 ffff 0028"), .send("11 06 1200 1500 0f18"),
            .expect("10 1600 ffff 0028"), .send("01 10 1600 0a"),
            .expect("08 1200 1500 0328"), .send("01 08 1200 0a"),
        ])
        var source = BLESensorSource(sensor: Self.strap, clock: .system)
        source.backoff = Backoff(initial: 0.05, maximum: 0.05)
        let clientFD = server.clientFD
        let connects = Atomic<Int>(0)
        source.connect = { _, _ in
            if connects.add(1, ordering: .relaxed).newValue == 1 { return SocketATTBearer(adopting: clientFD) }
            throw BlueZError.cancelled
        }
        let collector = EventCollector()
        let stop = StopFlag()
        defer { stop.set() }
        let done = Atomic<Bool>(false)
        let thread = Thread { [source] in
            source.run(emit: { collector.add($0) }, stop: stop, logger: Logger(label: "test"))
            done.store(true, ordering: .releasing)
        }
        thread.start()
        #expect(server.finish() == [])
        // The probe: the source is done with the sensor when it connects again (that attempt is
        // cancelled, and the source stops). Only then is "never reported connected" a finding.
        let deadline = Date().addingTimeInterval(120)
        while !done.load(ordering: .acquiring), Date() < deadline { usleep(20_000) }
        let finished = done.load(ordering: .acquiring)
        #expect(finished, "the source did not give the sensor up and try again")
        let attempts = connects.load(ordering: .relaxed)
        #expect(attempts == 2)
        #expect(collector.links == [])
    }
}
