import HandoffModel
import Recorder
import SensorCodecs
import Testing

@Suite("Recorder: session states, points and laps")
struct RecorderStateTests {
    @Test("idle → recording ⇄ paused → finished, and commands that do not apply say why")
    func stateMachine() throws {
        var h = Harness()
        #expect(throws: RecorderError.notStarted) { try h.command(.pause, at: 0) }
        #expect(throws: RecorderError.notStarted) { try h.command(.stop, at: 0) }
        try h.command(.start, at: 0)
        #expect(h.recorder.state == .recording)
        #expect(throws: RecorderError.alreadyRecording) { try h.command(.start, at: 1) }
        #expect(throws: RecorderError.notPaused) { try h.command(.resume, at: 1) }
        try h.command(.pause, at: 2)
        #expect(h.recorder.state == .paused)
        #expect(throws: RecorderError.alreadyPaused) { try h.command(.pause, at: 3) }
        try h.command(.resume, at: 4)
        try h.command(.stop, at: 6)
        #expect(h.recorder.state == .finished)
        #expect(throws: RecorderError.notRecording) { try h.command(.pause, at: 7) }
        #expect(h.events.map(\.kind) == [.start, .pause, .resume, .stop])
        // A new run may start after one finished.
        try h.command(.start, at: 10)
        #expect(h.recorder.state == .recording)
    }

    @Test("One point per second on a grid from the start; none while paused")
    func pointGrid() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        h.advance(to: 3.5)
        try h.command(.pause, at: 3.7)
        h.advance(to: 8)
        try h.command(.resume, at: 8.2)
        try h.command(.stop, at: 11.0)
        #expect(h.points.map(\.elapsedSeconds) == [0, 1, 2, 3, 9, 10, 11])
        let summary = try #require(h.summary)
        #expect(summary.elapsedSeconds == 11)
        #expect(abs(summary.statistics.timerSeconds - (11 - 4.5)) < 1e-9)
    }

    @Test("A value older than the staleness limit is absent, never repeated")
    func staleness() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        h.heartRate(150, at: 0.5)
        h.advance(to: 5)
        // Points 1, 2, 3 see the value 0.5, 1.5 and 2.5 s old; point 4 would see it 3.5 s old.
        #expect(h.points.map(\.heartRateBPM) == [nil, 150, 150, 150, nil, nil])
        #expect(h.events.contains { $0.kind == .gapStart && $0.sensor == "hr0" })
        h.heartRate(152, at: 5.5)
        h.advance(to: 6)
        #expect(h.points.last?.heartRateBPM == 152)
        #expect(h.events.last?.kind == .gapEnd)
    }

    @Test("A disconnected sensor's last value is dropped at once, and the gap recorded")
    func disconnect() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        h.heartRate(140, at: 0.5)
        h.link(.disconnected, at: 1.2)
        h.advance(to: 2)
        #expect(h.points.map(\.heartRateBPM) == [nil, 140, nil])
        #expect(h.events.map(\.kind) == [.start, .disconnected, .gapStart])
        h.link(.connected, at: 3)
        h.heartRate(141, at: 3.5)
        h.advance(to: 4)
        #expect(h.points.last?.heartRateBPM == 141)
        #expect(h.events.map(\.kind).suffix(2) == [.connected, .gapEnd])
    }

    @Test("A strap without skin contact, or sending 0 bpm, gives no heart rate")
    func implausibleHeartRate() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        h.outputs += h.recorder.receive(
            SensorReading(
                time: Harness.time(0.5), sensor: "hr0",
                value: .heartRate(HeartRateMeasurement(heartRate: 90, sensorContact: .notDetected))))
        h.advance(to: 1)
        h.heartRate(0, at: 1.5)
        h.advance(to: 2)
        #expect(h.points.map(\.heartRateBPM) == [nil, nil, nil])
    }

    @Test("RR intervals are kept exactly as received, only while recording")
    func rrIntervals() throws {
        var h = Harness()
        h.heartRate(60, rr: [1000], at: 0.2)  // before the start: not part of the run
        try h.command(.start, at: 1)
        h.heartRate(61, rr: [1024, 1023], at: 1.5)
        try h.command(.pause, at: 2)
        h.heartRate(62, rr: [999], at: 2.5)
        try h.command(.resume, at: 3)
        h.heartRate(63, rr: [65535, 0, 1], at: 3.5)
        #expect(h.rr.map(\.intervals1024ths) == [[1024, 1023], [65535, 0, 1]])
        #expect(h.rr.map(\.offsetNanoseconds) == [500_000_000, 2_500_000_000])
    }

    @Test("Several straps: the point keeps the one it used while it stays fresh, and says which")
    func severalSensors() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        for s in 0..<10 {
            if s < 6 { h.heartRate(150, at: Double(s) + 0.3, sensor: "hrA") }
            if s >= 2 { h.heartRate(120, at: Double(s) + 0.6, sensor: "hrB") }
        }
        h.advance(to: 10)
        let used = h.points.dropFirst().map { $0.heartRateSensor?.rawValue ?? "-" }
        // hrA alone at first; kept while fresh though hrB is fresher; hrB once hrA is 3 s stale.
        #expect(used == ["hrA", "hrA", "hrA", "hrA", "hrA", "hrA", "hrA", "hrA", "hrB", "hrB"])
        #expect(h.points.dropFirst().map(\.heartRateBPM) == [150, 150, 150, 150, 150, 150, 150, 150, 120, 120])
    }

    @Test("Manual laps close at the last point; an empty lap is refused; the finish closes the last")
    func manualLaps() throws {
        var h = Harness()
        try h.command(.start, at: 0)
        h.advance(to: 5.5)
        try h.command(.lap, at: 5.5)
        #expect(throws: RecorderError.emptyLap) { try h.command(.lap, at: 5.6) }
        try h.command(.stop, at: 9.2)
        #expect(h.laps.map(\.index) == [1, 2])
        #expect(h.laps.map(\.trigger) == [.manual, .sessionEnd])
        #expect(h.laps.map(\.startElapsedSeconds) == [0, 5])
        #expect(h.laps.map(\.endElapsedSeconds) == [5, 9])
        #expect(abs(h.laps[1].statistics.timerSeconds - 4.2) < 1e-9)
    }

    @Test("Identical inputs give identical outputs, whatever the clock ticks in between")
    func determinism() throws {
        func run(ticks: Bool) throws -> [RecorderOutput] {
            var h = Harness()
            try h.command(.start, at: 0)
            for i in 0..<60 {
                let t = Double(i) + 0.37
                h.heartRate(UInt16(120 + i % 7), rr: [UInt16(800 + i)], at: t)
                h.footpod(speed: 3.0, total: UInt32(i * 30), at: t + 0.2)
                h.gps(north: Double(i) * 3, speed: 3.0, at: t + 0.5)
                if ticks { h.advance(to: t + 0.6) }  // a tick between events, at any phase
            }
            try h.command(.stop, at: 60.1)
            return h.outputs
        }
        #expect(try run(ticks: false) == run(ticks: true))
    }
}
