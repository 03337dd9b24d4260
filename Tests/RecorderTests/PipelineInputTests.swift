import HandoffModel
import Recorder
import SensorCodecs
import Testing

/// What the pipeline does with each kind of payload, good and bad: bad ones are counted with the
/// reason and change nothing else.
@Suite("RunPipeline: gpsd, steps and clock events")
struct PipelineInputTests {
    static func event(_ seconds: Double, _ body: CaptureEvent.Body) -> CaptureEvent {
        CaptureEvent(monotonic: MonotonicInstant(seconds: 100 + seconds), body: body)
    }

    @Test("Bad gpsd lines and step counts are rejected and counted; good ones are recorded")
    func rejectsAndCounts() {
        var pipeline = RunPipeline()
        _ = pipeline.process(Self.event(0, .command(.start)))
        let bad: [(CaptureEvent.Body, String)] = [
            (.payload(sensor: "gps0", kind: .gpsd, .text(#"{"class":"TPV","mode":3,"lat":"#)), "gpsd: not JSON"),
            (.payload(sensor: "gps0", kind: .gpsd, .bytes([0x7B])), "gpsd payload must be text"),
            (.payload(sensor: "steps0", kind: .steps, .text("-3")), "steps: '-3' is not a count"),
            (.payload(sensor: "steps0", kind: .steps, .text("12 steps")), "is not a count"),
        ]
        for (i, (body, message)) in bad.enumerated() {
            let step = pipeline.process(Self.event(0.1 * Double(i + 1), body))
            #expect(step.decodeError?.contains(message) == true, "\(String(describing: step.decodeError))")
        }
        #expect(pipeline.decoding["gps0"]?.rejected == 2)
        #expect(pipeline.decoding["steps0"]?.rejected == 2)
        #expect(pipeline.decoding["steps0"]?.lastError?.contains("12 steps") == true)
        _ = pipeline.process(Self.event(1.1, .payload(sensor: "steps0", kind: .steps, .text("200"))))
        _ = pipeline.process(Self.event(2.1, .payload(sensor: "steps0", kind: .steps, .text("203"))))
        #expect(pipeline.decoding["steps0"]?.decoded == 2)
        let outputs = pipeline.process(Self.event(3, .command(.stop))).outputs
        let summary = outputs.lazy.compactMap { if case .finished(let s) = $0 { s } else { nil } }.first
        #expect(summary?.steps == 3)
    }

    @Test("A payload kind from a newer pack is skipped, not rejected")
    func unknownKind() {
        var pipeline = RunPipeline()
        let step = pipeline.process(
            Self.event(0, .payload(sensor: "imu0", kind: PayloadKind(rawValue: "accel"), .text("0.1,0.2,9.8"))))
        #expect(step.decodeError == nil)
        #expect(pipeline.decoding["imu0"]?.skipped == 1)
    }

    @Test("Clock events set whether the system clock may be trusted")
    func clockEvents() {
        var pipeline = RunPipeline()
        #expect(pipeline.recorder.wallClockSynchronized)
        _ = pipeline.process(Self.event(0, .clock(synchronized: false)))
        #expect(!pipeline.recorder.wallClockSynchronized)
        _ = pipeline.process(Self.event(1, .clock(synchronized: true)))
        #expect(pipeline.recorder.wallClockSynchronized)
    }
}

@Suite("RunPipeline: classic straps' frames (Zephyr HxM, Polar WearLink+)")
struct ClassicStrapPipelineTests {
    static func hxm(beat: UInt8, times: [UInt16], hr: UInt8 = 150) -> [UInt8] {
        HxMGeneralData(
            battery: 90, heartRate: hr, heartBeatNumber: beat,
            heartBeatTimestamps: times + Array(repeating: 0, count: 15 - times.count)
        ).encodedFrame()
    }

    static func rr(_ outputs: [RecorderOutput]) -> [[UInt16]] {
        outputs.compactMap { if case .rrIntervals(let batch) = $0 { batch.intervals1024ths } else { nil } }
    }

    @Test("HxM frames give the heart rate, and RR intervals from the beats new since the previous frame")
    func hxmFrames() {
        var pipeline = RunPipeline(sensors: [SensorDescriptor(id: "hxm", kind: .heartRate)])
        _ = pipeline.process(PipelineInputTests.event(0, .command(.start)))
        var rr: [[UInt16]] = []
        let frames = [
            Self.hxm(beat: 10, times: [4000, 3600]),
            Self.hxm(beat: 12, times: [4800, 4400, 4000, 3600]),  // two new beats: 400, 400 ms
            Self.hxm(beat: 12, times: [4800, 4400, 4000, 3600]),  // none new
            Self.hxm(beat: 13, times: [5210, 4800, 4400, 4000]),  // one: 410 ms
        ]
        for (i, frame) in frames.enumerated() {
            let step = pipeline.process(
                PipelineInputTests.event(Double(i + 1), .payload(sensor: "hxm", kind: .zephyrHxM, .bytes(frame))))
            #expect(step.decodeError == nil)
            rr += Self.rr(step.outputs)
        }
        // 400 ms = 409.6/1024 s → 410; 410 ms → 419.84 → 420.
        #expect(rr.flatMap { $0 } == [410, 410, 420])
        #expect(pipeline.recorder.snapshot(at: MonotonicInstant(seconds: 104.5)).heartRateBPM == 150)
        #expect(pipeline.decoding["hxm"]?.decoded == 4)
    }

    @Test("A Polar packet gives its heart rate and RR intervals; bad frames of either are rejected and counted")
    func polarAndBadFrames() {
        var pipeline = RunPipeline(sensors: [SensorDescriptor(id: "polar", kind: .heartRate)])
        _ = pipeline.process(PipelineInputTests.event(0, .command(.start)))
        let packet = PolarWearLinkPacket(sequence: 3, status: 0xD1, heartRate: 72, rrIntervalsMilliseconds: [868, 880])
        let step = pipeline.process(
            PipelineInputTests.event(1, .payload(sensor: "polar", kind: .polarWearLink, .bytes(packet.encoded()))))
        #expect(Self.rr(step.outputs) == [[889, 901]])
        var badCRC = Self.hxm(beat: 1, times: [100])
        badCRC[20] ^= 1
        let bad: [(PayloadKind, Payload)] = [
            (.zephyrHxM, .bytes(badCRC)), (.zephyrHxM, .bytes(Array(badCRC.prefix(30)))),
            (.zephyrHxM, .text("02 26")), (.polarWearLink, .bytes([0xFE, 0x08, 0x03, 1, 0, 70, 0, 0])),
        ]
        for (i, (kind, payload)) in bad.enumerated() {
            let step = pipeline.process(
                PipelineInputTests.event(2 + Double(i), .payload(sensor: "polar", kind: kind, payload)))
            #expect(step.decodeError != nil, "\(kind) \(payload) must be rejected")
        }
        #expect(pipeline.decoding["polar"]?.rejected == 4)
    }
}
