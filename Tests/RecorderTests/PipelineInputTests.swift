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
